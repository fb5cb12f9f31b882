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
import org.llmnpu.isa.dsp.DspKernels;
import org.llmnpu.isa.dsp.DspLayout;
import org.llmnpu.isa.dsp.DspMath;
import org.llmnpu.isa.dsp.DspProgram;
import org.llmnpu.rtl.npu.NpuConfig;
import org.llmnpu.verilator.SimModes;

/**
 * Figures (not a test; {@code mvn -pl cosim -am test -Dbench -Dtest=DspChainBenchmark
 * -Dsurefire.failIfNoSpecifiedTests=false}): cycles of a GEMM → softmax and a GEMM → rmsnorm command
 * chain on the small NPU, RTL next to the cycle model, with the DSP's share.
 */
@ExtendWith(BenchRecord.class)
class DspChainBenchmark {
  @Test
  void softmaxAndRmsnormChains() {
    NpuConfig c = NpuConfig.small();
    MachineParams p = c.machine();
    try (NpuRtl rtl = NpuRtl.start(c, SimModes.local())) {
      System.out.printf("%-8s %5s %9s %9s %9s %9s %9s %9s%n", "kernel", "len", "rtl", "model", "dspCycles",
          "dspInstr", "gemmCyc", "fetchCyc");
      for (DspKernel k : new DspKernel[] {DspKernel.SOFTMAX, DspKernel.RMSNORM}) {
        for (int n : new int[] {16, 32}) {
          ProgramCosim.Outcome o = ProgramCosim.run(rtl, chain(p, k, 4, 32, n), 0);
          if (!o.passes()) {
            throw new AssertionError("not bit-exact or counters differ: " + o.counterMismatches().keySet());
          }
          System.out.printf("%-8s %5d %9d %9d %9d %9d %9d %9d%n", k.cliName(), 4 * n, o.rtlCycles(), o.modelCycles(),
              o.rtl().counters().get(Counter.DSP_CYCLES), o.rtl().counters().get(Counter.DSP_INSTRUCTIONS),
              o.rtl().counters().get(Counter.GEMM_CYCLES), o.rtl().counters().get(Counter.FETCH_CYCLES));
        }
      }
    }
  }

  /** dsptab; X (m×k) and W (k×n) loads; gemm; [γ load + dspin]; dspin INT32; dsprun; dspout FP16; store. */
  static byte[] chain(MachineParams p, DspKernel kernel, int m, int k, int n) {
    byte[] image = new byte[(int) p.extMemBytes()];
    new Random(7).nextBytes(image);
    System.arraycopy(IsaSimulator.dspTableImage(DspMath.DEFAULT), 0, image, 0x8000, Command.DSP_TABLE_BYTES);
    int len = m * n;
    int lanes = p.dsp().lanes();
    DspLayout layout = new DspLayout(kernel, len, lanes);
    DspProgram prog = DspKernels.compile(kernel, len, lanes, 1e-5f, DspMath.DEFAULT);
    DspChains.writeDspProgram(image, 0x9000, prog);
    for (int i = 0; i < len; i++) {
      int g = 0x3B00 + (i % 512);
      image[0x30000 + 2 * i] = (byte) g;
      image[0x30001 + 2 * i] = (byte) (g >>> 8);
    }
    long yStride = 4L * n;
    long y = (long) m * k + (long) k * n;
    long side = y + m * yStride;
    long out = side + 2L * len;
    Program.Builder b = Program.builder().dspTab(0x8000)
        .load(0x10000, k, 0, k, k, m).load(0x20000, n, (long) m * k, n, n, k)
        .gemm(m, k, n, 0, k, (long) m * k, n, y, yStride);
    if (kernel == DspKernel.RMSNORM) {
      b.load(0x30000, 2L * len, side, 2L * len, 2L * len, 1).dspIn(side, 2L * len, len, 1, layout.inputBase(1),
          Command.FMT_FP16, 0);
    }
    b.dspIn(y, yStride, n, m, layout.inputBase(0), Command.FMT_INT32, -10).dspRun(0x9000, prog.size())
        .dspOut(out, 2L * n, n, m, layout.outputBase(0), Command.FMT_FP16).store(0x40000, 2L * n, out, 2L * n, 2L * n, m)
        .halt();
    return RandomPrograms.place(image, b.build(), 0);
  }
}
