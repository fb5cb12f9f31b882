package org.llmnpu.sw.runtime;

import static org.junit.jupiter.api.Assertions.*;

import org.junit.jupiter.api.Test;
import org.llmnpu.sw.TestModels;
import org.llmnpu.sw.model.DenseKvCache;
import org.llmnpu.sw.model.ModelConfig;
import org.llmnpu.sw.model.ModelWeights;
import org.llmnpu.sw.model.SyntheticPrompts;
import org.llmnpu.sw.model.Transformer;
import org.llmnpu.sw.sample.Sampler;
import org.llmnpu.sw.sample.SamplerConfig;

class StaticShapeRuntimeTest {

    private final ModelWeights weights = TestModels.micro(11);
    private final ModelConfig c = weights.config();

    @Test
    void staticShapeLogitsEqualDynamicReferenceBitForBitForManyPromptLengths() {
        Transformer reference = new Transformer(weights);
        StaticShapeRuntime runtime = new StaticShapeRuntime(weights, new StaticShape(16, 8));
        for (int len = 1; len <= 16; len += 3) {
            int[] prompt = SyntheticPrompts.prompt(c, len, len);
            DenseKvCache kv = reference.newCache(len + 8);
            float[][] dynamic = reference.forwardAll(prompt, kv);
            assertArrayEquals(dynamic[len - 1], runtime.prefill(prompt), "prefill logits, prompt length " + len);
            int token = 7;
            for (int step = 0; step < 8; step++) {
                float[] expected = reference.forward(token, kv.length(), kv);
                assertArrayEquals(expected, runtime.decode(token), "decode step " + step + ", prompt length " + len);
                token = (token * 5 + 3) % c.vocabSize();
            }
        }
    }

    @Test
    void eachDecodeStepWritesExactlyOneKvSlotPerLayer() {
        StaticShapeRuntime runtime = new StaticShapeRuntime(weights, new StaticShape(8, 6));
        runtime.prefill(SyntheticPrompts.prompt(c, 5, 2));
        long perStep = (long) c.layers() * 2 * c.kvDim() * Float.BYTES;
        for (int step = 0; step < 6; step++) {
            float[] before = runtime.cache().snapshot();
            runtime.cache().resetByteCounter();
            runtime.decode(3 + step);
            assertEquals(perStep, runtime.cache().bytesWritten(), "bytes written at step " + step);
            float[] after = runtime.cache().snapshot();
            int changedSlot = 5 + step;
            for (int i = 0; i < before.length; i++) {
                int slot = (i / 2) % runtime.cache().capacity();
                if (slot != changedSlot) {
                    assertEquals(before[i], after[i], "slot " + slot + " must not change at step " + step);
                }
            }
        }
    }

    @Test
    void freeSlotsAreZeroAfterPrefill() {
        StaticShapeRuntime runtime = new StaticShapeRuntime(weights, new StaticShape(8, 4));
        runtime.prefill(SyntheticPrompts.prompt(c, 8, 1));
        runtime.prefill(SyntheticPrompts.prompt(c, 3, 1));
        float[] snap = runtime.cache().snapshot();
        for (int i = 0; i < snap.length; i++) {
            if ((i / 2) % runtime.cache().capacity() >= 3) {
                assertEquals(0f, snap[i]);
            }
        }
    }

    @Test
    void promptLongerThanSlpIsAnErrorNotATruncation() {
        StaticShapeRuntime runtime = new StaticShapeRuntime(weights, new StaticShape(8, 4));
        var e = assertThrows(IllegalArgumentException.class, () -> runtime.prefill(SyntheticPrompts.prompt(c, 9, 1)));
        assertTrue(e.getMessage().contains("SLP = 8"), e.getMessage());
    }

    @Test
    void decodingPastSlrIsAnError() {
        StaticShapeRuntime runtime = new StaticShapeRuntime(weights, new StaticShape(8, 2));
        runtime.prefill(SyntheticPrompts.prompt(c, 8, 1));
        runtime.decode(4);
        runtime.decode(4);
        var e = assertThrows(IllegalStateException.class, () -> runtime.decode(4));
        assertTrue(e.getMessage().contains("SLR = 2"), e.getMessage());
        var g = assertThrows(IllegalArgumentException.class, () -> Generators.staticShape(runtime,
                SyntheticPrompts.prompt(c, 4, 1), 4, new Sampler(SamplerConfig.greedy())));
        assertTrue(g.getMessage().contains("max-new 4"), g.getMessage());
    }

    @Test
    void staticGenerationEqualsDynamicGeneration() {
        int[] prompt = SyntheticPrompts.prompt(c, 6, 4);
        Generation d = Generators.dynamic(new Transformer(weights), prompt, 10, new Sampler(SamplerConfig.temperature(0.8f, 3)));
        Generation s = Generators.staticShape(new StaticShapeRuntime(weights, new StaticShape(8, 12)), prompt, 10,
                new Sampler(SamplerConfig.temperature(0.8f, 3)));
        assertArrayEquals(d.tokens(), s.tokens());
    }

    @Test
    void staticShapeParsesAndValidates() {
        assertEquals(new StaticShape(64, 128), StaticShape.parse("slp=64,slr=128"));
        assertThrows(IllegalArgumentException.class, () -> StaticShape.parse("slp=64"));
        var e = assertThrows(IllegalArgumentException.class, () -> new StaticShape(0, 4));
        assertTrue(e.getMessage().startsWith("slp"));
    }
}
