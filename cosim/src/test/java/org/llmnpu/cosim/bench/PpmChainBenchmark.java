package org.llmnpu.cosim.bench;

import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.llmnpu.cosim.DspChains;
import org.llmnpu.cosim.NpuRtl;
import org.llmnpu.cosim.ProgramCosim;
import org.llmnpu.cosim.RandomPrograms;
import org.llmnpu.hdl.bench.BenchRecord;
import org.llmnpu.isa.Command;
import org.llmnpu.isa.Counter;
import org.llmnpu.isa.IsaSimulator;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.isa.Program;
import org.llmnpu.isa.dsp.DspKernel;
import org.llmnpu.isa.dsp.DspLayout;
import org.llmnpu.isa.dsp.DspProgram;
import org.llmnpu.numerics.ppu.PpuFitter;
import org.llmnpu.numerics.ppu.PpuFormat;
import org.llmnpu.numerics.ppu.PpuFunction;
import org.llmnpu.numerics.requant.QuantizedMultiplier;
import org.llmnpu.rtl.npu.NpuConfig;
import org.llmnpu.verilator.SimModes;

/**
 * Figures (not a test; {@code mvn -pl cosim -am test -Dbench -Dtest=PpmChainBenchmark
 * -Dsurefire.failIfNoSpecifiedTests=false}): a GEMM whose INT32 results become INT8 codes, on the PPM
 * ({@code ppmcfg} + {@code ppm} per N tile of {@code rows} channels, with the PPU's GELU table) and on
 * the Vector DSP ({@code dspin} INT32 → a quantizing DSP program → {@code dspout} INT8), RTL cycles
 * next to the model, on the small NPU.
 */
@ExtendWith(BenchRecord.class)
class PpmChainBenchmark {
  @Test
  void gemmToPpmVersusGemmToDsp() {
    NpuConfig c = NpuConfig.small();
    MachineParams p = c.machine();
    try (NpuRtl rtl = NpuRtl.start(c, SimModes.local())) {
      System.out.printf("%-5s %4s %4s %4s %9s %9s %9s %9s%n", "path", "M", "K", "N", "rtl", "model", "unitBusy",
          "gemmCyc");
      for (int[] s : new int[][] {{8, 32, 8}, {16, 32, 16}, {32, 32, 16}}) {
        for (boolean ppm : new boolean[] {true, false}) {
          ProgramCosim.Outcome o = ProgramCosim.run(rtl, chain(p, ppm, s[0], s[1], s[2]), 0);
          if (!o.passes()) {
            throw new AssertionError("not bit-exact or counters differ: " + o.counterMismatches().keySet());
          }
          System.out.printf("%-5s %4d %4d %4d %9d %9d %9d %9d%n", ppm ? "ppm" : "dsp", s[0], s[1], s[2], o.rtlCycles(),
              o.modelCycles(), o.rtl().counters().get(ppm ? Counter.PPM_CYCLES : Counter.DSP_CYCLES),
              o.rtl().counters().get(Counter.GEMM_CYCLES));
        }
      }
    }
  }

  /**
   * The same chains on the default NPU (16×16, 16-lane PPM and DSP, 16-byte lines), by the golden cycle
   * model alone (the co-simulation tests hold the RTL to it exactly; the default NPU's Verilator build is long).
   */
  @Test
  void defaultNpuByTheCycleModel() {
    MachineParams p = NpuConfig.defaults().machine();
    System.out.printf("%-5s %4s %4s %4s %9s %9s %9s%n", "path", "M", "K", "N", "model", "unitBusy", "gemmCyc");
    for (int[] s : new int[][] {{16, 64, 16}, {64, 128, 64}, {64, 512, 128}}) {
      for (boolean ppm : new boolean[] {true, false}) {
        IsaSimulator.Result r = IsaSimulator.run(p, chain(p, ppm, s[0], s[1], s[2]), 0);
        if (r.error() != org.llmnpu.isa.ErrorCause.NONE) {
          throw new AssertionError(r.error() + " at command " + r.errorCommand());
        }
        System.out.printf("%-5s %4d %4d %4d %9d %9d %9d%n", ppm ? "ppm" : "dsp", s[0], s[1], s[2],
            r.counter(Counter.CYCLES), r.counter(ppm ? Counter.PPM_CYCLES : Counter.DSP_CYCLES),
            r.counter(Counter.GEMM_CYCLES));
      }
    }
  }

  /** X, W loads; gemm; then the PPM or the DSP turns Y into INT8 codes; store. Tables loaded first. */
  static byte[] chain(MachineParams p, boolean ppm, int m, int k, int n) {
    byte[] image = new byte[(int) p.extMemBytes()];
    Random r = new Random(11);
    r.nextBytes(image);
    int rows = p.rows();
    byte[] table = IsaSimulator.ppuTableImage(PpuFitter.fit(PpuFunction.GELU, PpuFormat.DEFAULT));
    System.arraycopy(table, 0, image, 0x8000, table.length);
    for (int j = 0; j < n; j++) {
      byte[] rec = IsaSimulator.ppmRecord(r.nextInt(2000) - 1000, QuantizedMultiplier.fromScale(0.002), 0);
      System.arraycopy(rec, 0, image, 0x8400 + 16 * j, rec.length);
    }
    long y = (long) m * k + (long) k * n;
    long yStride = 4L * n;
    long q = y + m * yStride;
    Program.Builder b = Program.builder();
    if (ppm) {
      b.ppuTab(0x8000);
    }
    b.load(0x10000, k, 0, k, k, m).load(0x20000, n, (long) m * k, n, n, k)
        .gemm(m, k, n, 0, k, (long) m * k, n, y, yStride);
    if (ppm) {
      for (int t = 0; t * rows < n; t++) {
        int lanes = Math.min(rows, n - t * rows);
        b.ppmCfg(0x8400 + 16L * t * rows, lanes).ppm(y + 4L * t * rows, yStride, q + (long) t * rows, n, m, lanes);
      }
    } else {
      int len = m * n;
      DspLayout layout = new DspLayout(DspKernel.EXP, len, p.dsp().lanes());
      DspProgram quantize = DspChains.quantize(len, layout.inputRows(), layout.inputBase(0), 0x3C00);
      DspChains.writeDspProgram(image, 0x9000, quantize);
      b.dspIn(y, yStride, n, m, layout.inputBase(0), Command.FMT_INT32, -9).dspRun(0x9000, quantize.size())
          .dspOut(q, n, n, m, layout.inputBase(0), Command.FMT_INT8);
    }
    b.store(0x40000, n, q, n, n, m).halt();
    return RandomPrograms.place(image, b.build(), 0);
  }
}
