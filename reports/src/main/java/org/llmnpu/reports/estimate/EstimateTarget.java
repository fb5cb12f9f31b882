package org.llmnpu.reports.estimate;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.databind.exc.ValueInstantiationException;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.llmnpu.rtl.npu.NpuConfig;

/**
 * The NPU an estimate runs on: an {@link NpuConfig} and the clock that turns its cycles into seconds. Presets ship
 * as YAML resources ({@code edge-64}); a {@code --config} file (YAML or JSON, {@link NpuConfig}'s field names and
 * {@code clockMhz}) overrides any of a preset's fields, so a file with every field replaces it.
 *
 * @param name     the preset's name, with {@code +config} when a file overrode it
 * @param npu      the NPU's parameters
 * @param clockMhz the clock, MHz
 * @param source   where the parameters came from
 */
public record EstimateTarget(String name, NpuConfig npu, double clockMhz, String source) {
  /** The shipped presets. */
  public static final List<String> PRESETS = List.of("edge-64");

  /** The one field of a target that is not an NPU parameter. */
  static final String CLOCK = "clockMhz";

  public EstimateTarget {
    if (!(clockMhz >= 1 && clockMhz <= 100_000)) {
      throw new IllegalArgumentException(CLOCK + " must be in 1..100000 MHz, got " + clockMhz);
    }
  }

  /**
   * The preset {@code preset} ({@link #PRESETS}) with the fields of {@code config} (null: none) over it.
   *
   * @throws IllegalArgumentException naming {@code --preset} or {@code --config} and what is allowed
   */
  public static EstimateTarget load(String preset, Path config) {
    if (!PRESETS.contains(preset)) {
      throw new IllegalArgumentException("--preset: '" + preset + "' is not allowed; allowed: "
          + String.join(", ", PRESETS));
    }
    ObjectMapper yaml = new ObjectMapper(new YAMLFactory());
    ObjectNode fields = (ObjectNode) yaml.valueToTree(NpuConfig.defaults());
    String resource = preset + ".yaml";
    try (InputStream in = EstimateTarget.class.getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException("preset " + preset + " is missing from the build (" + resource + ")");
      }
      fields.setAll((ObjectNode) yaml.readTree(in));
    } catch (IOException e) {
      throw new IllegalStateException("preset " + preset + " cannot be read: " + e.getMessage(), e);
    }
    String name = preset;
    String source = "preset " + preset + " (shipped " + resource + ")";
    if (config != null) {
      fields.setAll(read(config));
      name = preset + "+config";
      source += " overridden by " + config;
    }
    String what = config != null ? "--config " + config : "--preset " + preset;
    JsonNode clock = fields.remove(CLOCK);
    if (clock == null || !clock.isNumber()) {
      throw new IllegalArgumentException(what + ": " + CLOCK + " must be a number of MHz, got " + clock);
    }
    ObjectMapper strict = new ObjectMapper().configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, true);
    try {
      return new EstimateTarget(name, strict.treeToValue(fields, NpuConfig.class), clock.doubleValue(), source);
    } catch (UnrecognizedPropertyException e) {
      throw new IllegalArgumentException(what + ": unknown NPU parameter '" + e.getPropertyName() + "'; allowed: "
          + CLOCK + ", " + String.join(", ", fieldNames()), e);
    } catch (ValueInstantiationException e) {
      throw new IllegalArgumentException(what + ": " + e.getCause().getMessage(), e);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalArgumentException(what + ": not a valid NPU configuration: " + e.getOriginalMessage(), e);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(what + ": " + e.getMessage(), e);
    }
  }

  private static ObjectNode read(Path config) {
    String file = config.getFileName() == null ? "" : config.getFileName().toString().toLowerCase(java.util.Locale.ROOT);
    if (!file.endsWith(".yaml") && !file.endsWith(".yml") && !file.endsWith(".json")) {
      throw new IllegalArgumentException("--config: " + config + " must be a .yaml, .yml or .json file");
    }
    if (!Files.isRegularFile(config)) {
      throw new IllegalArgumentException("--config: " + config + " does not exist");
    }
    ObjectMapper mapper = file.endsWith(".json") ? new ObjectMapper() : new ObjectMapper(new YAMLFactory());
    try {
      JsonNode tree = mapper.readTree(config.toFile());
      if (tree == null || tree.isMissingNode() || tree.isNull()) {
        throw new IllegalArgumentException("--config: " + config + " is empty");
      }
      if (!tree.isObject()) {
        throw new IllegalArgumentException("--config: " + config + " must map NPU parameter names to values");
      }
      return (ObjectNode) tree;
    } catch (IOException e) {
      throw new IllegalArgumentException("--config: " + config + " is not valid " + (file.endsWith(".json") ? "JSON"
          : "YAML") + ": " + e.getMessage(), e);
    }
  }

  private static List<String> fieldNames() {
    return java.util.Arrays.stream(NpuConfig.class.getRecordComponents()).map(c -> c.getName()).toList();
  }

  /** The external memory's bytes per cycle and GB/s at the clock. */
  public double bandwidthGbs() {
    return npu.memBytesPerCycle() * clockMhz / 1000;
  }

  /**
   * The same NPU with external memory of {@code gbs} GB/s at this clock: a whole number of bytes per cycle that
   * divides the line ({@code rows} bytes), so that the memory takes a line every {@code rows / bytesPerCycle} cycles.
   *
   * @throws IllegalArgumentException naming {@code --bandwidth-gbs} and the allowed values
   */
  public EstimateTarget withBandwidthGbs(double gbs) {
    double perCycle = gbs * 1000 / clockMhz;
    long bytes = Math.round(perCycle);
    int line = npu.rows();
    if (Math.abs(perCycle - bytes) > 1e-9 || bytes < 1 || bytes > line || line % bytes != 0) {
      StringBuilder allowed = new StringBuilder();
      for (int b = 1; b <= line; b *= 2) {
        allowed.append(allowed.length() == 0 ? "" : ", ").append(fmt(b * clockMhz / 1000));
      }
      throw new IllegalArgumentException("--bandwidth-gbs: " + fmt(gbs) + " is not allowed on " + name + " (" + line
          + "-byte lines at " + fmt(clockMhz) + " MHz); allowed: " + allowed + " (whole bytes per cycle dividing the line)");
    }
    return new EstimateTarget(name, npu.withMemory(npu.memLatency(), (int) bytes), clockMhz, source);
  }

  static String fmt(double v) {
    return v == Math.rint(v) ? Long.toString((long) v) : Double.toString(v);
  }
}
