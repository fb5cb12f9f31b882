package org.llmnpu.sw.model;

/**
 * Where a decoder keeps keys and values between tokens, and how attention reads them. The reference
 * keeps FP32 ({@link DenseKvCache}); the KV studies plug in quantized and evicted stores.
 */
public interface KvStore {

    /** Stores the RoPE'd key and the value of the token at {@code pos} for {@code layer}. */
    void write(int layer, int pos, float[] k, float[] v);

    /**
     * Grouped-query attention of the query {@code q} (all heads, RoPE'd) of the token at {@code pos}
     * over every entry stored for {@code layer}; writes the concatenated head outputs to {@code out}.
     */
    void attend(int layer, float[] q, int pos, float[] out);

    /** Tokens stored (the next position to write). */
    int length();

    /** Forgets every token at position {@code >= length} (speculative-decoding rollback). */
    void truncate(int length);
}
