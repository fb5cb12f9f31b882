package org.llmnpu.rtl.mac;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Random;
import java.util.stream.Collectors;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.llmnpu.hdl.ClockGating;
import org.llmnpu.hdl.emit.Verilog;
import org.llmnpu.hdl.emit.VerilogDesign;
import org.llmnpu.hdl.sim.Simulator;
import org.llmnpu.verilator.Simulators;

/**
 * The GEMM engine with its MAC array on clock gates ({@link GemmEngine#of} with ON or CHECKED: the array's gate, the
 * PEs' wavefront and row-shadow gates): bit exact with the golden tiled GEMM and cycle exact with the formula, on
 * GEMVs (one beat a pass: the wavefront gates open one cycle in {@code rows}), ragged and back-to-back GEMMs, dense
 * and 2:4; CHECKED stops the simulation if a row's shadow changes while its gate is shut.
 */
class GemmArrayGatingTest {

  @ParameterizedTest(name = "{0} {1}x{2} depth {3} {4}")
  @CsvSource({"none, 4, 4, 0, ON", "none, 4, 3, 1, ON", "none, 4, 4, 0, CHECKED", "s2_4, 4, 4, 0, ON",
      "s2_4, 4, 3, 1, CHECKED"})
  void gatedArrayIsBitAndCycleExact(String sparsity, int rows, int cols, int depth, String mode) {
    WeightSparsity sp = WeightSparsity.parse(sparsity);
    MacArrayConfig a = new MacArrayConfig(rows, cols, 32, 4, depth, sp);
    GemmEngineConfig c = new GemmEngineConfig(a, 16, 64, 12);
    GemmEngine engine = GemmEngine.of(c, 1, false, false, ClockGating.valueOf(mode));
    VerilogDesign design = Verilog.emit(engine);
    List<String> gates = design.gatedBanks().stream().map(VerilogDesign.GatedBankInfo::path)
        .collect(Collectors.toList());
    assertTrue(gates.contains(GemmEngine.ARRAY_GATE), gates.toString());
    for (int d = 0; d <= rows + cols - 2; d++) {
      assertTrue(gates.contains("array." + MacArray.WAVEFRONT_GATE + d), gates.toString());
    }
    for (int r = 0; r < rows; r++) {
      assertTrue(gates.contains("array." + MacArray.SHADOW_GATE + r), gates.toString());
    }
    assertEquals(1 + (rows + cols - 1) + rows, gates.size(), gates.toString());
    Random rnd = new Random(31 + rows * cols + depth);
    try (Simulator s = Simulators.start(design, MacSim.options())) {
      s.reset(2);
      GemmEngineDriver d = new GemmEngineDriver(s, c);
      // GEMVs first (one beat a pass), then ragged and full shapes back to back, then a GEMV again
      int[][] shapes = {{1, 16, 8}, {1, 13, 5}, {5, 13, 7}, {16, 64, 12}, {3, 17, 12}, {1, 1, 1}, {9, 30, 5},
          {1, 64, 12}};
      for (int[] sh : shapes) {
        byte[][] x = GemmEngineBitExactTest.random(rnd, sh[0], sh[1]);
        String what = mode + " " + sparsity + " M,K,N = " + sh[0] + "," + sh[1] + "," + sh[2];
        if (sp.sparse()) {
          byte[][] w = GemmSparseTest.pruned(rnd, sh[1], sh[2], sp);
          GemmEngineBitExactTest.assertMatchesGolden(a, x, w, GemmSparseTest.runCompressed(d, x, w), what);
        } else {
          byte[][] w = GemmEngineBitExactTest.random(rnd, sh[1], sh[2]);
          GemmEngineBitExactTest.assertMatchesGolden(a, x, w, d.runDense(x, w), what);
        }
      }
    }
  }
}
