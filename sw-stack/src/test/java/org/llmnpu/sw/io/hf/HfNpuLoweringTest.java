package org.llmnpu.sw.io.hf;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.llmnpu.sw.eval.LogitComparison;
import org.llmnpu.sw.io.ModelCatalog;
import org.llmnpu.sw.lower.LoweredModel;
import org.llmnpu.sw.lower.NpuDecoder;
import org.llmnpu.sw.lower.NpuEngine;
import org.llmnpu.sw.lower.NpuTargets;
import org.llmnpu.sw.model.ModelConfig;
import org.llmnpu.sw.model.ModelWeights;
import org.llmnpu.sw.model.SyntheticWeights;
import org.llmnpu.sw.model.Transformer;
import org.llmnpu.sw.run.SwExport;

/**
 * A model read from safetensors is the same {@link ModelWeights} the lowering takes: it lowers to NPU programs and
 * runs on the golden ISA simulator — stories260K read back from its Hugging Face export gives bit-identical NPU
 * logits to the llama2.c checkpoint, and a BF16 GQA model of another shape follows its FP32 forward.
 */
class HfNpuLoweringTest {
    private static final int[] PROMPT = {1, 403, 407, 261, 378};

    @Test
    void stories260KFromSafetensorsRunsOnTheNpuBitIdenticallyToTheLlama2cCheckpoint(@TempDir Path tmp) throws Exception {
        Path dir = tmp.resolve("hf");
        SwExport.export("stories260K", Optional.empty(), "hf", dir);
        NpuDecoder fromBin = new NpuDecoder(new LoweredModel(ModelCatalog.load("stories260K", 1), NpuTargets.defaultNpu(), 16, 8),
                8, NpuEngine.GOLDEN);
        NpuDecoder fromHf = new NpuDecoder(new LoweredModel(HfCheckpoint.read(dir), NpuTargets.defaultNpu(), 16, 8),
                8, NpuEngine.GOLDEN);
        NpuDecoder.Step a = fromBin.prefill(PROMPT, true);
        NpuDecoder.Step b = fromHf.prefill(PROMPT, true);
        for (int p = 0; p < PROMPT.length; p++) {
            assertArrayEquals(a.logits()[p], b.logits()[p], "prefill logits at position " + p);
        }
        assertArrayEquals(fromBin.decode(300).logits()[0], fromHf.decode(300).logits()[0], "a decode step");
        assertArrayEquals(a.counters(), b.counters());
    }

    @Test
    void aBf16GqaModelFromSafetensorsLowersAndFollowsItsFp32Forward(@TempDir Path tmp) throws Exception {
        // the lowering needs kvHeads·headDim/2 to be a multiple of the DSP's 16 lanes
        ModelConfig c = new ModelConfig(128, 192, 2, 8, 4, 256, 64, 500000f, 1e-6f);
        Path dir = tmp.resolve("bf16");
        HfCheckpoint.write(SyntheticWeights.generate(c, 5), dir, SafetensorsDtype.BF16, null, 2);
        ModelWeights w = ModelCatalog.load(dir.toString(), 1);
        assertEquals(c, w.config());
        NpuDecoder npu = new NpuDecoder(new LoweredModel(w, NpuTargets.defaultNpu(), 16, 8), 8, NpuEngine.GOLDEN);
        int[] prompt = {1, 17, 42, 99, 5, 200};
        Transformer fp32 = new Transformer(w);
        LogitComparison cmp = LogitComparison.compare(fp32.forwardAll(prompt, fp32.newCache(prompt.length)),
                npu.prefill(prompt, true).logits());
        assertTrue(cmp.top1Agreement() >= 0.8, "top-1 " + cmp.top1Agreement());
        assertTrue(cmp.klDivergence() < 0.05, "KL " + cmp.klDivergence());
    }
}
