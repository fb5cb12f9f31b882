package org.llmnpu.cosim.bench;

import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.llmnpu.cosim.GemmCosimFixture;
import org.llmnpu.cosim.NpuRtl;
import org.llmnpu.cosim.ProgramCosim;
import org.llmnpu.hdl.bench.BenchRecord;
import org.llmnpu.isa.Command;
import org.llmnpu.isa.Counter;
import org.llmnpu.isa.CycleFormulas;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.rtl.npu.NpuConfig;
import org.llmnpu.verilator.SimModes;

/**
 * Figures (not a test; {@code mvn -B -o test -pl cosim -am -Dbench -Dtest=SparseGemmBenchmark
 * -Dsurefire.failIfNoSpecifiedTests=false}): a lone 16×512×128 GEMM (load X, load W, gemm, store Y) on the
 * default NPU (16×16 array) built for 2:4 and for 4:8, run in Verilator as an N:M GEMM and as a dense GEMM
 * on the same array, every run bit-exact with the golden ISA simulator and RTL cycles = model cycles. Columns:
 * the GEMM's array cycles (start to done), its controller + array + drain cycles ({@code gemmCycles}), the
 * program's total, and the speedups over the dense GEMM (which takes the dense array's cycles exactly).
 */
@ExtendWith(BenchRecord.class)
class SparseGemmBenchmark {
  @Test
  void gemm16x512x128() {
    int m = 16;
    int k = 512;
    int n = 128;
    System.out.printf("%-6s %-6s %10s %10s %10s %10s%n", "array", "gemm", "arrayCyc", "gemmCyc", "total", "W rows");
    for (String sparsity : new String[] {"2:4", "4:8"}) {
      NpuConfig c = NpuConfig.defaults().withSparsity(sparsity);
      MachineParams p = c.machine();
      long[][] figures = new long[2][];
      try (NpuRtl rtl = NpuRtl.start(c, SimModes.local())) {
        int i = 0;
        for (int mode : new int[] {Command.DENSE, c.sparsityCode()}) {
          GemmCosimFixture.Case t = GemmCosimFixture.gemm(p, new Random(1), m, k, n, mode);
          ProgramCosim.Outcome o = GemmCosimFixture.assertAgrees(rtl, t, "benchmark");
          figures[i] = new long[] {o.rtl().counters().get(Counter.ARRAY_CYCLES),
              o.rtl().counters().get(Counter.GEMM_CYCLES), o.rtlCycles(), t.gemm().wRows()};
          System.out.printf("%-6s %-6s %10d %10d %10d %10d%n", sparsity, mode == Command.DENSE ? "dense" : sparsity,
              figures[i][0], figures[i][1], figures[i][2], figures[i][3]);
          i++;
        }
      }
      System.out.printf("%-6s speedup: array %.2fx, GEMM unit %.2fx, program %.2fx (dense-array model: array %d)%n",
          sparsity, (double) figures[0][0] / figures[1][0], (double) figures[0][1] / figures[1][1],
          (double) figures[0][2] / figures[1][2],
          CycleFormulas.engineCycles(16, 16, p.mTile(), m, k, n) + 1);
    }
  }
}
