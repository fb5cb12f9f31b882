package org.llmnpu.sw;

import org.llmnpu.sw.model.ModelConfig;
import org.llmnpu.sw.model.ModelWeights;
import org.llmnpu.sw.model.SyntheticWeights;

/** Small seeded models shared by the unit tests. */
public final class TestModels {

    private TestModels() {
    }

    /** 2 layers, 32 wide, 4 heads over 2 KV heads, 64 tokens. */
    public static final ModelConfig MICRO = new ModelConfig(32, 64, 2, 4, 2, 64, 512);

    /** 2 layers, 16 wide, 2 heads over 1 KV head, 12 tokens: for statistical tests. */
    public static final ModelConfig NANO = new ModelConfig(16, 32, 2, 2, 1, 12, 64);

    public static ModelWeights micro(long seed) {
        return SyntheticWeights.generate(MICRO, seed);
    }
}
