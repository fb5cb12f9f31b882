package org.llmnpu.sw.model;

import java.util.Random;

/** Seeded prompts for synthetic models: BOS followed by tokens drawn uniformly from 2..vocab-1. */
public final class SyntheticPrompts {

    private SyntheticPrompts() {
    }

    public static int[] prompt(ModelConfig c, int length, long seed) {
        if (length < 1) {
            throw new IllegalArgumentException("prompt length must be >= 1, got " + length);
        }
        Random rnd = new Random(seed);
        int[] p = new int[length];
        p[0] = SyntheticWeights.BOS;
        for (int i = 1; i < length; i++) {
            p[i] = 2 + rnd.nextInt(c.vocabSize() - 2);
        }
        return p;
    }
}
