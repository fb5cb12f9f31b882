package org.llmnpu.sw.lower;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.llmnpu.isa.Counter;
import org.llmnpu.sw.io.ModelCatalog;
import org.llmnpu.sw.model.ModelWeights;
import org.llmnpu.sw.model.Ops;


/** Speculative decoding on the golden NPU equals target-only greedy decoding. */
class NpuSpeculativeDecoderTest {
  @Test
  void equalsTargetOnlyGreedyDecoding() throws Exception {
    ModelWeights w = ModelCatalog.load("stories260K", 1);
    int[] prompt = {1, 403, 407, 261};
    int maxNew = 7;
    LoweredModel target = new LoweredModel(w, NpuTargets.defaultNpu(), 20, 8);
    NpuDecoder alone = new NpuDecoder(target, 8, NpuEngine.GOLDEN);
    int[] greedy = new int[maxNew];
    float[] logits = alone.prefill(prompt, false).logits()[0];
    long aloneCycles = 0;
    for (int i = 0; i < maxNew; i++) {
      greedy[i] = Ops.argmax(logits);
      if (i + 1 < maxNew) {
        NpuDecoder.Step s = alone.decode(greedy[i]);
        aloneCycles += s.counter(Counter.CYCLES);
        logits = s.logits()[0];
      }
    }
    LoweredModel draft = new LoweredModel(NpuSpeculativeDecoder.truncate(w, 4), NpuTargets.defaultNpu(), 20, 8);
    NpuSpeculativeDecoder.Result r = NpuSpeculativeDecoder.generate(new NpuDecoder(target, 8, NpuEngine.GOLDEN),
        new NpuDecoder(draft, 8, NpuEngine.GOLDEN), prompt, maxNew, 3);
    assertArrayEquals(greedy, r.tokens());
    assertTrue(r.targetPasses() <= maxNew - 1 && r.draftSteps() >= r.targetPasses());
    System.out.printf("speculative (4-layer draft, gamma 3): %.2f tokens/pass, %.0f cycles/token vs target-only %.0f%n",
        r.tokensPerPass(), r.cyclesPerToken(), aloneCycles / (double) (maxNew - 1));
  }
}
