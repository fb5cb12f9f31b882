package org.llmnpu.flow.dse;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.llmnpu.sw.estimate.CycleEstimator;
import org.llmnpu.sw.lower.Fusion;

/**
 * The workload of a sweep point, as {@code npu estimate} takes it: the prompt length (the decode step is at this
 * position), the block weights' format, the lowering's fusion and, optionally, an external-memory bandwidth replacing
 * the NPU's. Each may be fixed in the file's {@code workload} section or swept under {@code parameters}.
 *
 * @param promptLen    prompt tokens, at least 1
 * @param quant        {@link CycleEstimator#QUANTS}
 * @param fusion       {@link Fusion#NAMES}
 * @param bandwidthGbs GB/s replacing the NPU's bytes per cycle at its clock, or null for the NPU's own
 */
public record Workload(int promptLen, String quant, String fusion, Double bandwidthGbs) {
  /** The workload's keys, as the sweep file names them. */
  public static final List<String> KEYS = List.of("promptLen", "quant", "fusion", "bandwidthGbs");

  public Workload {
    if (promptLen < 1) {
      throw new IllegalArgumentException("promptLen: must be at least 1 token, got " + promptLen);
    }
    if (!CycleEstimator.QUANTS.contains(quant)) {
      throw new IllegalArgumentException("quant: '" + quant + "' is not allowed; allowed: "
          + String.join(", ", CycleEstimator.QUANTS));
    }
    if (!Fusion.NAMES.contains(fusion)) {
      throw new IllegalArgumentException("fusion: '" + fusion + "' is not allowed; allowed: "
          + String.join(", ", Fusion.NAMES));
    }
    if (bandwidthGbs != null && !(bandwidthGbs > 0 && !bandwidthGbs.isInfinite())) {
      throw new IllegalArgumentException("bandwidthGbs: must be a positive number of GB/s, got " + bandwidthGbs);
    }
  }

  /** The defaults of {@code npu estimate}: 256 tokens, int8, fusion full, the NPU's bandwidth. */
  public static Workload defaults() {
    return new Workload(256, "int8", "full", null);
  }

  static Workload parse(JsonNode node) {
    Workload w = defaults();
    if (node.isMissingNode()) {
      return w;
    }
    SweepFile.requireObject(node, "workload");
    SweepFile.checkKeys(node, "workload.", KEYS);
    for (String key : KEYS) {
      if (node.has(key)) {
        w = w.with(key, SweepFile.scalar(node.get(key), "workload." + key), "workload." + key);
      }
    }
    return w;
  }

  /**
   * This workload with {@code key} set to {@code value}.
   *
   * @param where the key as the file wrote it, for the error message
   */
  public Workload with(String key, String value, String where) {
    try {
      return switch (key) {
        case "promptLen" -> new Workload(Integer.parseInt(value), quant, fusion, bandwidthGbs);
        case "quant" -> new Workload(promptLen, value, fusion, bandwidthGbs);
        case "fusion" -> new Workload(promptLen, quant, value, bandwidthGbs);
        case "bandwidthGbs" -> new Workload(promptLen, quant, fusion, Double.parseDouble(value));
        default -> throw new IllegalArgumentException("unknown workload key; allowed: " + String.join(", ", KEYS));
      };
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(where + ": '" + value + "' is not a number");
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(where + ": " + e.getMessage().replaceFirst("^[A-Za-z]+: ", ""), e);
    }
  }

  /** The workload by key, in {@link #KEYS} order ({@code bandwidthGbs} only when set). */
  public Map<String, Object> asMap() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("promptLen", promptLen);
    m.put("quant", quant);
    m.put("fusion", fusion);
    if (bandwidthGbs != null) {
      m.put("bandwidthGbs", bandwidthGbs);
    }
    return m;
  }
}
