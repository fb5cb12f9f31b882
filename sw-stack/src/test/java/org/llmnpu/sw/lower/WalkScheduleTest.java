package org.llmnpu.sw.lower;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.llmnpu.isa.Command;
import org.llmnpu.isa.Counter;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.sw.io.ModelCatalog;
import org.llmnpu.sw.model.ModelConfig;
import org.llmnpu.sw.model.ModelWeights;

/**
 * The extrapolated walk in the interleaver's order ({@link WalkSchedule}) on stories260K where the lowering holds two
 * token blocks' buffers (a 1024-row DSP, context 48, blocks of 8): in program order the walk equals the lowering on
 * every counter; in the interleaver's order with two blocks in flight (layer by layer, skewed, in windows across layers)
 * it equals the lowering's program on every counter too, but for the tiled QKV post's command order (below); one block
 * in the interleaver's order does the same work — MACs, DMA bytes, DSP elements and instructions — in another order.
 */
class WalkScheduleTest {
  private static PhaseCostModel model(ModelWeights w, MachineParams m, boolean extrapolate) {
    return model(w.config(), m, "int8", extrapolate);
  }

  private static PhaseCostModel model(ModelConfig c, MachineParams m, String format, boolean extrapolate) {
    return new PhaseCostModel(c, m, 48, 8, extrapolate, WeightFormats.bits(format), WeightFormats.group(format),
        WeightFormats.sparsity(format), WeightFormats.mx(format), Fusion.FULL);
  }

  /**
   * Two token blocks in flight, layer by layer or skewed: the walk orders its commands as the lowering's interleaver
   * does (both by {@link LaneFootprints}) and every counter (cycles, commands, the second block's {@code dspld}s)
   * equals the lowering's program's, on stories260K (int8, int4, s2_4; ragged last blocks) and on a GQA shape of
   * hidden 172 (4 heads, 2 KV heads; int8, s2_4), also in windows across layers ({@link DecoderLowering#acrossLayers},
   * also with 2 of 5 layers costed and the rest added as the last one did): the walk's programs carry the per-layer
   * constants the lowering's do (the static input scales of the RMSNorms' quantizations, SiLU's output scale) and know
   * a run's moving rows by its shape as {@link DspRunForms} does, so a later layer finds the lowering's programs
   * resident.
   */
  @ParameterizedTest
  @CsvSource({"stories260K, int8, 16, true, false, 5", "stories260K, int8, 16, false, false, 5",
      "stories260K, int8, 40, true, false, 5", "stories260K, int8, 28, false, false, 5",
      "stories260K, int4, 16, true, false, 5", "stories260K, s2_4, 28, true, false, 5",
      "gqa, int8, 26, true, false, 2", "gqa, int8, 16, false, false, 2", "gqa, s2_4, 26, true, false, 2",
      "stories260K, int8, 16, true, true, 5", "stories260K, int8, 40, true, true, 5",
      "stories260K, int8, 40, true, true, 2", "stories260K, int8, 28, false, true, 5",
      "stories260K, int4, 16, true, true, 5", "stories260K, s2_4, 28, true, true, 5",
      "gqa, int8, 26, true, true, 2", "gqa, s2_4, 26, true, true, 2"})
  void inTheTwoBlockOrdersTheWalkEqualsTheLowering(String shape, String format, int tokens, boolean skewed,
                                                   boolean acrossLayers, int costedLayers) throws Exception {
    // the GQA shape: 4 heads of 16, 2 KV heads, hidden 172 (with a vocabulary of 64 its DSP rows lie so that the
    // lowering's plain rewriting shares one attention RMSNorm run between two tokens where the walk does not, in
    // program order already: the walk does not know the lowering's rows)
    ModelConfig c = shape.equals("gqa") ? new ModelConfig(64, 172, 2, 4, 2, 512, 512)
        : ModelCatalog.load("stories260K", 1).config();
    assertWalkEqualsLowering(c, BlockInterleaverTest.twoBlockNpu(format), format, tokens, skewed, acrossLayers,
        costedLayers, false, false);
  }

  /**
   * As above with static q/k/v scales ({@link DecoderLowering#staticQkv}) on stories260K: the per-token post, every
   * counter equal; at maxN 32 and 64 the tiled QKV post ({@link TiledQkvPost}, each block's posts in its skewed head;
   * the second block's first Kᵀ line holds the first block's slots, staged in its tail; its runs are the lowering's
   * programs on its rows, rewritten as the lowering's stream rewrites them), every counter but the cycles and the fetch
   * cycles ({@link #ORDER}), the cycles within 0.05 %; in windows across layers (the estimate's order) the same.
   */
  @ParameterizedTest
  @CsvSource({"int8, 16, 128, true, false, false", "int8, 40, 128, true, false, false",
      "int8, 16, 32, true, true, false", "int8, 40, 32, true, true, false", "int8, 28, 64, true, true, false",
      "int8, 16, 32, false, true, false", "int4, 16, 32, true, true, false", "s2_4, 28, 32, true, true, false",
      "int8, 40, 128, true, false, true", "int8, 40, 32, true, true, true", "s2_4, 28, 32, true, true, true"})
  void withStaticQkvScalesTheTwoBlockOrdersOfTheWalkEqualTheLowering(String format, int tokens, int maxN,
                                                                      boolean skewed, boolean tiled,
                                                                      boolean acrossLayers) throws Exception {
    MachineParams m = TiledQkvPostTest.withMaxN(BlockInterleaverTest.twoBlockNpu(format), maxN);
    assertWalkEqualsLowering(ModelCatalog.load("stories260K", 1).config(), m, format, tokens, skewed, acrossLayers, 5,
        true, tiled);
  }

  /**
   * As above on an NPU whose PPM has the gate operand (edge-64's: the 7B estimate's feed-forward,
   * {@link FeedForwardWalk#feedForwardGated}, the residual after W2 with the W2 input's static scale as a constant), with
   * dynamic and static q/k/v scales, also with the DSP's buffer permutations (edge-64's {@code dspPermute}: Kᵀ a block
   * at a time, {@link KeyBlocks}): every counter equal.
   */
  @ParameterizedTest
  @CsvSource({"int8, 16, true, false, false, false", "int8, 40, true, true, false, false",
      "int8, 28, false, true, false, false", "s2_4, 28, true, true, false, false", "int4, 16, true, true, false, false",
      "int8, 40, true, true, true, false", "s2_4, 28, true, true, true, false", "int8, 40, true, true, false, true",
      "s2_4, 28, true, true, false, true", "int8, 40, true, true, true, true"})
  void withThePpmGateTheTwoBlockOrdersOfTheWalkEqualTheLowering(String format, int tokens, boolean skewed,
                                                                boolean acrossLayers, boolean staticQkv,
                                                                boolean permute) throws Exception {
    MachineParams gated = BlockInterleaverTest.twoBlockNpu(format).withPpmGate(true);
    MachineParams m = gated.withDsp(gated.dsp().withPermute(permute));
    assertWalkEqualsLowering(ModelCatalog.load("stories260K", 1).config(), m, format, tokens, skewed, acrossLayers, 5,
        staticQkv, false);
  }

  /**
   * The counters the tiled QKV post's command order moves: the cycles and the command fetch's (every command, program
   * load and unit's work is the same). In the lowering the interleaver holds the second block's first RMSNorm inputs
   * after the first block's tile posts: {@link CommandFootprint} counts a strided copy's last row as a whole stride, so
   * the first block's K-row staging {@code dspout} (32 rows of 8 bytes at stride 32, its last row 16 bytes before the
   * second block's x rows) reaches 16 bytes into them, a false dependence the walk's lane ranges do not have (open: a
   * footprint ending at the last row's line would change the lowering's order, to be checked on the RTL).
   */
  private static final java.util.Set<Counter> ORDER = java.util.EnumSet.of(Counter.CYCLES, Counter.FETCH_CYCLES);

  private static void assertWalkEqualsLowering(ModelConfig c, MachineParams m, String format, int tokens,
                                               boolean skewed, boolean acrossLayers, int costedLayers,
                                               boolean staticQkv, boolean tiled) {
    PhaseCostModel lowering = model(c, m, format, false).staticQkv(staticQkv, tiled).interleave(true, true)
        .skewed(skewed).acrossLayers(acrossLayers);
    PhaseCost exact = lowering.step(tokens, 0, costedLayers);
    assertEquals("", lowering.twoBlocksWhyNot(), "two blocks fit the lowering");
    PhaseCostModel walk = model(c, m, format, true).staticQkv(staticQkv, tiled).interleave(true, true).skewed(skewed)
        .acrossLayers(acrossLayers);
    PhaseCost walked = walk.step(tokens, 0, costedLayers);
    PhaseCost sequential = model(c, m, format, true).staticQkv(staticQkv, tiled).step(tokens, 0, costedLayers);
    System.out.printf("%s %s %d tokens, maxN %d, q/k/v %s, two blocks%s%s, %d layers costed: lowering %,d cycles (%,d "
        + "commands), walk %,d; one block at a time %,d%n", c.dim() == 64 && c.heads() == 4 ? "gqa" : "stories260K",
        format, tokens, m.maxN(), staticQkv ? tiled ? "static, tiled post" : "static" : "dynamic",
        skewed ? " skewed" : "", acrossLayers ? " across layers" : "", costedLayers, exact.cycles(),
        exact.counter(Counter.COMMANDS), walked.cycles(), sequential.cycles());
    StringBuilder differ = new StringBuilder();
    for (Counter k : Counter.values()) {
      if (exact.counter(k) != walked.counter(k) && !(tiled && ORDER.contains(k))) {
        differ.append(' ').append(k.key()).append(' ').append(exact.counter(k)).append(" != ")
            .append(walked.counter(k));
      }
    }
    assertEquals("", differ.toString(), "the walk's counters against the lowering's");
    assertEquals(exact.cycles(), walked.cycles(), (tiled ? 0.0005 : 0) * exact.cycles(), "walk " + walked.cycles()
        + " cycles, lowering " + exact.cycles());
    assertTrue(walk.walkMovedCommands() > 0, "nothing moved beside a W stream");
  }

  @ParameterizedTest
  @ValueSource(ints = {16, 40})
  void inProgramOrderTheWalkEqualsTheLoweringWhereTwoBlocksFit(int tokens) throws Exception {
    ModelWeights w = ModelCatalog.load("stories260K", 1);
    MachineParams m = BlockInterleaverTest.twoBlockNpu("int8");
    assertEquals(model(w, m, false).step(tokens, 0, 5), model(w, m, true).step(tokens, 0, 5));
  }

  @ParameterizedTest
  @ValueSource(ints = {16, 40})
  void inTheInterleaversOrderTheWalkDoesTheSameWork(int tokens) throws Exception {
    ModelWeights w = ModelCatalog.load("stories260K", 1);
    MachineParams m = BlockInterleaverTest.twoBlockNpu("int8");
    PhaseCost sequential = model(w, m, true).step(tokens, 0, 5);
    PhaseCostModel two = model(w, m, true).interleave(true, true);
    PhaseCost interleaved = two.step(tokens, 0, 5);
    PhaseCost one = model(w, m, true).interleave(true, false).step(tokens, 0, 5);
    // DecoderLowering#skewed: both blocks' QKV GEMMs first, then each block's rest of the layer
    PhaseCost skewed = model(w, m, true).interleave(true, true).skewed(true).step(tokens, 0, 5);
    for (Counter c : new Counter[] {Counter.MACS, Counter.DENSE_MACS, Counter.DMA_LOAD_BYTES, Counter.DMA_STORE_BYTES,
        Counter.DSP_ELEMENTS, Counter.DSP_INSTRUCTIONS, Counter.SPAD_READS, Counter.SPAD_WRITES, Counter.COMMANDS}) {
      assertEquals(sequential.counter(c), one.counter(c), c.name());
    }
    // the second block loads (and copies to the DSP) its own constant buffers (BlockLane#stepStart) and its runs
    // re-load their programs by a dspld (DspResidency#secondLane); the array's work and the DSP's programs are the same
    for (Counter c : new Counter[] {Counter.MACS, Counter.DENSE_MACS, Counter.DMA_STORE_BYTES,
        Counter.DSP_INSTRUCTIONS}) {
      assertEquals(sequential.counter(c), interleaved.counter(c), c.name());
      assertEquals(sequential.counter(c), skewed.counter(c), c.name());
    }
    assertTrue(interleaved.counter(Counter.COMMANDS) > sequential.counter(Counter.COMMANDS));
    assertTrue(two.walkMovedCommands() > 0, "nothing moved beside a W stream");
  }
}
