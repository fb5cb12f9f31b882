package org.llmnpu.sw.runtime;

/** Tokens produced by a generation run and the logits each was chosen from. */
public record Generation(int[] tokens, float[][] logits, double seconds) {

    public double tokensPerSecond() {
        return tokens.length / seconds;
    }
}
