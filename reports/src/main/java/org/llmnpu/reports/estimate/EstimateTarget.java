package org.llmnpu.reports.estimate;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.llmnpu.rtl.npu.NpuConfig;
import org.llmnpu.rtl.npu.NpuConfigBuilder;
import org.llmnpu.rtl.npu.NpuConfigFiles;
import org.llmnpu.rtl.npu.NpuParameter;

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
  static final String CLOCK = NpuConfigFiles.CLOCK_MHZ;

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
    return load(preset, config, Map.of());
  }

  /**
   * The preset {@code preset} with the fields of {@code config} (null: none) over it and the NPU parameters
   * {@code params} ({@code -p name=value}; Map.of(): none) over both. Iteration order of {@code params} does not matter:
   * each names a different parameter.
   *
   * @throws IllegalArgumentException naming {@code --preset}, {@code --config} or {@code -p} and what is allowed
   */
  public static EstimateTarget load(String preset, Path config, Map<String, String> params) {
    if (!PRESETS.contains(preset)) {
      throw new IllegalArgumentException("--preset: '" + preset + "' is not allowed; allowed: "
          + String.join(", ", PRESETS));
    }
    ObjectMapper yaml = new ObjectMapper(new YAMLFactory());
    ObjectNode presetFields;
    String resource = preset + ".yaml";
    try (InputStream in = EstimateTarget.class.getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException("preset " + preset + " is missing from the build (" + resource + ")");
      }
      presetFields = (ObjectNode) yaml.readTree(in);
    } catch (IOException e) {
      throw new IllegalStateException("preset " + preset + " cannot be read: " + e.getMessage(), e);
    }
    String name = preset;
    String source = "preset " + preset + " (shipped " + resource + ")";
    String what = "--preset " + preset;
    JsonNode clock = presetFields.remove(CLOCK);
    NpuConfigBuilder npu = NpuConfig.builder();
    NpuConfigFiles.apply(npu, presetFields, what);
    if (config != null) {
      what = "--config " + config;
      ObjectNode fields = read(config);
      if (fields.has(CLOCK)) {
        clock = fields.remove(CLOCK);
      }
      NpuConfigFiles.apply(npu, fields, what + " (" + CLOCK + " and the NPU parameters)");
      name = preset + "+config";
      source += " overridden by " + config;
    }
    for (Map.Entry<String, String> p : new java.util.TreeMap<>(params).entrySet()) {
      NpuParameter parameter;
      try {
        parameter = NpuParameter.of(p.getKey());
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("-p: " + e.getMessage(), e);
      }
      try {
        npu.set(parameter, parameter.canonical(p.getValue()));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("-p " + p.getKey() + ": " + e.getMessage(), e);
      }
      what = (config != null ? "--config " + config + " and " : "--preset " + preset + " with ") + "-p";
      name = name + (name.endsWith("+p") ? "" : "+p");
      source += (source.contains(" with -p ") ? ", " : " with -p ") + p.getKey() + "=" + parameter.canonical(p.getValue());
    }
    if (clock == null || !clock.isNumber()) {
      throw new IllegalArgumentException(what + ": " + CLOCK + " must be a number of MHz, got " + clock);
    }
    try {
      return new EstimateTarget(name, npu.build(), clock.doubleValue(), source);
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
