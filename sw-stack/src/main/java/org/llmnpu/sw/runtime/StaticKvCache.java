package org.llmnpu.sw.runtime;

import org.llmnpu.sw.model.ModelConfig;

/**
 * The preallocated decode KV cache of the static-shape runtime, {@code capacity = slp + slr} slots.
 *
 * <p>Layout, chosen so neither attention matmul needs a transpose: keys are stored transposed,
 * {@code keysT[layer][kvHead][i][slot]} (i = head dimension), so {@code q · Kᵀ} is a plain
 * [1×d]·[d×capacity] product whose rows are contiguous in the slot dimension; values are stored
 * {@code values[layer][kvHead][slot][i]}, so {@code P · V} is a plain [1×capacity]·[capacity×d] product.
 *
 * <p>Zero-copy update: {@link #writeSlot} is the only way the decode loop changes the cache; it writes
 * one token's K and V for one layer and counts the bytes written (FP32, 4 bytes per element).
 */
public final class StaticKvCache {

    private final ModelConfig config;
    private final int capacity;
    final float[][][][] keysT;
    final float[][][][] values;
    private long bytesWritten;

    public StaticKvCache(ModelConfig config, int capacity) {
        this.config = config;
        this.capacity = capacity;
        int d = config.headDim();
        this.keysT = new float[config.layers()][config.kvHeads()][d][capacity];
        this.values = new float[config.layers()][config.kvHeads()][capacity][d];
    }

    public int capacity() {
        return capacity;
    }

    /** Writes the K and V of one token (kvDim each, heads concatenated) into {@code slot} of {@code layer}. */
    public void writeSlot(int layer, int slot, float[] k, float[] v) {
        if (slot < 0 || slot >= capacity) {
            throw new IllegalStateException("KV slot " + slot + " is outside the static capacity 0.." + (capacity - 1));
        }
        int d = config.headDim();
        for (int h = 0; h < config.kvHeads(); h++) {
            for (int i = 0; i < d; i++) {
                keysT[layer][h][i][slot] = k[h * d + i];
                values[layer][h][slot][i] = v[h * d + i];
            }
        }
        bytesWritten += 4L * (k.length + v.length);
    }

    /** Sets every slot of every layer to zero (free slots are zeroed, then masked). */
    public void clear() {
        for (int l = 0; l < config.layers(); l++) {
            for (int h = 0; h < config.kvHeads(); h++) {
                for (float[] row : keysT[l][h]) {
                    java.util.Arrays.fill(row, 0f);
                }
                for (float[] row : values[l][h]) {
                    java.util.Arrays.fill(row, 0f);
                }
            }
        }
    }

    /** Bytes written through {@link #writeSlot} since the last {@link #resetByteCounter()}. */
    public long bytesWritten() {
        return bytesWritten;
    }

    public void resetByteCounter() {
        bytesWritten = 0;
    }

    /** Copies the whole cache (for tests that check which slots changed). */
    public float[] snapshot() {
        int d = config.headDim();
        float[] out = new float[config.layers() * config.kvHeads() * 2 * d * capacity];
        int o = 0;
        for (int l = 0; l < config.layers(); l++) {
            for (int h = 0; h < config.kvHeads(); h++) {
                for (int i = 0; i < d; i++) {
                    for (int s = 0; s < capacity; s++) {
                        out[o++] = keysT[l][h][i][s];
                        out[o++] = values[l][h][s][i];
                    }
                }
            }
        }
        return out;
    }
}
