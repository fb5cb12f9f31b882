package org.llmnpu.reports.estimate.bench;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.llmnpu.hdl.bench.BenchRecord;
import org.llmnpu.isa.CycleModel;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.reports.estimate.EstimateTarget;
import org.llmnpu.reports.estimate.NpuEstimate;
import org.llmnpu.sw.estimate.ModelShapes;
import org.llmnpu.sw.lower.Fusion;
import org.llmnpu.sw.lower.PhaseCostModel;
import org.llmnpu.sw.lower.WeightFormats;
import org.llmnpu.sw.model.ModelConfig;

/**
 * Token blocks of LLaMA-2-7B's 256-token prefill on {@code edge-64} ({@code ./npu estimate --model llama-2-7b --preset
 * edge-64 --prompt-len 256 --quant Q -p maxM=B -p mTile=T}): which block size ({@code maxM}) and accumulator depth
 * ({@code mTile}, the M rows of one engine pass) the prefill runs best at, and why a GEMM of {@code 2·mTile} rows
 * loses ({@link #streamedGemmPerBlockSize}; in the whole prefill two blocks in flight hide most of that since
 * 2026-12-07).
 * The engine's X copy goes K tile by K tile over all M rows (line {@code kt·M + m}), so a pass of K tile kt can start
 * only {@code (kt + 1)·M} cycles after the copy's start (two X lines a K tile with 2:4), while the first M chunk's
 * passes take {@code max(mTile, rows)} cycles each: at {@code M = 2·mTile} the first N tile's first chunk waits for X
 * at half its pass rate. Benchmark: {@code mvn -q -o -pl reports -am test -Dbench -Dtest=TokenBlockBench
 * -Dsurefire.failIfNoSpecifiedTests=false}.
 */
@ExtendWith(BenchRecord.class)
class TokenBlockBench {
  private static final int PROMPT = 256;
  private static final int[][] BLOCKS = {{64, 64}, {128, 64}, {128, 128}, {256, 256}};
  /** maxM, mTile, maxN of the estimate's settings: {@link #BLOCKS} at the preset's maxN 256, then maxN 1024. */
  private static final int[][] SETTINGS = {{64, 64, 256}, {128, 64, 256}, {128, 128, 256}, {256, 256, 256},
      {128, 128, 1024}};

  /**
   * TTFT and prefill MAC utilization per block size as the estimate computes them (two blocks in flight where the
   * prompt holds two, one block otherwise), and one layer's cycles in program order ({@link PhaseCostModel#profile}):
   * the weight GEMMs' rows (QKV, O, W1/W3, W2, P·V), the attention's scores, scale/SoftMax and P·V rows, the rest.
   */
  @Test
  void llama2SevenBPrefillPerBlockSize() {
    System.out.println("| quant | maxM | mTile | maxN | TTFT s | prefillMacUtilization | TTFT vs int8 at the same setting "
        + "| layer cycles (program order) | GEMM rows | MACs/GEMM cycles | attention scores + SoftMax + P·V | rest |");
    System.out.println("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    double[] int8 = new double[SETTINGS.length];
    double[] ttft = new double[SETTINGS.length];
    for (String quant : new String[] {"int8", "s2_4"}) {
      for (int i = 0; i < SETTINGS.length; i++) {
        Map<String, String> params = params(SETTINGS[i], SETTINGS[i][2]);
        NpuEstimate e = NpuEstimate.run(new NpuEstimate.Options("llama-2-7b", "edge-64", null, PROMPT, quant, "full",
            64.0, null, 7, params));
        if (quant.equals("int8")) {
          int8[i] = e.ttftS();
        }
        MachineParams p = machine(quant, params);
        ModelConfig c = ModelShapes.of("llama-2-7b").config();
        PhaseCostModel cost = new PhaseCostModel(c, p, PROMPT + 1, Math.min(p.maxM(), PROMPT), true,
            WeightFormats.bits(quant), WeightFormats.group(quant), WeightFormats.sparsity(quant),
            WeightFormats.mx(quant), Fusion.FULL);
        Map<String, long[]> ops = PrefillProfileBench.byOperator(cost.profile(PROMPT, 0, 1));
        long layer = 0;
        long gemms = 0;
        long attention = 0;
        for (Map.Entry<String, long[]> o : ops.entrySet()) {
          String name = o.getKey();
          long cycles = o.getValue()[0];
          if (name.equals("setup") || name.equals("lm head")) {
            continue;
          }
          layer += cycles;
          if (name.endsWith(" GEMM")) {
            gemms += cycles;
          }
          if (name.startsWith("attention scores") || name.startsWith("attention scale")
              || name.startsWith("attention P·V")) {
            attention += cycles;
          }
        }
        System.out.printf(Locale.ROOT, "| %s | %d | %d | %d | %.4f | %.4f | %.3fx | %,d | %,d | %.3f | %,d | %,d |%n",
            quant, SETTINGS[i][0], SETTINGS[i][1], SETTINGS[i][2], e.ttftS(), e.cycles().prefillMacUtilization(),
            e.ttftS() / int8[i], layer,
            gemms, PrefillProfileBench.ideal(c, p) / (double) gemms, attention, layer - gemms);
        ttft[i] = e.ttftS();
      }
      assertTrue(ttft[2] < ttft[0] && ttft[2] < ttft[1] && ttft[2] < ttft[3],
          quant + ": blocks of 128 with mTile 128 the fastest block at maxN 256");
    }
  }

  /**
   * One streamed weight GEMM of the block (K = 4096, as QKV's and W1/W3's slices) alone on the cycle model: the
   * back-end's cycles from the command's start to its last result drained, against its passes at the array's rate
   * ({@code M·K·N / (rows·cols)}, halved with 2:4), at the preset's {@code maxN} 256 and at 1024 (one X copy for four
   * times the N tiles). The X copy is {@code M·ceil(K/rows)} cycles; the drain {@code M·ceil(4N/line)}.
   */
  @Test
  void streamedGemmPerBlockSize() {
    System.out.println("| quant | M | mTile | N | back-end cycles | passes at the array's rate | ratio | X copy | drain |");
    System.out.println("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    int k = 4096;
    Map<String, Long> shorterMTile = new java.util.HashMap<>();
    for (String quant : new String[] {"int8", "s2_4"}) {
      for (int[] block : BLOCKS) {
        for (int n : new int[] {256, 1024}) {
          MachineParams p = machine(quant, params(block, n));
          boolean sparse = quant.equals("s2_4");
          long values = 2L * ((k + 3) / 4);
          long nmRows = sparse ? values + (values + 3) / 4 : 0;
          CycleModel model = new CycleModel(p);
          model.fetchAndDecode();
          model.dispatch(false, false);
          long start = model.now();
          model.streamedGemm(block[0], k, n, false, nmRows, 0, 0);
          long cycles = model.backEndIdleFrom() - start;
          long passes = (long) block[0] * k * n / ((long) p.rows() * p.rows()) / (sparse ? 2 : 1);
          String shape = quant + " " + block[0] + "x" + k + "x" + n;
          if (block[0] > block[1]) {
            shorterMTile.put(shape, cycles);
          } else if (shorterMTile.containsKey(shape)) {
            assertTrue(shorterMTile.get(shape) > cycles, shape + ": with mTile < M the first chunk waits for X");
          }
          System.out.printf(Locale.ROOT, "| %s | %d | %d | %d | %,d | %,d | %.3f | %,d | %,d |%n", quant, block[0],
              block[1], n, cycles, passes, passes / (double) cycles, (long) block[0] * (k / p.rows()),
              (long) block[0] * ((4L * n + p.lineBytes() - 1) / p.lineBytes()));
        }
      }
    }
  }

  private static Map<String, String> params(int[] block, int maxN) {
    return Map.of("maxM", Integer.toString(block[0]), "mTile", Integer.toString(block[1]), "maxN",
        Integer.toString(maxN));
  }

  private static MachineParams machine(String quant, Map<String, String> params) {
    return NpuEstimate.withUnitsFor(EstimateTarget.load("edge-64", null, params), quant, new ArrayList<>()).npu()
        .machine();
  }
}
