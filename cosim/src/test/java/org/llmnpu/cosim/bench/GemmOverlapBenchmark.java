package org.llmnpu.cosim.bench;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.llmnpu.hdl.bench.BenchRecord;
import org.llmnpu.isa.Command;
import org.llmnpu.isa.Counter;
import org.llmnpu.isa.ErrorCause;
import org.llmnpu.isa.IsaSimulator;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.isa.Program;
import org.llmnpu.reports.estimate.EstimateTarget;
import org.llmnpu.sw.estimate.CycleEstimate;
import org.llmnpu.sw.estimate.CycleEstimator;
import org.llmnpu.sw.estimate.ModelShapes;
import org.llmnpu.sw.lower.Fusion;

/**
 * Figures (not a test; {@code mvn -pl cosim -am test -Dbench -Dtest=GemmOverlapBenchmark
 * -Dsurefire.failIfNoSpecifiedTests=false}): where a back-to-back streamed GEMM loses array time on the edge-64
 * NPU ({@code npu estimate}'s preset), from the golden ISA simulator's cycle model (RTL-equal, {@code
 * StreamedGemmCosimTest}), and how much of the LLaMA-2-7B prefill's MAC utilization the preset's {@code maxM}
 * allows.
 *
 * <p>{@link #backToBackStreamedGemms}: a GEMM's steady-state cycles in a chain of identical independent streamed
 * GEMMs ({@code gemm wStream=1}, Y in two alternating buffers, nothing stored) = cycles of 4 GEMMs − cycles of 3,
 * next to its parts: the controller's X copy ({@code M·ceil(K/rows)}), its W beats ({@code ceil(N/line)·K},
 * one every {@code beatInterval}), the array's passes ({@code nTiles·ceil(M/mTile)·kTiles} of
 * {@code max(Mc, rows)} cycles), the pipeline fill and drain ({@code rows + cols}), the result drain
 * ({@code M·ceil(4N/line)}) and the memory latency; {@code bound} = {@code max(W beats, passes)}, the cycles a GEMM
 * takes when the next GEMM's X copy and W stream go while this one's array runs and drains (the overlap across
 * GEMMs of issue 31 item 2, NOT built: see npu-isa README "Load–compute–store overlap across GEMMs"). Since the W
 * beats go beside the X copy, a memory-bound GEMM's steady state is about {@code wBeats + lat + fill + drain}; a
 * compute-bound one ({@code maxM = 256}) still adds its X copy, which the engine waits for.
 *
 * <p>{@link #llamaPrefillAgainstMaxM}: {@code npu estimate --model llama-2-7b --preset edge-64 --prompt-len 256
 * --quant int8 --fusion full} with {@code maxM} 64, the preset's 128 and 256 (a parameter study, the preset is
 * unchanged; its other fields as shipped): prefill MAC utilization, the GEMM unit's and the array's busy cycles against the MACs'
 * own cycles ({@code MACs / rows²}), and the Vector DSP's share. {@link #storiesPrefillAndDecodeCycles}: stories260K's
 * 16-token prefill and decode step at 16 on the default NPU, unfused and fused.
 */
@ExtendWith(BenchRecord.class)
class GemmOverlapBenchmark {
  private static final long W_EXT = 1L << 20;
  private static final long MEM = 64L << 20;

  /**
   * The edge-64 machine as shipped ({@code npu estimate}'s loader) with GEMMs of up to {@code maxM} rows and {@code mem}
   * bytes of memory (0: the preset's).
   */
  private static MachineParams edge64(int maxM, long mem) {
    MachineParams p = EstimateTarget.load("edge-64", null).npu().machine();
    return p.with(b -> b.extMemBytes(mem > 0 ? mem : p.extMemBytes()).maxM(maxM));
  }

  /** {@code count} identical streamed GEMMs, X at scratchpad 0, Y alternating between two buffers after it. */
  private static long chainCycles(MachineParams p, int m, int k, int n, int count) {
    long yBase = ((long) m * k + p.lineBytes() - 1) / p.lineBytes() * p.lineBytes();
    long yTile = (long) m * 4 * n;
    Program.Builder b = Program.builder();
    for (int i = 0; i < count; i++) {
      b.add(new Command.Gemm(m, k, n, 0, k, W_EXT, n, yBase + (i % 2) * yTile, 4L * n, Command.DENSE, 0, 1, 0, 0));
    }
    Program prog = b.halt().build();
    byte[] image = new byte[(int) p.extMemBytes()];
    System.arraycopy(prog.bytes(), 0, image, 0, prog.bytes().length);
    IsaSimulator.Result r = IsaSimulator.run(p, image, 0);
    if (r.error() != ErrorCause.NONE) {
      throw new IllegalStateException(m + "x" + k + "x" + n + ": " + r.error());
    }
    return r.counter(Counter.CYCLES);
  }

  private static void gemm(MachineParams p, String what, int m, int k, int n) {
    int rows = p.rows();
    int line = p.lineBytes();
    long kTiles = (k + rows - 1L) / rows;
    long nTiles = (n + rows - 1L) / rows;
    long xCopy = m * kTiles;
    long wBeats = (n + line - 1L) / line * k * p.beatInterval();
    long passes = 0;
    for (int m0 = 0; m0 < m; m0 += p.mTile()) {
      passes += nTiles * kTiles * Math.max(Math.min(p.mTile(), m - m0), rows);
    }
    long drain = m * ((4L * n + line - 1) / line);
    long steady = chainCycles(p, m, k, n, 4) - chainCycles(p, m, k, n, 3);
    long bound = Math.max(wBeats, passes);
    double macCycles = (double) m * k * n / ((double) rows * rows);
    System.out.printf("%-14s %-13s %9d %7d %8d %8d %5d %6d %4d %8d %6.1f %6.1f %5.2f%n", what, m + "x" + k + "x" + n,
        steady, xCopy, wBeats, passes, 2 * rows, drain, p.memLatency(), bound, 100 * macCycles / steady,
        100 * macCycles / bound, (double) steady / bound);
  }

  @Test
  void backToBackStreamedGemms() {
    MachineParams p = edge64(64, MEM);
    System.out.printf("%-14s %-13s %9s %7s %8s %8s %5s %6s %4s %8s %6s %6s %5s%n", "GEMM", "MxKxN", "steady",
        "xCopy", "wBeats", "passes", "fill", "drain", "lat", "bound", "array%", "bound%", "x");
    gemm(p, "llama qkv/w1", 64, 4096, 256);
    gemm(p, "llama w2", 64, 11008, 256);
    gemm(p, "512^3 tile", 64, 512, 256);
    gemm(p, "gemv tile", 1, 4096, 256);
    MachineParams p256 = edge64(256, MEM);
    gemm(p256, "qkv maxM=256", 256, 4096, 256);
    gemm(p256, "512^3 maxM=256", 256, 512, 256);
  }

  /** stories260K on the default NPU (the estimate's cost model equals the golden counters, RTL-equal). */
  @Test
  void storiesPrefillAndDecodeCycles() {
    MachineParams p = org.llmnpu.rtl.npu.NpuConfig.defaults().machine();
    for (Fusion f : new Fusion[] {Fusion.NONE, Fusion.FULL}) {
      CycleEstimate e = CycleEstimator.estimate(ModelShapes.of("stories260K"), p, "int8", 16, f);
      System.out.printf("stories260K default NPU fusion %-4s: 16-token prefill %,d cycles (array %,d), decode step at"
          + " 16 %,d cycles (array %,d)%n", f.name().toLowerCase(), e.prefill().cycles(),
          e.prefill().counter(Counter.ARRAY_CYCLES), e.decode().cycles(), e.decode().counter(Counter.ARRAY_CYCLES));
    }
  }

  @Test
  void llamaPrefillAgainstMaxM() {
    System.out.printf("%-6s %10s %14s %8s %8s %8s %8s%n", "maxM", "prefillMU", "cycles", "gemm/mac", "array/mac",
        "gemm%", "dsp%");
    for (int maxM : new int[] {64, 128, 256}) {
      MachineParams p = edge64(maxM, 0);
      CycleEstimate e = CycleEstimator.estimate(ModelShapes.of("llama-2-7b"), p, "int8", 256, Fusion.FULL);
      double macCycles = e.prefill().macs() / (double) e.macsPerCycle();
      long cycles = e.prefill().cycles();
      System.out.printf("%-6d %10.4f %,14d %8.2f %8.2f %8.1f %8.1f%n", maxM, e.prefillMacUtilization(), cycles,
          e.prefill().counter(Counter.GEMM_CYCLES) / macCycles, e.prefill().counter(Counter.ARRAY_CYCLES) / macCycles,
          100.0 * e.prefill().counter(Counter.GEMM_CYCLES) / cycles,
          100.0 * e.prefill().counter(Counter.DSP_CYCLES) / cycles);
    }
  }
}
