package org.llmnpu.rtl.mac;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.llmnpu.rtl.mac.GemmEngineBitExactTest.filled;
import static org.llmnpu.rtl.mac.GemmEngineBitExactTest.random;

import java.util.Random;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.llmnpu.hdl.emit.Verilog;
import org.llmnpu.hdl.sim.Simulator;
import org.llmnpu.isa.EngineTiming;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.numerics.gemm.Sparsity;
import org.llmnpu.numerics.gemm.TiledGemm;
import org.llmnpu.numerics.gemm.TiledGemmConfig;
import org.llmnpu.rtl.npu.PimGemmBackend;
import org.llmnpu.verilator.Simulators;

/**
 * The PiM GEMM back-end (the NPU's second engine) through the systolic engine's own driver: bit
 * exact with {@code TiledGemm} (results, sticky overflow on narrow saturating accumulators, psum
 * write-backs and read-backs) on ragged shapes, and cycles equal to {@link EngineTiming}'s PiM
 * formula, for IC-accumulation depths all/1/2 and 1 or 3 input bits per cycle.
 */
class PimGemmBackendTest {

  @BeforeAll
  static void tools() {
    MacSim.requireTool("verilator");
  }

  @ParameterizedTest(name = "icAccumDepth {0}, accWidth {1}, {2} bits/cycle")
  @CsvSource({"0, 32, 1", "1, 16, 3", "2, 20, 1"})
  void resultsEqualTiledGemmAndCyclesTheFormula(int depth, int accWidth, int bitsPerCycle) {
    MacArrayConfig a = new MacArrayConfig(4, 4, accWidth, 4, depth, WeightSparsity.NONE);
    GemmEngineConfig c = new GemmEngineConfig(a, 16, 64, 12);
    Random rnd = new Random(40 + depth);
    try (Simulator s = Simulators.start(Verilog.emit(new PimGemmBackend(c, bitsPerCycle)), MacSim.options())) {
      s.reset(2);
      GemmEngineDriver d = new GemmEngineDriver(s, c);
      int[][] shapes = {{4, 16, 4}, {7, 13, 9}, {16, 64, 12}, {1, 5, 1}, {5, 8, 4}, {9, 20, 6}, {1, 64, 12}};
      for (int[] sh : shapes) {
        byte[][] x = random(rnd, sh[0], sh[1]);
        byte[][] w = random(rnd, sh[1], sh[2]);
        check(a, bitsPerCycle, x, w, d.runDense(x, w), "M,K,N = " + sh[0] + "," + sh[1] + "," + sh[2]);
      }
      // extremes: every K tile saturates a narrow accumulator; then the flag clears at the next start
      byte[][] x = filled(6, 64, (byte) -128);
      byte[][] w = filled(64, 5, (byte) -128);
      GemmEngineDriver.Result sat = d.runDense(x, w);
      check(a, bitsPerCycle, x, w, sat, "all -128");
      assertEquals(accWidth < 32, sat.overflow(), "saturation only below 32 bits");
      GemmEngineDriver.Result clean = d.runDense(filled(3, 4, (byte) 1), filled(4, 2, (byte) 1));
      assertFalse(clean.overflow(), "the flag is cleared by the next start");
      assertTrue(clean.y()[2][1] == 4);
    }
  }

  static void check(MacArrayConfig a, int bitsPerCycle, byte[][] x, byte[][] w, GemmEngineDriver.Result r,
                    String what) {
    int depth = a.icAccumDepth() == 0 ? TiledGemmConfig.ALL_K_TILES : a.icAccumDepth();
    TiledGemm.Result g = TiledGemm.run(new TiledGemmConfig(a.rows(), a.cols(), a.mTile(), a.accWidth(), depth,
        Sparsity.NONE), x, w);
    for (int i = 0; i < x.length; i++) {
      assertArrayEquals(g.y()[i], r.y()[i], what + ": row " + i);
    }
    assertEquals(g.overflow(), r.overflow(), what + ": overflow flag");
    assertEquals(g.psumWritebacks(), r.psumWritebacks(), what + ": psum write-backs");
    assertEquals(g.psumReadbacks(), r.psumReadbacks(), what + ": psum read-backs");
    MachineParams p = MachineParams.builder().rows(a.rows()).lineBytes(a.rows()).spadBytes(4096).spadBanks(1)
        .extMemBytes(1 << 20).mTile(a.mTile()).accWidth(a.accWidth()).icAccumDepth(a.icAccumDepth()).maxM(16).maxK(64)
        .maxN(12).memLatency(1).memBytesPerCycle(4).watchdogCycles(256).build();
    assertEquals(EngineTiming.pim(bitsPerCycle).engineCycles(p, x.length, w.length, w[0].length), r.cycles(),
        what + ": cycle formula");
  }
}
