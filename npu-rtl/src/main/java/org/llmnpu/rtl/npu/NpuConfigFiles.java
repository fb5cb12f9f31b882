package org.llmnpu.rtl.npu;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * NPU configurations as YAML or JSON files. Two forms are read, also mixed: flat, every {@link NpuParameter} by its
 * name ({@code rows: 8}, {@code dspLanes: 4}, the form of every file so far), and nested, a group per record of
 * {@link NpuConfig} ({@code engine: {kind: pim, rows: 8}}, {@code dsp: {lanes: 4}}; {@code clockGating} stays at the
 * top). Absent parameters keep the builder's values (the defaults for {@link #load}). An unknown key is an error
 * naming it and the allowed keys; a bad value is an error naming the parameter and its allowed values. A file may
 * also state {@code clockMhz} (see {@link #clockMhz}), which sets no NPU parameter.
 */
public final class NpuConfigFiles {
  /** The one key a configuration file may hold besides the NPU's parameters: the clock that turns cycles into time. */
  public static final String CLOCK_MHZ = "clockMhz";

  private NpuConfigFiles() {
  }

  /** The configuration of a {@code .json}, {@code .yaml} or {@code .yml} file over the defaults. */
  public static NpuConfig load(Path file) {
    NpuConfigBuilder b = NpuConfig.builder();
    apply(b, read(file), file.toString());
    try {
      return b.build();
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(file + ": " + e.getMessage(), e);
    }
  }

  /**
   * The object of a {@code .json}, {@code .yaml} or {@code .yml} file (JSON for {@code .json}, YAML otherwise).
   *
   * @throws IllegalArgumentException naming the file when it is missing, unreadable or not an object
   */
  public static JsonNode read(Path file) {
    String name = file.getFileName() == null ? "" : file.getFileName().toString().toLowerCase(Locale.ROOT);
    ObjectMapper mapper = name.endsWith(".json") ? new ObjectMapper() : new ObjectMapper(new YAMLFactory());
    if (!Files.isRegularFile(file)) {
      throw new IllegalArgumentException(file + ": no such file");
    }
    try {
      JsonNode tree = mapper.readTree(file.toFile());
      if (tree == null || tree.isMissingNode() || tree.isNull()) {
        return mapper.createObjectNode();
      }
      if (!tree.isObject()) {
        throw new IllegalArgumentException(file + ": an NPU configuration maps parameter names to values");
      }
      return tree;
    } catch (IOException e) {
      throw new IllegalArgumentException(file + ": not valid " + (name.endsWith(".json") ? "JSON" : "YAML") + ": "
          + e.getMessage(), e);
    }
  }

  /**
   * Sets on {@code b} every parameter {@code tree} gives, flat or nested.
   *
   * @param where what the tree came from, for errors
   * @throws IllegalArgumentException for an unknown key or a value that is not a scalar (a bad value fails at build)
   */
  public static void apply(NpuConfigBuilder b, JsonNode tree, String where) {
    for (Iterator<Map.Entry<String, JsonNode>> it = tree.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> field = it.next();
      String key = field.getKey();
      JsonNode value = field.getValue();
      NpuParameter.Group group = group(key);
      if (key.equals(CLOCK_MHZ)) {
        clockMhz(value, where);
      } else if (value.isObject() && group != null) {
        applyGroup(b, group, value, where);
      } else if (NpuParameter.keys().contains(key)) {
        b.set(NpuParameter.of(key), scalar(key, value, where));
      } else {
        throw new IllegalArgumentException(where + ": unknown NPU parameter '" + key + "'; allowed: "
            + String.join(", ", NpuParameter.keys()) + " (flat), or the groups memory, fetch, engine, dsp, ppm"
            + " (nested), and " + CLOCK_MHZ);
      }
    }
  }

  private static void applyGroup(NpuConfigBuilder b, NpuParameter.Group group, JsonNode fields, String where) {
    List<NpuParameter> params = NpuParameter.of(group);
    for (Iterator<Map.Entry<String, JsonNode>> it = fields.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> field = it.next();
      NpuParameter p = params.stream().filter(q -> q.nestedName().equals(field.getKey())).findFirst()
          .orElseThrow(() -> new IllegalArgumentException(where + ": unknown key '" + field.getKey() + "' in "
              + group.key() + "; allowed: " + String.join(", ", params.stream().map(NpuParameter::nestedName)
              .toList())));
      b.set(p, scalar(group.key() + "." + p.nestedName() + " (" + p.key() + ")", field.getValue(), where));
    }
  }

  /**
   * The clock a configuration file may state ({@code clockMhz}, as the shipped {@code edge-64} preset does): it only
   * turns cycles into seconds (estimates, the decoder's report), so it sets no NPU parameter; it must be a positive
   * number.
   *
   * @return the clock in MHz
   * @throws IllegalArgumentException naming the key and what is allowed
   */
  public static double clockMhz(JsonNode value, String where) {
    if (value == null || !value.isNumber() || !(value.asDouble() > 0) || Double.isInfinite(value.asDouble())) {
      throw new IllegalArgumentException(where + ": " + CLOCK_MHZ + " must be a positive number of MHz, got "
          + (value == null ? "nothing" : value.toString()));
    }
    return value.asDouble();
  }

  private static NpuParameter.Group group(String key) {
    for (NpuParameter.Group g : NpuParameter.Group.values()) {
      if (key.equals(g.key())) {
        return g;
      }
    }
    return null;
  }

  private static String scalar(String name, JsonNode value, String where) {
    if (!value.isValueNode() || value.isNull()) {
      throw new IllegalArgumentException(where + ": " + name + " must be a single value, got " + value);
    }
    return value.asText();
  }

  /**
   * Every parameter of {@code c} by name, in {@link NpuParameter} order: flat ({@code rows → 16}) or nested (a map
   * per group, {@code clockGating} at the top). Numbers and booleans are typed, so that YAML and JSON print them bare.
   */
  public static Map<String, Object> toMap(NpuConfig c, boolean nested) {
    Map<String, Object> out = new LinkedHashMap<>();
    for (NpuParameter p : NpuParameter.values()) {
      Object v = typed(p, p.valueIn(c));
      if (!nested || p.group().key() == null) {
        out.put(p.key(), v);
      } else {
        @SuppressWarnings("unchecked")
        Map<String, Object> g = (Map<String, Object>) out.computeIfAbsent(p.group().key(),
            k -> new LinkedHashMap<String, Object>());
        g.put(p.nestedName(), v);
      }
    }
    return out;
  }

  private static Object typed(NpuParameter p, String text) {
    return switch (p.domain().kind()) {
      case INT -> Long.parseLong(text);
      case BOOL -> Boolean.parseBoolean(text);
      case CHOICE -> text;
    };
  }

  /** {@code c} as YAML, flat or nested ({@link #toMap}); the same configuration gives the same bytes. */
  public static String yaml(NpuConfig c, boolean nested) {
    ObjectMapper yaml = new ObjectMapper(new YAMLFactory().disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER)
        .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES));
    try {
      return yaml.writeValueAsString(toMap(c, nested));
    } catch (IOException e) {
      throw new IllegalStateException("YAML of an NPU configuration: " + e.getMessage(), e);
    }
  }

  /** Writes {@code c} as flat YAML to {@code file} atomically (a temporary file moved over it). */
  public static void writeYaml(NpuConfig c, Path file) throws IOException {
    Path dir = file.toAbsolutePath().getParent();
    Path tmp = Files.createTempFile(dir, file.getFileName().toString(), ".tmp");
    try {
      Files.writeString(tmp, yaml(c, false));
      Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    } finally {
      Files.deleteIfExists(tmp);
    }
  }
}
