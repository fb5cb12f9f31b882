package org.llmnpu.sw.model;

/**
 * The dynamic-shape FP32 reference forward pass of a LLaMA-style decoder: one token at a time,
 * attention over whatever the {@link KvStore} holds. Layers can be switched off to build a
 * layer-skipping draft model.
 */
public final class Transformer {

    private final ModelWeights weights;
    private final boolean[] activeLayers;

    public Transformer(ModelWeights weights) {
        this(weights, allActive(weights.config().layers()));
    }

    public Transformer(ModelWeights weights, boolean[] activeLayers) {
        if (activeLayers.length != weights.config().layers()) {
            throw new IllegalArgumentException("activeLayers must have " + weights.config().layers() + " entries");
        }
        this.weights = weights;
        this.activeLayers = activeLayers.clone();
    }

    private static boolean[] allActive(int n) {
        boolean[] a = new boolean[n];
        java.util.Arrays.fill(a, true);
        return a;
    }

    public ModelConfig config() {
        return weights.config();
    }

    public ModelWeights weights() {
        return weights;
    }

    public boolean isActive(int layer) {
        return activeLayers[layer];
    }

    public DenseKvCache newCache(int capacity) {
        return new DenseKvCache(config(), capacity);
    }

    /** Runs the token at position {@code pos} (which must equal the store's length) and returns its logits. */
    public float[] forward(int token, int pos, KvStore kv) {
        ModelConfig c = config();
        float[] x = BlockKernels.embed(weights, token);
        float[] attention = new float[c.dim()];
        for (int l = 0; l < c.layers(); l++) {
            if (!activeLayers[l]) {
                continue;
            }
            LayerWeights w = weights.layers()[l];
            BlockKernels.Qkv qkv = BlockKernels.attentionInputs(c, w, x, pos);
            kv.write(l, pos, qkv.k(), qkv.v());
            kv.attend(l, qkv.q(), pos, attention);
            BlockKernels.finishBlock(c, w, x, attention);
        }
        return BlockKernels.logits(weights, x);
    }

    /** Feeds {@code tokens} from position {@code kv.length()} on; returns the logits of every fed token. */
    public float[][] forwardAll(int[] tokens, KvStore kv) {
        float[][] out = new float[tokens.length][];
        for (int i = 0; i < tokens.length; i++) {
            out[i] = forward(tokens[i], kv.length(), kv);
        }
        return out;
    }
}
