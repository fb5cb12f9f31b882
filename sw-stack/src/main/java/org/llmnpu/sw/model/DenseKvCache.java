package org.llmnpu.sw.model;

/**
 * FP32 KV cache of the dynamic reference: per layer, one key row and one value row (kvDim wide) per
 * stored token, growing up to {@code capacity} tokens.
 */
public final class DenseKvCache implements KvStore {

    private final ModelConfig config;
    private final float[][][] keys;
    private final float[][][] values;
    private final int[] layerLength;
    private int length;

    public DenseKvCache(ModelConfig config, int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be >= 1 token, got " + capacity);
        }
        this.config = config;
        this.keys = new float[config.layers()][capacity][];
        this.values = new float[config.layers()][capacity][];
        this.layerLength = new int[config.layers()];
    }

    public int capacity() {
        return keys[0].length;
    }

    @Override
    public void write(int layer, int pos, float[] k, float[] v) {
        if (pos >= capacity()) {
            throw new IllegalStateException("KV cache holds " + capacity() + " tokens; cannot write position " + pos);
        }
        if (pos > layerLength[layer]) {
            throw new IllegalStateException("layer " + layer + " holds " + layerLength[layer] + " tokens; cannot write position " + pos);
        }
        keys[layer][pos] = k.clone();
        values[layer][pos] = v.clone();
        layerLength[layer] = pos + 1;
        length = Math.max(length, pos + 1);
    }

    @Override
    public void attend(int layer, float[] q, int pos, float[] out) {
        AttentionMath.attendAllHeads(config, q, keys[layer], values[layer], layerLength[layer], out);
    }

    @Override
    public int length() {
        return length;
    }

    @Override
    public void truncate(int newLength) {
        length = Math.min(length, newLength);
        for (int l = 0; l < layerLength.length; l++) {
            layerLength[l] = Math.min(layerLength[l], newLength);
        }
    }

    public int layerLength(int layer) {
        return layerLength[layer];
    }

    /** Key row of a stored token (not a copy). */
    public float[] key(int layer, int pos) {
        return keys[layer][pos];
    }

    public float[] value(int layer, int pos) {
        return values[layer][pos];
    }

    public ModelConfig config() {
        return config;
    }
}
