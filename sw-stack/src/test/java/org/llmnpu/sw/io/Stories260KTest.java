package org.llmnpu.sw.io;

import static org.junit.jupiter.api.Assertions.*;

import java.io.IOException;
import java.io.InputStream;
import org.junit.jupiter.api.Test;
import org.llmnpu.sw.model.ModelConfig;
import org.llmnpu.sw.model.ModelWeights;
import org.llmnpu.sw.model.Transformer;
import org.llmnpu.sw.runtime.Generators;
import org.llmnpu.sw.sample.Sampler;
import org.llmnpu.sw.sample.SamplerConfig;

/** The shipped real checkpoint: its shape, its licence beside it, and greedy tokens equal to an independent implementation. */
class Stories260KTest {

    /**
     * Greedy ids from BOS by an independent float64 NumPy implementation of the llama2.c forward pass
     * ({@code src/test/resources/org/llmnpu/sw/io/stories260k_reference.py}); the first 37 steps, where the
     * top-1 logit leads the runner-up by at least 0.03 (step 38 leads by 0.003, within float32 noise).
     */
    static final int[] REFERENCE_GREEDY = {461,461,401,401,401,461,378,455,473,456,435,299,362,409,283,264,283,452,288,13,431,431,431,431,431,431,431,431,431,431,431,431,431,293,430,417,363};

    @Test
    void bundledCheckpointHasTheDocumentedShapeAndItsLicence() throws IOException {
        ModelWeights w = Llama2cCheckpoint.readBundled("stories260K");
        assertEquals(ModelConfig.stories260K(), w.config());
        assertSame(w.tokenEmbedding(), w.lmHead(), "stories260K shares the classifier with the embedding");
        try (InputStream licence = Llama2cCheckpoint.class.getResourceAsStream(Llama2cCheckpoint.BUNDLED_DIR + "LICENSE-stories260K")) {
            assertNotNull(licence, "the MIT licence must travel with the checkpoint");
            assertTrue(new String(licence.readAllBytes()).contains("MIT"));
        }
    }

    @Test
    void greedyTokensEqualTheIndependentReference() throws IOException {
        Transformer t = new Transformer(ModelCatalog.load("stories260K", 0));
        int[] got = Generators.dynamic(t, new int[] {1}, REFERENCE_GREEDY.length,
                new Sampler(new SamplerConfig(0f, 0, 1f, 1))).tokens();
        assertArrayEquals(REFERENCE_GREEDY, got);
    }
}
