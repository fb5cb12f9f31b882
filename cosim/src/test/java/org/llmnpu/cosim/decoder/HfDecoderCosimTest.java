package org.llmnpu.cosim.decoder;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.llmnpu.sw.io.hf.HfCheckpoint;
import org.llmnpu.sw.io.hf.SafetensorsDtype;
import org.llmnpu.sw.model.ModelConfig;
import org.llmnpu.sw.model.SyntheticWeights;

/**
 * A model as users have it — a Hugging Face directory ({@code config.json}, BF16 {@code model.safetensors} in two
 * shards, Q/K in the rotate-half layout) of another shape than stories260K: GQA (8 query heads on 4 KV heads), a
 * hidden size that is not a multiple of the array, {@code rope_theta} 500,000 — read, lowered and run on the
 * generated default NPU in Verilator: a 4-token prefill and a decode step bit-exact against the golden ISA simulator,
 * RTL cycles equal to the cycle model, unfused and with the fused datapath.
 */
class HfDecoderCosimTest {
  @TempDir
  Path tmp;

  @Test
  void aHuggingFaceGqaModelIsBitExactOnTheRtl() throws Exception {
    assertBitExact(modelDir(), "none");
  }

  @Test
  void aHuggingFaceGqaModelIsBitExactOnTheRtlThroughTheFusedDatapath() throws Exception {
    assertBitExact(modelDir(), "full");
  }

  private Path modelDir() throws Exception {
    // hidden 184: not a multiple of the 16-wide array (ragged N and K tiles); the lowering needs kvHeads·headDim/2 to
    // be a multiple of the DSP's 16 lanes
    ModelConfig c = new ModelConfig(128, 184, 2, 8, 4, 256, 64, 500000f, 1e-6f);
    Path dir = tmp.resolve("hf-gqa");
    HfCheckpoint.write(SyntheticWeights.generate(c, 11), dir, SafetensorsDtype.BF16, null, 2);
    return dir;
  }

  private static void assertBitExact(Path dir, String fusion) throws Exception {
    DecoderRtlSteps.run(fusion, new DecoderRun.Options(dir.toString(), 4, 2, "int8", DecoderRun.Engine.RTL, 3, 0, 0,
        fusion), DecoderRun.defaultNpu("int8"), 2);
  }
}
