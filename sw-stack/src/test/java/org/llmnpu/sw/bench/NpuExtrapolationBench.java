package org.llmnpu.sw.bench;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.llmnpu.hdl.bench.BenchRecord;
import org.llmnpu.isa.Counter;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.sw.io.ModelCatalog;
import org.llmnpu.sw.lower.Fusion;
import org.llmnpu.sw.lower.LoweredModel;
import org.llmnpu.sw.lower.NpuDecoder;
import org.llmnpu.sw.lower.NpuEngine;
import org.llmnpu.sw.lower.NpuTargets;
import org.llmnpu.sw.lower.PhaseCost;
import org.llmnpu.sw.lower.PhaseCostModel;
import org.llmnpu.sw.lower.WeightFormats;
import org.llmnpu.sw.model.ModelConfig;
import org.llmnpu.sw.model.ModelWeights;

/**
 * Cycle model per phase of the lowered stories260K (golden counters), and the extrapolation of the
 * same command sequence ({@link PhaseCostModel}) to LLaMA-2-7B, LLaMA-3-8B and Qwen2.5-1.5B shapes on
 * a larger NPU. Run with {@code mvn -pl sw-stack -am test -Pbench -Dbench
 * -Dtest='org.llmnpu.sw.bench.NpuExtrapolationBench' -Dsurefire.failIfNoSpecifiedTests=false}.
 */
@ExtendWith(BenchRecord.class)
class NpuExtrapolationBench {
  /** 64×64 array, 8 MiB scratchpad, 64 B/cycle memory (64 GB/s at 1 GHz), latency 100, maxN 256, 64-lane DSP. */
  static MachineParams bigNpu() {
    return bigNpu(64);
  }

  static MachineParams bigNpu(int bytesPerCycle) {
    return MachineParams.builder().rows(64).lineBytes(64).spadBytes(8 << 20).spadBanks(16).extMemBytes(1L << 32)
        .mTile(64).accWidth(32).icAccumDepth(0).maxM(64).maxK(16384).maxN(256).memLatency(100)
        .memBytesPerCycle(bytesPerCycle).watchdogCycles(1 << 20)
        .dsp(new MachineParams.DspParams(64, 16384, 256, 12, 2, 1L << 32)).build();
  }

  @Test
  void stories260KPerPhase() throws Exception {
    long[][] cycles = new long[2][];
    int[] stages = {1, 4};
    for (int i = 0; i < stages.length; i++) {
      System.out.println("DSP execute stages " + stages[i] + ":");
      cycles[i] = stories260KPerPhase(NpuTargets.defaultNpu().withDsp(
          NpuTargets.defaultNpu().dsp().withExecuteStages(stages[i])));
    }
    System.out.printf("4 / 1 execute stages: prefill %,d / %,d = %.4f (DSP %,d / %,d = %.4f), decode %,d / %,d = %.4f "
        + "(DSP %,d / %,d = %.4f)%n", cycles[1][0], cycles[0][0], cycles[1][0] / (double) cycles[0][0], cycles[1][1],
        cycles[0][1], cycles[1][1] / (double) cycles[0][1], cycles[1][2], cycles[0][2],
        cycles[1][2] / (double) cycles[0][2], cycles[1][3], cycles[0][3], cycles[1][3] / (double) cycles[0][3]);
  }

  /**
   * stories260K int8 on the default NPU at {@code --fusion none} and {@code full}: a 16-token prefill and the decode
   * step at position 16 (golden counters = RTL cycles), with the DSP's busy cycles and its copies' elements.
   */
  @Test
  void stories260KFusionLevels() throws Exception {
    ModelWeights w = ModelCatalog.load("stories260K", 1);
    MachineParams npu = NpuTargets.defaultNpu();
    LoweredModel model = WeightFormats.lower(w, "int8", npu, 64, 16);
    int[] prompt = new int[16];
    prompt[0] = 1;
    for (int i = 1; i < 16; i++) {
      prompt[i] = 256 + 7 * i;
    }
    System.out.println("| fusion | phase | cycles | dsp busy | dsp instructions | dsp elements | array | gemm |");
    System.out.println("|---|---|---:|---:|---:|---:|---:|---:|");
    for (Fusion f : new Fusion[] {Fusion.NONE, Fusion.FULL}) {
      NpuDecoder d = new NpuDecoder(model, 16, NpuEngine.GOLDEN, f);
      NpuDecoder.Step pre = d.prefill(prompt, false);
      NpuDecoder.Step dec = d.decode(300);
      for (NpuDecoder.Step s : new NpuDecoder.Step[] {pre, dec}) {
        System.out.printf("| %s | %s (%d tok) | %,d | %,d | %,d | %,d | %,d | %,d |%n", f.name().toLowerCase(),
            s.phase(), s.tokens(), s.counter(Counter.CYCLES), s.counter(Counter.DSP_CYCLES),
            s.counter(Counter.DSP_INSTRUCTIONS), s.counter(Counter.DSP_ELEMENTS), s.counter(Counter.ARRAY_CYCLES),
            s.counter(Counter.GEMM_CYCLES));
      }
    }
  }

  /** Prints the table and returns {prefill cycles, prefill DSP cycles, decode cycles, decode DSP cycles}. */
  private static long[] stories260KPerPhase(MachineParams npu) throws Exception {
    ModelWeights w = ModelCatalog.load("stories260K", 1);
    LoweredModel model = new LoweredModel(w, npu, 64, 16);
    NpuDecoder d = new NpuDecoder(model, 16, NpuEngine.GOLDEN);
    int[] prompt = new int[16];
    prompt[0] = 1;
    for (int i = 1; i < 16; i++) {
      prompt[i] = 256 + 7 * i;
    }
    NpuDecoder.Step pre = d.prefill(prompt, false);
    NpuDecoder.Step dec = d.decode(300);
    double mhz = 99.5;
    System.out.println("| phase | cycles | fetch | dma | gemm | array | mem stall | dsp | commands | DRAM read B | DRAM write B | ms at 99.5 MHz |");
    System.out.println("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for (NpuDecoder.Step s : new NpuDecoder.Step[] {pre, dec}) {
      System.out.printf("| %s (%d tok) | %,d | %,d | %,d | %,d | %,d | %,d | %,d | %,d | %,d | %,d | %.3f |%n",
          s.phase(), s.tokens(), s.counter(Counter.CYCLES), s.counter(Counter.FETCH_CYCLES),
          s.counter(Counter.DMA_CYCLES), s.counter(Counter.GEMM_CYCLES), s.counter(Counter.ARRAY_CYCLES),
          s.counter(Counter.MEM_STALL_CYCLES), s.counter(Counter.DSP_CYCLES), s.counter(Counter.COMMANDS),
          s.counter(Counter.EXT_READ_BEATS) * 16, s.counter(Counter.EXT_WRITE_BEATS) * 16,
          s.counter(Counter.CYCLES) / mhz / 1000);
    }
    return new long[] {pre.counter(Counter.CYCLES), pre.counter(Counter.DSP_CYCLES), dec.counter(Counter.CYCLES),
        dec.counter(Counter.DSP_CYCLES)};
  }

  /** Real model shapes (no weights): LLaMA-2-7B, LLaMA-3-8B, Qwen2.5-1.5B. */
  static final ModelConfig[] MODELS = {
      new ModelConfig(4096, 11008, 32, 32, 32, 32000, 4096, 10000f, 1e-5f),
      new ModelConfig(4096, 14336, 32, 32, 8, 128256, 8192, 500000f, 1e-5f),
      new ModelConfig(1536, 8960, 28, 12, 2, 151936, 32768, 1000000f, 1e-6f)};
  static final String[] NAMES = {"LLaMA-2-7B", "LLaMA-3-8B", "Qwen2.5-1.5B"};

  /** int8 against s2_4 (2:4-sparse INT8 block weights, the array built for 2:4) on the big NPU at 64 B/cycle. */
  @Test
  void sparseRealModelShapes() {
    int prompt = 256;
    ModelConfig[] models = MODELS;
    String[] names = NAMES;
    System.out.println("| model | TTFT int8 / s2_4 | TPOT int8 / s2_4 | prefill array cycles int8 / s2_4 | "
        + "decode GEMM-unit cycles int8 / s2_4 | s2_4 prefill busy: GEMM unit / DMA / DSP | decode DRAM bytes int8 / s2_4 |");
    System.out.println("|---|---:|---:|---:|---:|---|---:|");
    for (int i = 0; i < models.length; i++) {
      PhaseCost[] pre = new PhaseCost[2];
      PhaseCost[] dec = new PhaseCost[2];
      for (int sparse = 0; sparse < 2; sparse++) {
        MachineParams npu = sparse == 0 ? bigNpu() : bigNpu().withUnits(0, false, org.llmnpu.isa.Command.S2_4);
        PhaseCostModel cost = new PhaseCostModel(models[i], npu, prompt + 1, 64, true, 8, 0, sparse);
        pre[sparse] = cost.step(prompt, 0, 1);
        dec[sparse] = cost.step(1, prompt, 1);
      }
      System.out.printf("| %s | %.2f / %.2f s (%.2fx) | %.1f / %.1f ms (%.2fx) | %,d / %,d | %,d / %,d | %.2f / %.2f / %.2f "
          + "| %.2f / %.2f GB |%n",
          names[i],
          pre[0].cycles() / 1e9, pre[1].cycles() / 1e9, pre[0].cycles() / (double) pre[1].cycles(),
          dec[0].cycles() / 1e6, dec[1].cycles() / 1e6, dec[0].cycles() / (double) dec[1].cycles(),
          pre[0].arrayCycles(), pre[1].arrayCycles(), dec[0].gemmCycles(), dec[1].gemmCycles(),
          pre[1].gemmCycles() / (double) pre[1].cycles(), pre[1].dmaCycles() / (double) pre[1].cycles(),
          pre[1].dspCycles() / (double) pre[1].cycles(), (dec[0].readBytes() + dec[0].writeBytes()) / 1e9,
          (dec[1].readBytes() + dec[1].writeBytes()) / 1e9);
    }
  }

  @Test
  void realModelShapes() {
    realModelShapes(64);
    realModelShapes(16);
  }

  private void realModelShapes(int bytesPerCycle) {
    MachineParams npu = bigNpu(bytesPerCycle);
    System.out.println("memory " + bytesPerCycle + " bytes/cycle (" + bytesPerCycle + " GB/s at 1 GHz):");
    double ghz = 1.0;
    int prompt = 256;
    ModelConfig[] models = MODELS;
    String[] names = NAMES;
    System.out.println("| model | TTFT (256-token prompt) | TPOT (at 256) | tokens/s | DRAM bytes/token (decode) | "
        + "effective bandwidth | decode cycles: gemm / dma / dsp busy |");
    System.out.println("|---|---:|---:|---:|---:|---:|---|");
    for (int q = 0; q < models.length * 2; q++) {
      int i = q / 2;
      int bits = q % 2 == 0 ? 8 : 4;
      long t0 = System.nanoTime();
      PhaseCostModel cost = new PhaseCostModel(models[i], npu, prompt + 1, 64, true, bits);
      PhaseCost pre = cost.step(prompt, 0, 1);
      PhaseCost dec = cost.step(1, prompt, 1);
      double ttft = pre.cycles() / (ghz * 1e9);
      double tpot = dec.cycles() / (ghz * 1e9);
      long bytes = dec.readBytes() + dec.writeBytes();
      System.out.printf("| %s | %.2f s | %.1f ms | %.1f | %.2f GB | %.1f GB/s | %.2f / %.2f / %.2f |   (%.1f s to model)%n",
          names[i] + " int" + bits, ttft, tpot * 1e3, 1 / tpot, bytes / 1e9, bytes / tpot / 1e9,
          dec.gemmCycles() / (double) dec.cycles(), dec.dmaCycles() / (double) dec.cycles(),
          dec.dspCycles() / (double) dec.cycles(), (System.nanoTime() - t0) / 1e9);
    }
  }
}
