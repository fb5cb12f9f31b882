package org.llmnpu.sw.lower;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;
import org.llmnpu.isa.Command;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.isa.dsp.DspProgram;
import org.llmnpu.sw.io.ModelCatalog;
import org.llmnpu.sw.model.ModelWeights;

/**
 * At {@code --fusion full} a block's RoPE cos/sin rows come in once a step ({@code AttentionLowering#ropeRowsIn}): the
 * block's region holds its own positions' rows and only that load writes it, so its later layers read the first
 * layer's; each block of a step (other positions) loads its own. The same step's logits and the cost model's exactness
 * are the golden tests' ({@code FusedLoweringTest}, {@code WovenBlocksTest}, {@code UnwrittenStateTest}).
 */
class RopeRowsOnceTest {
  @Test
  void eachBlockLoadsItsCosSinRowsOnceAStep() throws Exception {
    ModelWeights w = ModelCatalog.load("stories260K", 1);
    MachineParams m = FusedLoweringTest.machine("int8");
    LoweredModel model = WeightFormats.lower(w, "int8", m, 40, 16);
    int[] prompt = BlockInterleaverTest.prompt(16, w.config().vocabSize(), 7);
    // one block of 16, two blocks of 8 one at a time, a decode step at 16
    assertEquals(1, ropeLoads(model, 16, prompt, 0));
    assertEquals(2, ropeLoads(model, 8, prompt, 0));
    assertEquals(1, ropeLoads(model, 16, new int[] {prompt[3]}, 16));
  }

  /** The {@code load}s from the cos/sin table in the step of {@code tokens} at {@code pos0}, blocks of {@code block}. */
  private static int ropeLoads(LoweredModel model, int block, int[] tokens, int pos0) {
    int[] loads = new int[1];
    long end = model.rope + (long) model.maxContext() * model.ropeStride;
    new NpuDecoder(model, block, NpuEngine.GOLDEN, Fusion.FULL).lowering().emit(tokens, pos0, false,
        new CommandSink() {
          @Override
          public void command(Command c) {
            if (c instanceof Command.Load l && l.ext() >= model.rope && l.ext() < end) {
              loads[0]++;
            }
          }

          @Override
          public void dspRun(long address, DspProgram program) {
          }

          @Override
          public void dspLoad(long address, DspProgram program, long at) {
          }

          @Override
          public void dspRunResident(DspProgram program, long entry) {
          }
        });
    return loads[0];
  }
}
