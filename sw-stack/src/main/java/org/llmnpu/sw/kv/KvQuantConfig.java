package org.llmnpu.sw.kv;

import java.util.Locale;

/**
 * KV-cache quantization: {@code bits} (2..8) asymmetric min–max codes, groups of {@code groupSize},
 * grouping axis per {@link KvGrouping}, and a residual window of the {@code residual} most recent tokens
 * kept in FP16. Per-channel tensors are quantized a block of {@code residual} tokens at a time when the
 * window fills, so {@code residual} must be a positive multiple of {@code groupSize}; per-token tensors
 * quantize one token as it leaves the window (oldest first).
 */
public record KvQuantConfig(KvGrouping grouping, int bits, int groupSize, int residual) {

    public KvQuantConfig {
        if (bits < 2 || bits > 8) {
            throw new IllegalArgumentException("KV bits must be in 2..8, got " + bits);
        }
        if (groupSize < 1) {
            throw new IllegalArgumentException("KV group size must be >= 1, got " + groupSize);
        }
        if (residual < groupSize || residual % groupSize != 0) {
            throw new IllegalArgumentException("KV residual window must be a positive multiple of the group size "
                    + groupSize + ", got " + residual);
        }
    }

    /**
     * Per-token groups run along the head dimension; a group size that does not divide it (or exceeds
     * it) leaves a shorter last group, so every head dimension is accepted.
     */
    public void checkHeadDim(int headDim) {
        if (headDim < 1) {
            throw new IllegalArgumentException("head dimension must be >= 1, got " + headDim);
        }
    }

    /** Parses {@code hybrid4,g32,r32}, {@code pertoken2,g32,r32}, {@code perchannel8,g64,r64}. */
    public static KvQuantConfig parse(String text) {
        String[] parts = text.toLowerCase(Locale.ROOT).split(",");
        String head = parts[0].trim();
        KvGrouping grouping;
        String bits;
        if (head.startsWith("hybrid")) {
            grouping = KvGrouping.HYBRID;
            bits = head.substring(6);
        } else if (head.startsWith("pertoken")) {
            grouping = KvGrouping.PER_TOKEN;
            bits = head.substring(8);
        } else if (head.startsWith("perchannel")) {
            grouping = KvGrouping.PER_CHANNEL;
            bits = head.substring(10);
        } else {
            throw new IllegalArgumentException("kv must start with hybrid, pertoken or perchannel and the bits, e.g. hybrid4,g32,r32; got '"
                    + text + "'");
        }
        int group = 32;
        int residual = 32;
        try {
            int b = Integer.parseInt(bits);
            for (int i = 1; i < parts.length; i++) {
                String p = parts[i].trim();
                if (p.startsWith("g")) {
                    group = Integer.parseInt(p.substring(1));
                } else if (p.startsWith("r")) {
                    residual = Integer.parseInt(p.substring(1));
                } else {
                    throw new IllegalArgumentException("kv options are gN (group size) and rN (residual window), got '" + p + "'");
                }
            }
            return new KvQuantConfig(grouping, b, group, residual);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("kv must look like hybrid4,g32,r32; got '" + text + "'");
        }
    }

    @Override
    public String toString() {
        return grouping.name().toLowerCase(Locale.ROOT).replace("_", "") + bits + ",g" + groupSize + ",r" + residual;
    }
}
