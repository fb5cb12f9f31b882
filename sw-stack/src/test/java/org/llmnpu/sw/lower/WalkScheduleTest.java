package org.llmnpu.sw.lower;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.llmnpu.isa.Command;
import org.llmnpu.isa.Counter;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.sw.io.ModelCatalog;
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
    return new PhaseCostModel(w.config(), m, 48, 8, extrapolate, 8, 0, Command.DENSE, -1, Fusion.FULL);
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
        Counter.DSP_ELEMENTS, Counter.DSP_INSTRUCTIONS, Counter.SPAD_READS, Counter.SPAD_WRITES}) {
      assertEquals(sequential.counter(c), interleaved.counter(c), c.name());
      assertEquals(sequential.counter(c), one.counter(c), c.name());
      assertEquals(sequential.counter(c), skewed.counter(c), c.name());
    }
    // the second block's runs re-load their programs by a dspld (DspResidency#secondLane): more commands, not fewer
    assertTrue(interleaved.counter(Counter.COMMANDS) > sequential.counter(Counter.COMMANDS));
    assertEquals(sequential.counter(Counter.COMMANDS), one.counter(Counter.COMMANDS));
    assertTrue(two.walkMovedCommands() > 0, "nothing moved beside a W stream");
  }

  /**
   * The K/V cache's stand-in range is written by the K/V and attention operators only: the QKV GEMM ("QKV" holds
   * "KV") writing it held every K/V-out command of the other block behind its streams.
   */
  @Test
  void onlyTheKvAndAttentionOperatorsTouchTheCache() {
    for (String op : new String[] {"QKV scale, RoPE, K/V out", "layer vectors, KV cache", "attention scores",
        "attention scale, SoftMax", "attention P·V GEMM", "attention outputs"}) {
      assertTrue(WalkSchedule.cache(op), op);
    }
    for (String op : new String[] {"QKV GEMM", "attention RMSNorm", "O GEMM", "W1/W3 GEMM", "SwiGLU", "W2 GEMM",
        "residual, FFN RMSNorm", "lm head", "setup"}) {
      assertFalse(WalkSchedule.cache(op), op);
    }
  }
}
