package org.llmnpu.cosim.blocks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.llmnpu.cosim.WaveCapture;
import org.llmnpu.rtl.mac.MacArrayConfig;
import org.llmnpu.rtl.mac.WeightSparsity;

/**
 * One GEMM on the engine RTL against the golden tiled GEMM: N:M-pruned weights, a write-back per K tile, the PPM
 * after the array; bit-exact outputs, psum traffic and cycles equal to the cycle formula.
 */
class GemmCosimRunTest {

  @Test
  void sparse24GemmWithThePpmIsBitExactWithFormulaCyclesAndAWritebackPerKTile() {
    MacArrayConfig a = new MacArrayConfig(4, 4, 32, 16, 1, WeightSparsity.parse("s2_4"));
    GemmCosimRun.Outcome o = GemmCosimRun.run(a, 9, 20, 6, 3, GemmPpmCosim.parse("relu", 4), WaveCapture.none());
    assertTrue(o.bitExact(), o.toString());
    assertEquals(o.modelCycles(), o.rtlCycles(), o.toString());
    assertEquals(2 * 9 * 6, o.psumWritebacks(), "kTiles 3 at depth 1: 2 write-backs per output");
    assertEquals(o.modelWritebacks(), o.psumWritebacks());
    assertEquals(o.psumWritebacks(), o.psumReadbacks());
    assertTrue(o.ppmBitExact(), "PPM codes equal numerics Ppm.process");
    assertEquals(o.modelTotalCycles(), o.totalCycles(), o.toString());
  }

  @Test
  void sparse48GemmIsBitExactAndCycleExact() {
    MacArrayConfig a = new MacArrayConfig(4, 4, 32, 16, MacArrayConfig.ALL_K_TILES, WeightSparsity.parse("s4_8"));
    GemmCosimRun.Outcome o = GemmCosimRun.run(a, 9, 20, 6, 5, null, WaveCapture.none());
    assertTrue(o.bitExact(), o.toString());
    assertEquals(o.modelCycles(), o.rtlCycles(), o.toString());
    assertEquals(null, o.ppmBitExact(), "no PPM asked");
  }

  @Test
  void engineCapacitiesAreTheNextPowersOfTwo() {
    assertEquals(1, GemmCosimRun.ceilPow2(1));
    assertEquals(2, GemmCosimRun.ceilPow2(2));
    assertEquals(16, GemmCosimRun.ceilPow2(9));
    assertEquals(64, GemmCosimRun.ceilPow2(64));
  }

  @Test
  void unknownActivationNamesTheAllowedOnes() {
    IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
        () -> GemmPpmCosim.parse("swish", 4));
    assertTrue(e.getMessage().contains("--activation") && e.getMessage().contains(GemmPpmCosim.ALLOWED), e.getMessage());
  }
}
