package org.llmnpu.rtl.mac;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.llmnpu.rtl.mac.GemmEngineBitExactTest.assertMatchesGolden;
import static org.llmnpu.rtl.mac.GemmEngineBitExactTest.golden;
import static org.llmnpu.rtl.mac.GemmEngineBitExactTest.random;

import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.llmnpu.hdl.emit.Verilog;
import org.llmnpu.hdl.sim.Simulator;
import org.llmnpu.numerics.gemm.TiledGemm;
import org.llmnpu.numerics.ppu.Ppm;
import org.llmnpu.numerics.ppu.PpuFitter;
import org.llmnpu.numerics.ppu.PpuFormat;
import org.llmnpu.numerics.ppu.PpuFunction;
import org.llmnpu.numerics.ppu.PpuTable;
import org.llmnpu.numerics.requant.Activation;
import org.llmnpu.numerics.requant.OutputFormat;
import org.llmnpu.numerics.requant.RequantParams;
import org.llmnpu.rtl.ppm.PpmConfig;
import org.llmnpu.verilator.Simulators;

/**
 * {@code Y = PPM(X·W + b)} on the GEMM engine with the PPM: INT32 results bit exact with TiledGemm,
 * INT8 codes bit exact with {@code numerics.ppu.Ppm.process}, total cycles equal to
 * {@link GemmCycleModel#ppmCycles}.
 */
class GemmPpmEngineTest {

  @ParameterizedTest
  @EnumSource(value = PpmConfig.Activation.class, names = {"NONE", "RELU6", "PPU"})
  void requantizedGemmIsBitExactWithTheGoldenPpm(PpmConfig.Activation activation) {
    MacArrayConfig a = new MacArrayConfig(4, 4, 32, 4, 2, WeightSparsity.NONE);
    GemmEngineConfig c = new GemmEngineConfig(a, 16, 32, 12);
    PpmConfig p = PpmConfig.of(4, 8, activation);
    PpuTable table = activation == PpmConfig.Activation.PPU ? PpuFitter.fit(PpuFunction.GELU, PpuFormat.DEFAULT) : null;
    Activation requantActivation = activation == PpmConfig.Activation.RELU6 ? Activation.RELU6 : Activation.NONE;
    Random rnd = new Random(40 + activation.ordinal());
    try (Simulator s = Simulators.start(Verilog.emit(new GemmPpmEngine(c, p)), MacSim.options())) {
      s.reset(2);
      GemmEngineDriver gemm = new GemmEngineDriver(s, c);
      GemmPpmDriver ppm = new GemmPpmDriver(s, c, p);
      if (table != null) {
        ppm.loadTable(table.boundaries(), table.coefficients(), table.fracBits());
      }
      int[][] shapes = {{16, 32, 12}, {5, 9, 7}, {1, 3, 1}, {13, 20, 4}};
      for (int[] sh : shapes) {
        int m = sh[0];
        int k = sh[1];
        int n = sh[2];
        int[] bias = new int[n];
        RequantParams[] params = new RequantParams[n];
        int[] mult = new int[n];
        int[] shift = new int[n];
        int[] zp = new int[n];
        int[] six = new int[n];
        for (int j = 0; j < n; j++) {
          bias[j] = rnd.nextInt(1 << 16) - (1 << 15);
          params[j] = RequantParams.of(1.0, 100 + rnd.nextInt(4000), rnd.nextInt(41) - 20, OutputFormat.INT8,
              requantActivation);
          mult[j] = params[j].multiplier().multiplier();
          shift[j] = params[j].multiplier().shift();
          zp[j] = params[j].outputZeroPoint();
          six[j] = params[j].clampMax();
        }
        ppm.loadChannels(bias, mult, shift, zp, six);
        byte[][] x = random(rnd, m, k);
        byte[][] w = random(rnd, k, n);
        GemmEngineDriver.Result r = gemm.runDense(x, w);
        String what = activation + " M,K,N = " + m + "," + k + "," + n;
        TiledGemm.Result g = TiledGemm.run(golden(a), x, w);
        for (int i = 0; i < m; i++) {
          assertArrayEquals(g.y()[i], r.y()[i], what + ": INT32 row " + i);
        }
        assertEquals(g.psumWritebacks(), r.psumWritebacks(), what);
        assertEquals(GemmCycleModel.cycles(a, m, k, n), s.peekLong("gemmCycles"), what + ": GEMM cycles");
        assertEquals(GemmCycleModel.ppmCycles(a, m, k, n, p.latency()), r.cycles(), what + ": total cycles");
        int[][] expected = Ppm.process(g.y(), bias, params, table);
        int[][] codes = ppm.readCodes(m, n);
        for (int i = 0; i < m; i++) {
          assertArrayEquals(expected[i], codes[i], what + ": INT8 row " + i);
        }
      }
    }
  }
}
