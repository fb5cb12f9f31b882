package org.llmnpu.sw.model;

/**
 * A {@link DenseKvCache} that also remembers every query it was asked to attend with, per layer and
 * position — what attention-statistics and observation-window eviction need.
 */
public final class RecordingKvStore implements KvStore {

    private final DenseKvCache cache;
    private final float[][][] queries;

    public RecordingKvStore(ModelConfig config, int capacity) {
        this.cache = new DenseKvCache(config, capacity);
        this.queries = new float[config.layers()][capacity][];
    }

    @Override
    public void write(int layer, int pos, float[] k, float[] v) {
        cache.write(layer, pos, k, v);
    }

    @Override
    public void attend(int layer, float[] q, int pos, float[] out) {
        queries[layer][pos] = q.clone();
        cache.attend(layer, q, pos, out);
    }

    @Override
    public int length() {
        return cache.length();
    }

    @Override
    public void truncate(int length) {
        cache.truncate(length);
    }

    public DenseKvCache cache() {
        return cache;
    }

    public float[] query(int layer, int pos) {
        return queries[layer][pos];
    }

    /**
     * Attention probabilities of query head {@code head} at position {@code pos} over keys
     * {@code 0..pos} (causal), recomputed from the stored query and keys.
     */
    public float[] attentionWeights(int layer, int head, int pos) {
        ModelConfig c = cache.config();
        int d = c.headDim();
        int kvOffset = (head / c.groupSize()) * d;
        float[] q = queries[layer][pos];
        float[] w = new float[pos + 1];
        float scale = (float) (1.0 / Math.sqrt(d));
        for (int t = 0; t <= pos; t++) {
            float[] k = cache.key(layer, t);
            float s = 0f;
            for (int i = 0; i < d; i++) {
                s += q[head * d + i] * k[kvOffset + i];
            }
            w[t] = s * scale;
        }
        Ops.softmax(w, pos + 1);
        return w;
    }
}
