package org.llmnpu.sw.lower;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.llmnpu.isa.Counter;
import org.llmnpu.sw.io.ModelCatalog;
import org.llmnpu.sw.model.DenseKvCache;
import org.llmnpu.sw.model.ModelWeights;
import org.llmnpu.sw.model.Ops;
import org.llmnpu.sw.model.Transformer;

class NpuDecoderTest {
  @Test
  void prefillAndDecodeFollowTheFp32Model() throws Exception {
    ModelWeights w = ModelCatalog.load("stories260K", 1);
    LoweredModel model = new LoweredModel(w, NpuTargets.defaultNpu(), 32, 16);
    NpuDecoder npu = new NpuDecoder(model, 16, NpuEngine.GOLDEN);
    Transformer fp32 = new Transformer(w);
    DenseKvCache kv = fp32.newCache(32);
    int[] prompt = {1, 403, 407, 261};
    NpuDecoder.Step pre = npu.prefill(prompt, true);
    float[][] ref = fp32.forwardAll(prompt, kv);
    for (int i = 0; i < prompt.length; i++) {
      System.out.println(i + " npu " + Ops.argmax(pre.logits()[i]) + " fp32 " + Ops.argmax(ref[i]) + " " + pre.logits()[i][Ops.argmax(ref[i])] + " vs " + ref[i][Ops.argmax(ref[i])]);
    }
    System.out.println("prefill cycles " + pre.counter(Counter.CYCLES) + " commands " + pre.commands() + " run s " + pre.runSeconds());
    int tok = Ops.argmax(ref[prompt.length - 1]);
    for (int s = 0; s < 4; s++) {
      NpuDecoder.Step d = npu.decode(tok);
      float[] r = fp32.forward(tok, kv.length(), kv);
      System.out.println("decode npu " + Ops.argmax(d.logits()[0]) + " fp32 " + Ops.argmax(r) + " cycles " + d.counter(Counter.CYCLES) + " run s " + d.runSeconds());
      tok = Ops.argmax(r);
    }
  }
}
