package org.llmnpu.reports.estimate.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;
import org.llmnpu.hdl.bench.BenchRecord;
import org.llmnpu.isa.Counter;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.reports.estimate.EstimateTarget;
import org.llmnpu.reports.estimate.NpuEstimate;
import org.llmnpu.sw.estimate.CycleEstimate;
import org.llmnpu.sw.estimate.CycleEstimator;
import org.llmnpu.sw.estimate.ModelShapes;
import org.llmnpu.sw.lower.Fusion;
import org.llmnpu.sw.lower.PhaseCostModel;
import org.llmnpu.sw.lower.PrefillOrder;
import org.llmnpu.sw.lower.WeightFormats;
import org.llmnpu.sw.model.ModelConfig;

/**
 * How much the Vector DSP's size moves LLaMA-2-7B's prefill on {@code edge-64} (256-token prompt, fusion full, as
 * {@code ./npu estimate --model llama-2-7b --preset edge-64 --prompt-len 256 --quant Q} computes it, the prefill order
 * it picks included): the preset's machine with its DSP's lanes and program words replaced, the buffer's FP16 elements
 * kept (rows = elements / lanes), everything else the preset's. Lanes beyond the preset's 64 (128, 256) are a cost-model
 * what-if: the RTL's {@code dspLanes} allows 1..64 ({@code npu estimate -p dspLanes=128} is refused naming it); the
 * lowering and the cost model take any power of two ({@code sw-stack} {@code WideDspTest} at 128 lanes: the lowering's
 * cost model = golden on stories260K and a 7B-like shape, the walk the 7B estimate takes within 0.5 % there). At 128
 * lanes the 7B's attention keeps its per-head layout (since 2026-12-07: the query halves read flat, the K rows
 * head-major straight out of the DSP; before, a RoPE half of 64 no longer filling whole DSP rows sent the scores over
 * the whole kvDim); what still moves is in {@link #llama2SevenBLayerAt64And128Lanes}. The DSP's copies go at most a
 * scratchpad line a cycle whatever its lanes ({@code CycleFormulas}), so wider lanes shorten its runs only. For each DSP: TTFT, TPOT, prefill MAC utilization, the
 * order the estimate picked, the prefill's MACs and DSP busy cycles; then the s2_4/int8 TTFT ratio per DSP. The cycle
 * model alone (no RTL): it sizes the lever before the hardware is built; {@link WideDspCost} prices it (the
 * {@link #vectorDspCostPerLanes} method; in this class so that its estimates are the JVM's cached ones). Benchmark:
 * {@code mvn -q -o -pl reports -am test -Dbench -Dtest='DspSizeWhatIfBench' -Dsurefire.failIfNoSpecifiedTests=false}.
 */
@ExtendWith(BenchRecord.class)
@TestMethodOrder(MethodOrderer.MethodName.class)
class DspSizeWhatIfBench {
  private static final int PROMPT = 256;
  /**
   * {lanes, program words}: the preset's DSP (64, 512) first, the base of the "vs" column. 1,024 words (no faster than
   * 512 at 64 and 128 lanes, 2026-12-07) and 256 lanes (its JVM was killed for memory on the loaded machine, 06:21 UTC
   * 2026-12-07) were dropped.
   */
  static final int[][] SIZES = {{64, 512}, {32, 512}, {128, 512}};

  @Test
  void llama2SevenBPrefillPerDspSize() {
    Assumptions.assumeTrue(BenchRecord.enabled(), "benchmark: run with -Dbench");
    System.out.println("| quant | dsp lanes | program words | TTFT s | TPOT s | prefillMacUtilization | prefill order | "
        + "prefill MACs | prefill DSP busy cycles | TTFT vs 64 lanes, 512 words |");
    System.out.println("|---|---:|---:|---:|---:|---:|---|---:|---:|---:|");
    Map<String, Double> ttft = new LinkedHashMap<>();
    for (String quant : new String[] {"int8", "s2_4"}) {
      double base = 0;
      for (int[] size : SIZES) {
        Point pt = point(quant, size[0], size[1]);
        base = base == 0 ? pt.ttftS : base;
        ttft.put(quant + " " + size[0] + " " + size[1], pt.ttftS);
        System.out.printf(Locale.ROOT, "| %s | %d | %d | %.4f | %.4f | %.4f | %s | %,d | %,d | %.3fx |%n", quant,
            size[0], size[1], pt.ttftS, pt.tpotS, pt.estimate.prefillMacUtilization(), shortOrder(pt.estimate),
            pt.estimate.prefill().macs(), pt.estimate.prefill().counter(Counter.DSP_CYCLES), pt.ttftS / base);
      }
    }
    System.out.println();
    System.out.println("| dsp lanes | program words | int8 TTFT s | s2_4 TTFT s | s2_4 / int8 |");
    System.out.println("|---:|---:|---:|---:|---:|");
    for (int[] size : SIZES) {
      double i8 = ttft.get("int8 " + size[0] + " " + size[1]);
      double s24 = ttft.get("s2_4 " + size[0] + " " + size[1]);
      System.out.printf(Locale.ROOT, "| %d | %d | %.4f | %.4f | %.3fx |%n", size[0], size[1], i8, s24, s24 / i8);
    }
  }

  /**
   * Why 128 lanes are slower than 64 on the 7B: the woven layer's commands by operator / kind at 64 and 128 lanes (512
   * words), the rows that moved most; and, from the 64-lane layer's profile, what faster DSP runs could buy in the
   * 64-lane layout: each run's charged cycles (those by which it advanced the layer's end) halved, a rough figure for
   * runs twice as fast, and removed, the limit of any DSP-throughput lever (profile arithmetic, not the cycle model).
   */
  @Test
  void llama2SevenBLayerAt64And128Lanes() {
    Assumptions.assumeTrue(BenchRecord.enabled(), "benchmark: run with -Dbench");
    double[] bound = new double[6];
    for (String quant : new String[] {"int8", "s2_4"}) {
      Map<String, long[]> a = wovenProfile(machine(quant, 64, 512), quant).rows();
      Map<String, long[]> b = wovenProfile(machine(quant, 128, 512), quant).rows();
      java.util.TreeSet<String> keys = new java.util.TreeSet<>(a.keySet());
      keys.addAll(b.keySet());
      long[] zero = new long[4];
      System.out.printf(Locale.ROOT, "%n%s woven layer, 64 -> 128 lanes: the twelve rows that moved most%n"
          + "| operator / kind | commands 64 | cycles 64 | commands 128 | cycles 128 | change |%n"
          + "|---|---:|---:|---:|---:|---:|%n", quant);
      keys.stream().sorted((x, y) -> Long.compare(Math.abs(b.getOrDefault(y, zero)[0] - a.getOrDefault(y, zero)[0]),
          Math.abs(b.getOrDefault(x, zero)[0] - a.getOrDefault(x, zero)[0]))).limit(12).forEach(k -> {
            long[] u = a.getOrDefault(k, zero);
            long[] v = b.getOrDefault(k, zero);
            System.out.printf(Locale.ROOT, "| %s | %,d | %,d | %,d | %,d | %+,d |%n", k, u[1], u[0], v[1], v[0],
                v[0] - u[0]);
          });
      long t = 0;
      long runs = 0;
      for (Map.Entry<String, long[]> e : a.entrySet()) {
        t += e.getValue()[0];
        runs += e.getKey().endsWith("/ dsprun") ? e.getValue()[0] : 0;
      }
      int q = quant.equals("int8") ? 0 : 3;
      bound[q] = t;
      bound[q + 1] = t - runs / 2.0;
      bound[q + 2] = t - runs;
    }
    System.out.printf(Locale.ROOT, "%n64 lanes, 512 words, woven layer: int8 %,.0f cycles, s2_4 %,.0f: %.4fx%n"
        + "  every DSP run's charged cycles halved: int8 %,.0f, s2_4 %,.0f: %.4fx%n"
        + "  every DSP run's charged cycles removed: int8 %,.0f, s2_4 %,.0f: %.4fx%n", bound[0], bound[3],
        bound[3] / bound[0], bound[1], bound[4], bound[4] / bound[1], bound[2], bound[5], bound[5] / bound[2]);
  }

  /**
   * The DSP's cost per lanes next to the TTFT ratio each option buys ({@link WideDspCost}); after
   * {@link #llama2SevenBPrefillPerDspSize} (methods by name), whose estimates it reuses.
   */
  @Test
  void vectorDspCostPerLanes() {
    Assumptions.assumeTrue(BenchRecord.enabled(), "benchmark: run with -Dbench");
    WideDspCost.print();
  }

  /** One DSP size's estimate. */
  record Point(CycleEstimate estimate, double ttftS, double tpotS) {
  }

  /** The preset's machine for {@code quant} with the DSP's lanes and program words replaced, elements kept. */
  static MachineParams machine(String quant, int lanes, int words) {
    EstimateTarget t = NpuEstimate.withUnitsFor(EstimateTarget.load("edge-64", null), quant, new ArrayList<>());
    MachineParams preset = t.npu().machine();
    MachineParams.DspParams d = preset.dsp();
    return preset.withDsp(new MachineParams.DspParams(lanes, (int) (d.elements() / lanes), words, d.tableSegments(),
        d.tableDegree(), d.maxRunCycles(), d.executeStages(), d.permute()));
  }

  static Point point(String quant, int lanes, int words) {
    double hz = EstimateTarget.load("edge-64", null).clockMhz() * 1e6;
    MachineParams p = machine(quant, lanes, words);
    CycleEstimate e = CycleEstimator.estimate(ModelShapes.of("llama-2-7b"), p, quant, PROMPT, Fusion.FULL);
    return new Point(e, e.prefill().cycles() / hz, e.decode().cycles() / hz);
  }

  private static String shortOrder(CycleEstimate e) {
    String o = e.prefillOrder();
    return o.equals(CycleEstimator.TWO_BLOCKS_WOVEN_GATED) ? "woven"
        : o.equals(CycleEstimator.TWO_BLOCKS_STAGGERED)
        ? "staggered" : o.equals(CycleEstimator.TWO_BLOCKS_SKEWED) ? "skewed" : "one block";
  }

  /** A steady layer of LLaMA-2-7B's 256-token prefill in the woven order ({@link PhaseCostModel#layerProfile}). */
  static PhaseCostModel.LayerProfile wovenProfile(MachineParams p, String quant) {
    ModelConfig c = ModelShapes.of("llama-2-7b").config();
    return new PhaseCostModel(c, p, PROMPT + 1, Math.min(p.maxM(), PROMPT), true, WeightFormats.bits(quant),
        WeightFormats.group(quant), WeightFormats.sparsity(quant), WeightFormats.mx(quant), Fusion.FULL)
        .order(new PrefillOrder(true, true, false, true, true, PrefillOrder.Weave.GATED)).layerProfile(PROMPT, 0);
  }
}
