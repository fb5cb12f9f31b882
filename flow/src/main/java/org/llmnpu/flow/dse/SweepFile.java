package org.llmnpu.flow.dse;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.llmnpu.reports.estimate.EstimateTarget;
import org.llmnpu.reports.estimate.NpuEstimate;
import org.llmnpu.rtl.npu.NpuParameter;

/**
 * A design-space sweep as its YAML file states it: the base NPU (a preset of {@code npu estimate}, a configuration
 * file over it, fixed parameters over both), the model, the workload, the evaluation, the objectives and the swept
 * parameters with their values. Paths in the file are relative to the file's directory.
 *
 * <p>Every key is checked when the file is read; an unknown key or a bad value is an
 * {@link IllegalArgumentException} naming the key and what it allows. The values of a swept parameter are checked
 * when the points are built ({@link SweepPoints}), against the same rules as {@code -p name=value}.
 *
 * @param name        the sweep's name, shown in the report
 * @param preset      the base preset ({@link EstimateTarget#PRESETS})
 * @param config      a configuration file over the preset (NPU parameters and {@code clockMhz}), or null
 * @param baseParams  NPU parameters over the preset and the file, by {@link NpuParameter} name
 * @param model       a named model shape or a directory with a Hugging Face {@code config.json}
 * @param workload    the workload's fixed values ({@link Workload#KEYS})
 * @param evaluation  how a point's cycles are obtained: {@code cycle-model} (the RTL-validated cycle model of
 *                    {@code npu estimate}) or {@code rtl} (the decoder co-simulated on the point's NPU in Verilator,
 *                    {@link PointRtl}); {@code model} is read as {@code cycle-model}
 * @param synthesisClockNs the clock period the area's synthesis is constrained to, ns
 * @param nodeNm      the process node of area and energy: 180 (measured), 45 or 7 (scaled)
 * @param energyTable an {@code energy.json} of {@code npu report energy}, or null (energy then not measured)
 * @param objectives  what is minimized ({@link Objective})
 * @param parameters  the swept parameters in file order, each with its values in file order
 */
public record SweepFile(String name, String preset, Path config, Map<String, String> baseParams, String model,
                        Workload workload, String evaluation, double synthesisClockNs, int nodeNm, Path energyTable,
                        List<Objective> objectives, Map<String, List<String>> parameters) {
  /** The top-level keys of a sweep file. */
  public static final List<String> KEYS = List.of("name", "base", "model", "workload", "evaluation", "synthesis",
      "node", "energyTable", "objectives", "parameters");
  /** The evaluations a sweep may ask for. */
  public static final List<String> EVALUATIONS = List.of("cycle-model", "model", "rtl");

  public SweepFile {
    baseParams = Map.copyOf(baseParams);
    objectives = List.copyOf(objectives);
    Map<String, List<String>> copy = new LinkedHashMap<>();
    parameters.forEach((k, v) -> copy.put(k, List.copyOf(v)));
    parameters = java.util.Collections.unmodifiableMap(copy);
  }

  /**
   * Reads and checks a sweep file.
   *
   * @throws IllegalArgumentException naming the file, the key and the allowed values
   */
  public static SweepFile read(Path file) {
    if (!Files.isRegularFile(file)) {
      throw new IllegalArgumentException("sweep file " + file + " does not exist");
    }
    JsonNode root;
    try {
      root = new ObjectMapper(new YAMLFactory()).readTree(file.toFile());
    } catch (IOException e) {
      throw new IllegalArgumentException("sweep file " + file + " is not valid YAML: " + e.getMessage(), e);
    }
    try {
      return parse(root, file.toAbsolutePath().getParent());
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(file + ": " + e.getMessage(), e);
    }
  }

  /** Parses a sweep file's tree; relative paths are resolved against {@code dir}. */
  static SweepFile parse(JsonNode root, Path dir) {
    if (root == null || !root.isObject()) {
      throw new IllegalArgumentException("a sweep file maps keys to values; keys: " + String.join(", ", KEYS));
    }
    checkKeys(root, "", KEYS);
    String name = text(root, "name", "sweep");
    JsonNode base = root.path("base");
    if (!base.isMissingNode()) {
      requireObject(base, "base");
      checkKeys(base, "base.", List.of("preset", "config", "params"));
    }
    String preset = text(base, "preset", "edge-64");
    if (!EstimateTarget.PRESETS.contains(preset)) {
      throw new IllegalArgumentException("base.preset: '" + preset + "' is not allowed; allowed: "
          + String.join(", ", EstimateTarget.PRESETS));
    }
    String config = text(base, "config", null);
    Map<String, String> baseParams = new LinkedHashMap<>();
    if (base.has("params")) {
      requireObject(base.get("params"), "base.params");
      base.get("params").fields().forEachRemaining(e -> {
        SweepPoints.npuParameter("base.params." + e.getKey(), e.getKey());
        baseParams.put(e.getKey(), scalar(e.getValue(), "base.params." + e.getKey()));
      });
    }
    if (!root.has("model")) {
      throw new IllegalArgumentException("model: missing; give a named shape (llama-2-7b, llama-3-8b, qwen2.5-1.5b, "
          + "stories260K) or a directory with a config.json");
    }
    String evaluation = text(root, "evaluation", "cycle-model");
    if (!EVALUATIONS.contains(evaluation)) {
      throw new IllegalArgumentException("evaluation: '" + evaluation + "' is not allowed; allowed: "
          + String.join(", ", EVALUATIONS));
    }
    if (evaluation.equals("model")) {
      evaluation = "cycle-model";
    }
    if (evaluation.equals("rtl")) {
      String m = scalar(root.get("model"), "model");
      if (!m.equals("stories260K") && !Files.isDirectory(dir.resolve(m))) {
        throw new IllegalArgumentException("evaluation: 'rtl' runs the model's weights on each point's RTL, so model "
            + "must be stories260K (shipped) or a Hugging Face directory with weights, got '" + m + "' (a shape "
            + "only: use evaluation: cycle-model)");
      }
    }
    JsonNode synthesis = root.path("synthesis");
    if (!synthesis.isMissingNode()) {
      requireObject(synthesis, "synthesis");
      checkKeys(synthesis, "synthesis.", List.of("clockNs"));
    }
    double clockNs = number(synthesis, "synthesis.clockNs", "clockNs", 5.0);
    int node = (int) number(root, "node", "node", 7);
    if (!NpuEstimate.NODES.contains(node)) {
      throw new IllegalArgumentException("node: " + node + " is not allowed; allowed: 180, 45, 7 (nm)");
    }
    String table = text(root, "energyTable", null);
    Path energyTable = table == null ? null : dir.resolve(table).normalize();
    if (energyTable != null && !Files.isRegularFile(energyTable)) {
      throw new IllegalArgumentException("energyTable: " + energyTable + " does not exist (an energy.json written by "
          + "npu report energy -o DIR)");
    }
    Path configPath = config == null ? null : dir.resolve(config).normalize();
    return new SweepFile(name, preset, configPath, baseParams, scalar(root.get("model"), "model"),
        Workload.parse(root.path("workload")), evaluation, clockNs, node, energyTable,
        Objective.parseList(root.path("objectives")), parameters(root.path("parameters")));
  }

  private static Map<String, List<String>> parameters(JsonNode node) {
    if (node.isMissingNode() || !node.isObject() || node.isEmpty()) {
      throw new IllegalArgumentException("parameters: give at least one swept parameter, e.g. 'rows: [4, 8]' or "
          + "'memBytesPerCycle: {from: 4, to: 16, step: 4}'; names: the NPU parameters (" 
          + String.join(", ", NpuParameter.keys()) + ") and " + String.join(", ", Workload.KEYS));
    }
    Map<String, List<String>> out = new LinkedHashMap<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      String key = "parameters." + e.getKey();
      if (!Workload.KEYS.contains(e.getKey())) {
        SweepPoints.npuParameter(key, e.getKey());
      }
      out.put(e.getKey(), ValueRange.values(e.getValue(), key));
    }
    return out;
  }

  static void checkKeys(JsonNode node, String prefix, List<String> allowed) {
    node.fieldNames().forEachRemaining(k -> {
      if (!allowed.contains(k)) {
        throw new IllegalArgumentException(prefix + k + ": unknown key; allowed: " + String.join(", ", allowed));
      }
    });
  }

  static void requireObject(JsonNode node, String key) {
    if (!node.isObject()) {
      throw new IllegalArgumentException(key + ": must be a mapping of keys to values, got '" + node + "'");
    }
  }

  static String scalar(JsonNode v, String key) {
    if (v == null || !v.isValueNode() || v.isNull()) {
      throw new IllegalArgumentException(key + ": must be a single value (a number, a word or true/false), got '"
          + v + "'");
    }
    return v.asText();
  }

  static String text(JsonNode parent, String field, String dflt) {
    JsonNode v = parent.path(field);
    return v.isMissingNode() ? dflt : scalar(v, field);
  }

  static double number(JsonNode parent, String key, String field, double dflt) {
    JsonNode v = parent.path(field);
    if (v.isMissingNode()) {
      return dflt;
    }
    if (!v.isNumber() || !(v.doubleValue() > 0) || Double.isInfinite(v.doubleValue())) {
      throw new IllegalArgumentException(key + ": must be a positive number, got '" + v + "'");
    }
    return v.doubleValue();
  }

  /** The names of the swept parameters, in file order. */
  public List<String> sweptNames() {
    return new ArrayList<>(parameters.keySet());
  }
}
