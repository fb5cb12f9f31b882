package org.llmnpu.sw.lower;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.BitSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.llmnpu.isa.Command;
import org.llmnpu.isa.Counter;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.sw.model.ModelConfig;
import org.llmnpu.sw.model.ModelWeights;
import org.llmnpu.sw.model.SyntheticWeights;

/**
 * The QKV post tile by tile in the lowering ({@link TiledQkvPost}, Wqkv ordered per tile by {@link QkvTiles}) on NPUs
 * whose maxN splits the QKV GEMM into several tiles, golden ISA simulator: the same logits as the per-token post with
 * static q/k/v scales (bit for bit: the same DSP operations on the same operands), and the cost model (the lowering's
 * command stream) equal to the golden counters on every counter.
 */
class TiledQkvPostTest {
  private static final int[] PROMPT = FusedLoweringTest.PROMPT;

  private static ModelWeights stories() {
    return StaticQkvLoweringTest.stories();
  }

  /** {@code m} with GEMMs of at most {@code maxN} columns. */
  static MachineParams withMaxN(MachineParams m, int maxN) {
    return m.with(b -> b.maxN(maxN));
  }

  @Test
  void theOrderIsAPermutationOfWholeHeadsPerTile() {
    // stories260K: dim 64, 8 heads, 4 KV heads, headDim 8; GQA 128/4/2 heads, headDim 32
    for (ModelConfig c : new ModelConfig[] {stories().config(), new ModelConfig(128, 172, 2, 4, 2, 64, 64)}) {
      for (int tile : new int[] {32, 64, 128}) {
        assertNull(QkvTiles.whyNot(c, tile, 16), c + " tile " + tile);
        QkvTiles t = QkvTiles.of(c, tile, 16);
        int qkvN = c.dim() + 2 * c.kvDim();
        BitSet seen = new BitSet();
        for (int col = 0; col < qkvN; col++) {
          seen.set(t.defaultColumn(col));
        }
        assertEquals(qkvN, seen.cardinality(), "a permutation");
        int half = c.headDim() / 2;
        int nq = c.heads() * half;
        for (int j = 0; j < t.count(); j++) {
          int cols = 0;
          for (QkvTiles.Segment s : t.segments(j)) {
            assertEquals(cols, s.offset());
            cols += s.heads() * c.headDim();
            if (s.part() == QkvTiles.Q) {
              // the segment's first column is its first head's first even, its odds start a half of the heads later
              assertEquals(s.head() * half, t.defaultColumn(j * tile + s.offset()));
              assertEquals(nq + s.head() * half, t.defaultColumn(j * tile + s.offset() + s.heads() * half));
            }
          }
          assertEquals(Math.min(tile, qkvN - j * tile), cols, "tile " + j + " is whole heads");
        }
      }
    }
  }

  @Test
  void tilesThatCannotHoldWholeHeadsOnWholeRowsAreRefusedWithTheReason() {
    ModelConfig stories = stories().config();
    assertTrue(QkvTiles.whyNot(stories, 16, 16).contains("DSP rows"), QkvTiles.whyNot(stories, 16, 16));
    assertTrue(QkvTiles.whyNot(stories, 20, 4).contains("headDim 8"), QkvTiles.whyNot(stories, 20, 4));
    assertTrue(QkvTiles.whyNot(new ModelConfig(128, 172, 2, 4, 2, 64, 64), 48, 16).contains("whole heads"));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> QkvTiles.of(stories, 16, 16));
    assertTrue(e.getMessage().startsWith("no per-tile QKV column order"));
    // the model keeps the default order (the per-token post) and says why
    LoweredModel model = WeightFormats.lower(stories(), "int8", withMaxN(NpuTargets.defaultNpu(), 16), 24, 16);
    assertTrue(model.orderQkvByTiles().contains("DSP rows"));
    assertNull(model.qkvTiles);
  }

  @ParameterizedTest
  @CsvSource({"int8, 32", "int8, 64", "int4, 32", "s2_4, 32", "int8+gate, 32"})
  void storiesTiledGivesThePerTokenLogitsAndTheCostModelFollows(String format, int maxN) {
    boolean gate = format.endsWith("+gate");
    String f = format.replace("+gate", "");
    MachineParams m = withMaxN(FusedLoweringTest.machine(f), maxN).withPpmGate(gate);
    sameLogitsAndExactCost(stories(), f, m, PROMPT, 6, 24);
  }

  @Test
  void aGqaShapeWithTilesStraddlingKAndVGivesThePerTokenLogits() {
    ModelConfig c = new ModelConfig(128, 172, 2, 4, 2, 64, 64);
    ModelWeights w = SyntheticWeights.generate(c, 7);
    int[] prompt = {1, 5, 9, 13, 17, 21, 25, 29, 33, 37, 41, 45, 49};
    // maxN 128: [q 0..3] [k 0..1 | v 0..1]; maxN 64: [q 0..1] [q 2..3] [k] [v]
    sameLogitsAndExactCost(w, "int8", NpuTargets.defaultNpu(), prompt, 8, 32);
    sameLogitsAndExactCost(w, "int8", withMaxN(NpuTargets.defaultNpu(), 64), prompt, 8, 32);
  }

  static void sameLogitsAndExactCost(ModelWeights w, String format, MachineParams m, int[] prompt, int block,
                                     int context) {
    NpuDecoder perToken = new NpuDecoder(WeightFormats.lower(w, format, m, context, 16), block, NpuEngine.GOLDEN,
        Fusion.FULL);
    perToken.lowering().staticQkv(true);
    LoweredModel ordered = WeightFormats.lower(w, format, m, context, 16);
    assertNull(ordered.orderQkvByTiles());
    assertTrue(ordered.qkvTiles.count() > 1, "several QKV tiles");
    NpuDecoder tiled = new NpuDecoder(ordered, block, NpuEngine.GOLDEN, Fusion.FULL);
    tiled.lowering().staticQkv(true);
    NpuDecoder.Step p0 = perToken.prefill(prompt, false);
    NpuDecoder.Step p1 = tiled.prefill(prompt, false);
    NpuDecoder.Step d0 = perToken.decode(7);
    NpuDecoder.Step d1 = tiled.decode(7);
    assertArrayEquals(p0.logits()[0], p1.logits()[0], "prefill logits");
    assertArrayEquals(d0.logits()[0], d1.logits()[0], "decode logits");
    assertEquals(p0.counter(Counter.MACS), p1.counter(Counter.MACS));
    assertNotEquals(p0.counter(Counter.CYCLES), p1.counter(Counter.CYCLES), "other commands");
    System.out.printf("%s maxN %d: prefill %d -> %d cycles, decode %d -> %d (per-token -> tiled post)%n", format,
        m.maxN(), p0.counter(Counter.CYCLES), p1.counter(Counter.CYCLES), d0.counter(Counter.CYCLES),
        d1.counter(Counter.CYCLES));
    PhaseCostModel cost = PhaseCostModel.forFormat(w.config(), m, context, block, format, Fusion.FULL)
        .staticQkv(true, true);
    PhaseCostModelTest.assertEveryCounterEqual(p1, cost.step(prompt.length, 0, w.config().layers()));
    PhaseCostModelTest.assertEveryCounterEqual(d1, cost.step(1, prompt.length, w.config().layers()));
  }

  /**
   * The extrapolated walk (7B estimates) emits the tiled post's commands as the lowering does, a group of tokens at a
   * time ({@link BlockQkvPost}, its programs the lowering's, with the layer's static q/k/v scales and rewritten for run
   * parameters as the lowering's stream rewrites them, so the same ones run resident): every counter equal.
   */
  @ParameterizedTest
  @CsvSource({"8, 0, 8, 0, 32", "8, 0, 16, 0, 32", "8, 0, 1, 16, 32", "4, 0, 16, 0, 32", "8, 1, 16, 0, 32",
      "8, 0, 16, 0, 64"})
  void theExtrapolatedWalkFollowsTheTiledLowering(int bits, int sparsity, int tokens, int position, int maxN) {
    MachineParams m = withMaxN(sparsity == Command.S2_4 ? NpuTargets.sparse24() : NpuTargets.defaultNpu(), maxN);
    ModelConfig c = stories().config();
    PhaseCost exact = new PhaseCostModel(c, m, 18, 16, false, bits, 0, sparsity, -1, Fusion.FULL)
        .staticQkv(true, true).step(tokens, position, 2);
    PhaseCostModel walkModel = new PhaseCostModel(c, m, 18, 16, true, bits, 0, sparsity, -1, Fusion.FULL)
        .staticQkv(true, true);
    assertTrue(walkModel.qkvPostTiled());
    assertNotNull(walkModel.blockQkvPost(), "the block-wide post");
    assertEquals(exact, walkModel.step(tokens, position, 2));
  }

  @Test
  void aTileOrderedModelNeedsStaticScales() {
    MachineParams m = withMaxN(NpuTargets.defaultNpu(), 32);
    LoweredModel ordered = WeightFormats.lower(stories(), "int8", m, 24, 16);
    assertNull(ordered.orderQkvByTiles());
    NpuDecoder dynamic = new NpuDecoder(ordered, 6, NpuEngine.GOLDEN, Fusion.FULL);
    IllegalStateException e = assertThrows(IllegalStateException.class, () -> dynamic.prefill(PROMPT, false));
    assertTrue(e.getMessage().contains("static q/k/v scales"), e.getMessage());
    assertEquals(Command.DENSE, m.sparsity());
  }
}
