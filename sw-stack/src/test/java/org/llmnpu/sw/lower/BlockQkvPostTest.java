package org.llmnpu.sw.lower;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.sw.model.ModelConfig;
import org.llmnpu.sw.model.ModelWeights;
import org.llmnpu.sw.model.SyntheticWeights;

/**
 * The block-wide QKV post ({@link BlockQkvPost}): where it applies, where it splits the block into groups of tokens
 * (the DSP's rows), where it refuses; there the logits bit-equal to the per-token post's and the cost model exact on
 * the golden counters, as {@link TiledQkvPostTest} checks them wherever it applies (and the walk against the exact
 * step).
 */
class BlockQkvPostTest {
  private static final ModelConfig GQA = new ModelConfig(128, 172, 2, 4, 2, 64, 64);

  /** The lowering's block-wide post for {@code w} ordered per tile on {@code m}, or null. */
  static BlockQkvPost blockPost(ModelWeights w, String format, MachineParams m, int context, int block) {
    LoweredModel ordered = WeightFormats.lower(w, format, m, context, 16);
    assertNull(ordered.orderQkvByTiles());
    LoweringEmitter e = new LoweringEmitter(new LoweringLayout(ordered, block, true), p -> ordered.dspPool,
        Fusion.FULL);
    return new AttentionLowering(e, Fusion.FULL).blockQkvPost();
  }

  @Test
  void theBlockGoesInGroupsOfAsManyTokensAsTheScoreRowsHold() {
    // stories260K (head-major K rows, headDim/2 = 4 < 16 lanes), maxN 32: 6 DSP rows a token in 96 score rows
    MachineParams m32 = TiledQkvPostTest.withMaxN(NpuTargets.defaultNpu(), 32);
    assertEquals(8, blockPost(StaticQkvLoweringTest.stories(), "int8", m32, 24, 8).groupTokens);
    assertEquals(15, blockPost(StaticQkvLoweringTest.stories(), "int8", m32, 24, 16).groupTokens);
    // the GQA shape (flat K rows, vocabulary 64: few score rows): two tokens a group at maxN 32, one at 64
    ModelWeights gqa = SyntheticWeights.generate(GQA, 7);
    assertEquals(2, blockPost(gqa, "int8", m32, 32, 8).groupTokens);
    assertEquals(1, blockPost(gqa, "int8", TiledQkvPostTest.withMaxN(NpuTargets.defaultNpu(), 64), 32, 8).groupTokens);
    // maxN 128: 24 rows a token, more than its 12 score rows: token by token (TiledQkvPost's own post)
    assertNull(blockPost(gqa, "int8", NpuTargets.defaultNpu(), 32, 8));
  }

  @Test
  void groupsAreAsManyTokensAsTheFreeRowsHold() {
    // 30 rows a token and a K and a V scale row a group of up to 16 tokens
    assertEquals(3, BlockQkvPost.groupTokens(100, 30, 16, 16));
    assertEquals(16, BlockQkvPost.groupTokens(16 * 30 + 2, 30, 16, 16));
    assertEquals(15, BlockQkvPost.groupTokens(16 * 30 + 1, 30, 16, 16));
    assertEquals(0, BlockQkvPost.groupTokens(31, 30, 16, 16));
    // 64 lanes: one scale row holds 64 tokens' scales, the 65th needs a second
    assertEquals(64, BlockQkvPost.groupTokens(64 * 10 + 2, 10, 128, 64));
  }

  @Test
  void copiesThatWouldNotStartOnALineAreRefusedWithTheReason() {
    MachineParams wideLine = NpuTargets.defaultNpu();
    QkvTiles tiles = QkvTiles.of(GQA, 64, 16);
    assertNull(BlockQkvPost.shapeWhyNot(GQA, wideLine, tiles, false, 0));
    String why = BlockQkvPost.shapeWhyNot(GQA, wideLine, tiles, false, 8);
    assertTrue(why.contains("not whole lines of 16 bytes"), why);
  }

  /** Blocks larger than a group: each tile's post group by group, the logits the per-token post's, the cost exact. */
  @ParameterizedTest
  @CsvSource({"int8", "s2_4", "int4"})
  void aBlockLargerThanAGroupGoesGroupByGroup(String format) {
    MachineParams m = TiledQkvPostTest.withMaxN(FusedLoweringTest.machine(format), 32);
    int[] prompt = {1, 5, 9, 13, 17, 21, 25, 29, 33, 37, 41, 45, 49};
    TiledQkvPostTest.sameLogitsAndExactCost(SyntheticWeights.generate(GQA, 7), format, m, prompt, 8, 32);
    int[] sixteen = new int[16];
    for (int t = 0; t < sixteen.length; t++) {
      sixteen[t] = (7 * t + 3) % 512;
    }
    // stories260K, blocks of 16 in groups of 15 and 1
    TiledQkvPostTest.sameLogitsAndExactCost(StaticQkvLoweringTest.stories(), format, m, sixteen, 16, 24);
  }
}
