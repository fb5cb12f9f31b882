package org.llmnpu.pim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.llmnpu.hdl.emit.Verilog;
import org.llmnpu.hdl.gen.BlockGenerator;
import org.llmnpu.hdl.gen.BlockRegistry;
import org.llmnpu.hdl.gen.ParamException;
import org.llmnpu.hdl.gen.Params;

class PimMacroConfigTest {
  private static final PimMacroConfig.Alignment NONE = PimMacroConfig.Alignment.NONE;

  @Test
  void cyclesPerMvmIsTheSerialWidthOverTheBitsPerCycle() {
    assertEquals(8, PimMacroConfig.int8(64, 64).cyclesPerMvm());
    assertEquals(3, new PimMacroConfig(4, 4, PimPrecision.INT8, NONE, 8, 3, 0, 32, 16, 0).cyclesPerMvm());
    PimMacroConfig pre = new PimMacroConfig(4, 4, PimPrecision.FP8_E4M3, PimMacroConfig.Alignment.PRE, 8, 1, 8, 32, 16, 0);
    assertEquals(9, pre.cyclesPerMvm(), "aligned magnitude 8 bits + sign");
    assertEquals(5, pre.tileWriteCycles(), "rows + the exponent word");
    PimMacroConfig post = new PimMacroConfig(4, 4, PimPrecision.FP8_E5M2, PimMacroConfig.Alignment.POST, 8, 1, 0, 32, 16, 0);
    assertEquals(3, post.cyclesPerMvm(), "E5M2 significand: 1 + 2 bits");
  }

  @Test
  void gemmFormulaCountsWritesStreamingAndTheLastPeripheryCycle() {
    PimMacroConfig c = new PimMacroConfig(4, 3, PimPrecision.INT8, NONE, 8, 2, 0, 32, 2, 1);
    // N=7 → 3 N tiles, K=9 → 3 row groups, M=5 → 3 chunks of ≤ 2; C = 4, W = 4; S = 2 (the default stages)
    assertEquals(3L * 3 * (3 * 4 + 5 * 4) + 1 + 2, PimCycleModel.gemmCycles(c, 5, 9, 7));
    assertEquals(3L * 3 * (3 * 4 + 5 * 4) + 1, PimCycleModel.gemmCycles(c.withStages(0), 5, 9, 7),
        "unpipelined: the last periphery cycle is the one after the last chunk");
    assertEquals(2L * 5 * 7, PimCycleModel.psumWritebacks(c, 5, 9, 7), "depth 1: every group but the last writes back");
  }

  @Test
  void doubleBufferedFormulaOverlapsEachTilesWritesWithThePreviousTilesVectors() {
    PimMacroConfig c = new PimMacroConfig(4, 3, PimPrecision.INT8, NONE, 8, 2, 0, 32, 2, 1, 2);
    // 27 tiles: mc = 2, 2, 1 per (N tile, row group) cycle of chunks; C = 4, W = 4; S = 2
    long expected = 4 + 1 + 2;
    int tiles = 0;
    for (int nt = 0; nt < 3; nt++) {
      for (int mc : new int[] {2, 2, 1}) {
        for (int kt = 0; kt < 3; kt++) {
          tiles++;
          expected += tiles < 27 ? Math.max(4, mc * 4) : mc * 4;
        }
      }
    }
    assertEquals(expected, PimCycleModel.gemmCycles(c, 5, 9, 7));
    assertTrue(PimCycleModel.gemmCycles(c, 5, 9, 7) < PimCycleModel.gemmCycles(c.withWeightBanks(1), 5, 9, 7));
    assertEquals(expected - 1, PimCycleModel.gemmCycles(c.withStages(1), 5, 9, 7));
  }

  @Test
  void stagesCutTheTreeEvenlyAndAreChecked() {
    assertEquals(java.util.List.of(), PimColumn.treeCuts(64, 1), "one stage: the row-input register only");
    assertEquals(java.util.List.of(4), PimColumn.treeCuts(64, 2), "6 levels + the shift-add: cut after level 4");
    assertEquals(java.util.List.of(3, 5), PimColumn.treeCuts(64, 3));
    assertEquals(java.util.List.of(0, 0), PimColumn.treeCuts(1, 3), "a one-row column has only its leaves to cut");
    assertEquals(java.util.List.of(1, 1), PimColumn.treeCuts(2, 3));
    BlockGenerator g = BlockRegistry.find("pim-macro");
    ParamException e = assertThrows(ParamException.class, () -> g.build(Params.resolve(g, Map.of("stages", "4"))));
    assertTrue(e.getMessage().contains("stages") && e.getMessage().contains("0..3"), e.getMessage());
  }

  @Test
  void impossibleCombinationsNameTheParameter() {
    BlockGenerator g = BlockRegistry.find("pim-macro");
    ParamException e = assertThrows(ParamException.class, () -> g.build(Params.resolve(g,
        Map.of("precision", "fp8_e4m3", "alignBits", "3"))));
    assertTrue(e.getMessage().contains("alignBits") && e.getMessage().contains("4..16"), e.getMessage());
    ParamException k = assertThrows(ParamException.class, () -> g.build(Params.resolve(g,
        Map.of("precision", "int8", "inBits", "4", "bitsPerCycle", "5"))));
    assertTrue(k.getMessage().contains("bitsPerCycle"), k.getMessage());
    ParamException mx = assertThrows(ParamException.class, () -> g.build(Params.resolve(g,
        Map.of("precision", "fp8_e4m3", "input", "mxint8", "rows", "48"))));
    assertTrue(mx.getMessage().contains("rows") && mx.getMessage().contains("32"), mx.getMessage());
    ParamException bf = assertThrows(ParamException.class, () -> g.build(Params.resolve(g,
        Map.of("precision", "fp8_e4m3", "input", "bf16", "alignBits", "6"))));
    assertTrue(bf.getMessage().contains("alignBits") && bf.getMessage().contains("8..16"), bf.getMessage());
  }

  @Test
  void bf16AndMxInputsWidenTheExponentNotTheCycles() {
    PimMacroConfig bf = new PimMacroConfig(64, 4, PimPrecision.FP8_E4M3, PimMacroConfig.Alignment.POST, 8, 1, 0, 32,
        16, 0, 1, PimInput.BF16);
    assertEquals(8, bf.cyclesPerMvm(), "post: the 8-bit BF16 significand, bit-serial");
    assertEquals(254 + 15 - 2, bf.shiftMax());
    // exact accumulator: 4 + 8 significand bits, 6 for 64 rows, the shift range, 8 headroom, sign
    assertEquals(4 + 8 + 6 + 267 + 9, bf.accWidth());
    PimMacroConfig mx = bf.withInput(PimInput.MXFP8);
    assertEquals(4, mx.cyclesPerMvm(), "MXFP8 streams the element significand only");
    assertEquals(2, mx.scaleBlocks(), "64 rows = two MX blocks");
    assertEquals(9, mx.inputExponentBits(), "E4M3 exponent + E8M0 scale");
  }

  @Test
  void emissionIsDeterministic() {
    BlockGenerator g = BlockRegistry.find("pim-macro");
    Params p = Params.resolve(g, Map.of("rows", "5", "cols", "3", "precision", "fp8_e4m3", "alignment", "post"));
    assertEquals(Verilog.emit(g.build(p)).files(), Verilog.emit(g.build(p)).files());
  }
}
