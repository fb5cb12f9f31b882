package org.llmnpu.soc;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A CPU or GPU as a roofline: per operator {@code time = max(ops / peak(format), bytes / bandwidth) + launch}, energy
 * {@code ops · pJ/op + bytes · pJ/byte + time · activeW}. Matrix products run in {@code matmulFormat} (llama.cpp's
 * Q4_0 x Q8_0 dot products are INT8; W4A16 GPU kernels FP16), every other operator in {@code vectorFormat}.
 *
 * @param name         {@code cpu} or {@code gpu}
 * @param matmulFormat the format of matrix products (a key of {@code peakGops})
 * @param vectorFormat the format of the other operators
 * @param peakGops     peak operations per second by format, G op/s (a multiply-accumulate is 2 ops)
 * @param bandwidthGBs the DRAM bandwidth this backend alone achieves, GB/s
 * @param launchUs     per-kernel launch/dispatch overhead, µs
 * @param pjPerOp      energy per operation, pJ
 * @param pjPerByte    energy per DRAM byte, pJ
 * @param activeW      power drawn while busy beyond the per-op and per-byte energy (clocks, leakage), W
 */
public record RooflineSpec(String name, String matmulFormat, String vectorFormat, Map<String, Cited> peakGops,
                           Cited bandwidthGBs, Cited launchUs, Cited pjPerOp, Cited pjPerByte, Cited activeW) {
  /** Formats a backend may name. */
  public static final List<String> FORMATS = List.of("fp32", "fp16", "int8");

  public RooflineSpec {
    peakGops = Map.copyOf(peakGops);
    for (String f : List.of(matmulFormat, vectorFormat)) {
      if (!peakGops.containsKey(f)) {
        throw new IllegalArgumentException(name + ": format " + f + " has no peakGops entry; it has "
            + peakGops.keySet());
      }
    }
  }

  /** Peak op/s of {@code format}. */
  public double opsPerS(String format) {
    return peakGops.get(format).value() * 1e9;
  }

  /** Every figure with its name, for listing and for the citation check. */
  public Map<String, Cited> figures() {
    Map<String, Cited> m = new LinkedHashMap<>();
    peakGops.forEach((f, c) -> m.put(name + ".peakGops." + f, c));
    m.put(name + ".bandwidthGBs", bandwidthGBs);
    m.put(name + ".launchUs", launchUs);
    m.put(name + ".pjPerOp", pjPerOp);
    m.put(name + ".pjPerByte", pjPerByte);
    m.put(name + ".activeW", activeW);
    return m;
  }

  /** The backend {@code name} of a preset file's node. */
  static RooflineSpec read(JsonNode node, String name) {
    if (node == null || !node.isObject()) {
      throw new IllegalArgumentException(name + ": missing");
    }
    Map<String, Cited> peak = new LinkedHashMap<>();
    JsonNode p = node.path("peakGops");
    for (String f : FORMATS) {
      if (p.has(f)) {
        peak.put(f, Cited.read(p, f, name + ".peakGops"));
      }
    }
    return new RooflineSpec(name, node.path("matmulFormat").asText(), node.path("vectorFormat").asText(), peak,
        Cited.read(node, "bandwidthGBs", name), Cited.read(node, "launchUs", name), Cited.read(node, "pjPerOp", name),
        Cited.read(node, "pjPerByte", name), Cited.read(node, "activeW", name));
  }
}
