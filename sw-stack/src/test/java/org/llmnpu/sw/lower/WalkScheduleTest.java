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
 * every counter; in the interleaver's order (one block, two blocks in flight) it does the same work — MACs, DMA
 * bytes, DSP elements and instructions — in another order. Its cycles are not yet the lowering's (sw-stack README,
 * "The 7B walk in the interleaver's order": the walk's stand-in footprints are a lane wide).
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
   * hidden 172 (4 heads, 2 KV heads; int8, s2_4). In windows across layers ({@link DecoderLowering#acrossLayers}, also
   * with 2 of 5 layers costed and the rest added as the last one did) the work counters are equal and the cycles within
   * 0.3 % (the program loads, below).
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
    MachineParams m = BlockInterleaverTest.twoBlockNpu(format);
    PhaseCostModel lowering = model(c, m, format, false).interleave(true, true).skewed(skewed)
        .acrossLayers(acrossLayers);
    PhaseCost exact = lowering.step(tokens, 0, costedLayers);
    assertEquals("", lowering.twoBlocksWhyNot(), "two blocks fit the lowering");
    PhaseCostModel walk = model(c, m, format, true).interleave(true, true).skewed(skewed).acrossLayers(acrossLayers);
    PhaseCost walked = walk.step(tokens, 0, costedLayers);
    PhaseCost sequential = model(c, m, format, true).step(tokens, 0, costedLayers);
    System.out.printf("%s %s %d tokens, two blocks%s%s, %d layers costed: lowering %,d cycles (%,d commands), walk "
        + "%,d; one block at a time %,d%n", shape, format, tokens, skewed ? " skewed" : "",
        acrossLayers ? " across layers" : "", costedLayers, exact.cycles(), exact.counter(Counter.COMMANDS),
        walked.cycles(), sequential.cycles());
    // in windows across layers the program memory's placements stay from layer to layer, and the walk's programs do
    // not carry every per-layer constant the lowering's do (the static input scales of its quantizations but those of
    // the RMSNorms'): which programs a later layer finds resident may differ, so the program loads (commands, their
    // beats, fetch and DSP cycles) and the cycles are bounded (0.3 %), the work counters exact
    java.util.Set<Counter> loads = acrossLayers ? java.util.EnumSet.of(Counter.CYCLES, Counter.COMMANDS,
        Counter.EXT_READ_BEATS, Counter.FETCH_CYCLES, Counter.DSP_CYCLES) : java.util.EnumSet.noneOf(Counter.class);
    if (acrossLayers) {
      assertTrue(Math.abs(walked.cycles() - exact.cycles()) <= 3 * exact.cycles() / 1000, "walk " + walked.cycles()
          + " cycles, lowering " + exact.cycles());
    }
    StringBuilder differ = new StringBuilder();
    for (Counter k : Counter.values()) {
      if (exact.counter(k) != walked.counter(k) && !loads.contains(k)) {
        differ.append(' ').append(k.key()).append(' ').append(exact.counter(k)).append(" != ")
            .append(walked.counter(k));
      }
    }
    assertEquals("", differ.toString(), "the walk's counters against the lowering's");
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
