package org.llmnpu.flow.dse;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.llmnpu.reports.estimate.NpuEstimate;

/**
 * Evaluates one sweep point from its {@code point.json} (written by {@link DseRun}): the cycle model's estimate as
 * {@code npu estimate} computes it ({@link NpuEstimate}: sw-stack's {@code CycleEstimator}, the lowering's commands
 * through the RTL-validated cycle model) for TTFT and TPOT at the point's clock and, with an energy table, the energy
 * of one decode step; the area from the NPU's synthesis ({@link PointArea}) when area is an objective. An objective
 * that cannot be measured (energy without a table) is null with its reason as its source — never a guess.
 */
final class PointEvaluation {
  private PointEvaluation() {
  }

  /** The result's content (without the wall time) of the point described by {@code point} in {@code dir}. */
  static Map<String, Object> evaluate(JsonNode point, Path dir) throws IOException {
    JsonNode w = point.get("workload");
    Path table = point.path("energyTable").isTextual() ? Path.of(point.get("energyTable").asText()) : null;
    int node = point.get("nodeNm").asInt();
    NpuEstimate e = NpuEstimate.run(new NpuEstimate.Options(point.get("model").asText(), point.get("preset").asText(),
        dir.resolve(point.get("npuConfig").asText()), w.get("promptLen").asInt(), w.get("quant").asText(),
        w.get("fusion").asText(), w.has("bandwidthGbs") ? w.get("bandwidthGbs").asDouble() : null, table, node));
    List<String> wanted = new java.util.ArrayList<>();
    point.get("objectives").forEach(o -> wanted.add(o.asText()));
    Map<String, Object> objectives = new LinkedHashMap<>();
    Map<String, String> sources = new LinkedHashMap<>();
    Map<String, Object> details = new LinkedHashMap<>();
    String clock = String.format(Locale.ROOT, "%s MHz", fmt(e.target().clockMhz()));
    if (wanted.contains(Objective.AREA_MM2.key)) {
      PointArea area = PointArea.of(e.target().npu(), point.get("synthesisClockNs").asDouble(), node);
      objectives.put(Objective.AREA_MM2.key, area.areaMm2());
      sources.put(Objective.AREA_MM2.key, area.source(node));
      details.put("logicAreaUm2At180nm", area.logicAreaUm2At180());
      details.put("sramAreaUm2AtNode", area.sramAreaUm2());
      details.put("fmaxMhzAtNode", area.fmaxMhz());
      details.put("fmaxMhzAtNodeSource", "the synthesized NPU's critical path at 180 nm (OpenSTA), scaled to " + node
          + " nm (Stillmaker & Baas 2017); the estimate runs at " + clock);
    }
    if (wanted.contains(Objective.ENERGY_PER_TOKEN_J.key)) {
      objectives.put(Objective.ENERGY_PER_TOKEN_J.key, e.energyPerTokenJ());
      sources.put(Objective.ENERGY_PER_TOKEN_J.key, e.energy() == null
          ? "not measured: the sweep file names no energyTable (an energy.json of npu report energy)"
          : "the decode step's counters (cycle model) x the energy table " + table.getFileName() + " at " + node
              + " nm; idle charged as cycles x MAC_IDLE (a lower bound, as npu estimate says)");
    }
    String cycles;
    long prefill;
    long decode;
    if ("rtl".equals(point.path("evaluation").asText("cycle-model"))) {
      PointRtl rtl = PointRtl.run(point.get("model").asText(), e.target().npu(), w.get("promptLen").asInt(),
          w.get("quant").asText(), w.get("fusion").asText());
      cycles = "RTL co-simulation (Verilator, " + rtl.describe() + ") at " + clock;
      prefill = rtl.prefillCycles();
      decode = rtl.decodeCycles();
      details.put("cycleModelPrefillCycles", e.cycles().prefill().cycles());
      details.put("cycleModelDecodeCycles", e.cycles().decode().cycles());
    } else {
      cycles = "cycle model (npu estimate: sw-stack CycleEstimator, the lowering's commands through the "
          + "RTL-validated cycle model) at " + clock + ", fusion " + e.fusion();
      prefill = e.cycles().prefill().cycles();
      decode = e.cycles().decode().cycles();
    }
    if (wanted.contains(Objective.TPOT_S.key)) {
      objectives.put(Objective.TPOT_S.key, e.seconds(decode));
      sources.put(Objective.TPOT_S.key, cycles + ": " + decode + " cycles, decode at position "
          + e.cycles().promptLen());
    }
    if (wanted.contains(Objective.TTFT_S.key)) {
      objectives.put(Objective.TTFT_S.key, e.seconds(prefill));
      sources.put(Objective.TTFT_S.key, cycles + ": " + prefill + " cycles, "
          + e.cycles().promptLen() + "-token prompt");
    }
    details.put("prefillCycles", prefill);
    details.put("decodeCycles", decode);
    Map<String, Object> result = new LinkedHashMap<>();
    result.put("id", point.get("id").asText());
    result.put("swept", point.get("swept"));
    result.put("model", point.get("model").asText());
    result.put("configuration", point.get("configuration"));
    result.put("objectives", objectives);
    result.put("sources", sources);
    result.put("details", details);
    result.put("notes", e.notes());
    return result;
  }

  private static String fmt(double v) {
    return new java.math.BigDecimal(Double.toString(v)).stripTrailingZeros().toPlainString();
  }
}
