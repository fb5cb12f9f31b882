package org.llmnpu.sw.lower;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.llmnpu.isa.Command;
import org.llmnpu.isa.CommandCodec;
import org.llmnpu.isa.Counter;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.isa.Program;
import org.llmnpu.sw.io.ModelCatalog;
import org.llmnpu.sw.model.ModelWeights;

/**
 * stories260K at {@code --fusion full} on the default NPU with {@code dspPermute}: Kᵀ's lines by {@link KeyBlocks}
 * (a whole line of 16 slots, then a part line of 4), on the golden simulator the logits of the prefill and of a decode
 * step equal those of the default NPU (Kᵀ by pairs) bit for bit, the cost model equals the golden on every counter,
 * and the program holds the blocks' copies and none of the pairs' one-element rows.
 */
class KeyBlocksDecoderTest {
  @Test
  void permuteGivesThePairsLogitsAndTheCostModelFollows() throws Exception {
    ModelWeights w = ModelCatalog.load("stories260K", 1);
    MachineParams plain = NpuTargets.defaultNpu();
    MachineParams m = plain.withDsp(plain.dsp().withPermute(true));
    int ctx = 32;
    int block = 16;
    int[] prompt = new int[20];
    for (int i = 0; i < prompt.length; i++) {
      prompt[i] = (37 * i + 11) % w.config().vocabSize();
    }
    LoweredModel model = new LoweredModel(w, m, ctx, 24);
    NpuDecoder blocks = new NpuDecoder(model, block, NpuEngine.GOLDEN, Fusion.FULL);
    NpuDecoder pairs = new NpuDecoder(new LoweredModel(w, plain, ctx, 24), block, NpuEngine.GOLDEN, Fusion.FULL);
    NpuDecoder.Step pre = blocks.prefill(prompt, false);
    NpuDecoder.Step prePairs = pairs.prefill(prompt, false);
    assertArrayEquals(prePairs.logits()[0], pre.logits()[0], "prefill logits");
    NpuDecoder.Step dec = blocks.decode(301);
    assertArrayEquals(pairs.decode(301).logits()[0], dec.logits()[0], "decode logits");
    PhaseCostModel cost = PhaseCostModel.forFormat(w.config(), m, ctx, block, "int8", Fusion.FULL);
    PhaseCostModelTest.assertEveryCounterEqual(pre, cost.step(prompt.length, 0, w.config().layers()));
    PhaseCostModelTest.assertEveryCounterEqual(dec, cost.step(1, prompt.length, w.config().layers()));
    long cycles = pre.counter(Counter.CYCLES);
    long pairCycles = prePairs.counter(Counter.CYCLES);
    System.out.printf("stories260K 20-token prefill: Kᵀ by blocks %,d cycles, by pairs %,d%n", cycles, pairCycles);
    assertTrue(cycles < pairCycles, cycles + " vs " + pairCycles);

    Program.Builder builder = Program.builder();
    new DecoderLowering(model, block, program -> model.dspPool, Fusion.FULL).emit(prompt, 0, false,
        CommandStream.program(builder));
    Program program = builder.build();
    int kvDim = w.config().kvDim();
    int blockCopies = 0;
    for (int i = 0; i < program.size(); i++) {
      Command cmd = CommandCodec.decode(program.words(i)).orElseThrow();
      if (cmd instanceof Command.DspIn in && in.format() == Command.FMT_INT8 && in.rowElems() == kvDim
          && (in.rows() == block || in.rows() == prompt.length - block)) {
        blockCopies++;
      }
      assertTrue(!(cmd instanceof Command.DspOut out && out.rowElems() == 1 && out.rows() == kvDim),
          "a pair's staging dspout: " + cmd);
    }
    // per layer a whole line and a part line, one chunk each (kvDim 32 on 16 lanes)
    assertEquals(2 * w.config().layers(), blockCopies);
  }
}
