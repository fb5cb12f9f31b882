package org.llmnpu.sw.runtime;

import org.llmnpu.sw.model.BlockKernels;
import org.llmnpu.sw.model.LayerWeights;
import org.llmnpu.sw.model.ModelConfig;
import org.llmnpu.sw.model.ModelWeights;
import org.llmnpu.sw.model.Ops;

/**
 * Static-shape inference as NPU runtimes do it: two graphs whose shapes never change.
 *
 * <p><b>Prefill graph</b> (input length SLP): the prompt is right-padded to SLP; the mask marks real
 * tokens, position ids are the real positions (0 for pads); every row attends causally to real
 * tokens only (a pad row attends to itself so its softmax stays finite and is then ignored). The graph
 * returns the K and V of all SLP rows; the host places the real part at slots {@code [0, len)} of the
 * preallocated decode cache and zeroes the rest.
 *
 * <p><b>Decode graph</b> (input length 1, KV length SLP + SLR): position id = number of stored
 * tokens; the mask is one over the stored slots and the current slot, zero elsewhere; scores are
 * computed for every slot and masked to −∞. The graph outputs only the new token's K and V per layer,
 * which the host writes into one slot ({@link StaticKvCache#writeSlot}, zero-copy update).
 *
 * <p>Masked slots contribute exp(−∞) = 0 to sums that run in the same order as the dynamic reference,
 * so the logits are bit-identical to {@link org.llmnpu.sw.model.Transformer}.
 */
public final class StaticShapeRuntime {

    private final ModelWeights weights;
    private final ModelConfig config;
    private final StaticShape shape;
    private final StaticKvCache cache;
    private int stored;
    private int decodeSteps;

    public StaticShapeRuntime(ModelWeights weights, StaticShape shape) {
        this.weights = weights;
        this.config = weights.config();
        this.shape = shape;
        this.cache = new StaticKvCache(config, shape.kvCapacity());
    }

    public StaticKvCache cache() {
        return cache;
    }

    public int stored() {
        return stored;
    }

    public StaticShape shape() {
        return shape;
    }

    /** Runs the prefill graph and returns the logits of the last real prompt token. */
    public float[] prefill(int[] prompt) {
        int slp = shape.slp();
        if (prompt.length == 0) {
            throw new IllegalArgumentException("prompt must have at least one token");
        }
        if (prompt.length > slp) {
            throw new IllegalArgumentException("prompt has " + prompt.length + " tokens but the static prefill graph takes SLP = "
                    + slp + " (raise slp; prompts are never truncated)");
        }
        int[] ids = new int[slp];
        boolean[] real = new boolean[slp];
        int[] positions = new int[slp];
        for (int i = 0; i < prompt.length; i++) {
            ids[i] = prompt[i];
            real[i] = true;
            positions[i] = i;
        }
        float[][] x = new float[slp][];
        for (int r = 0; r < slp; r++) {
            x[r] = BlockKernels.embed(weights, ids[r]);
        }
        float[][][] prefillKeys = new float[config.layers()][][];
        float[][][] prefillValues = new float[config.layers()][][];
        for (int l = 0; l < config.layers(); l++) {
            LayerWeights w = weights.layers()[l];
            float[][] q = new float[slp][];
            float[][] k = new float[slp][];
            float[][] v = new float[slp][];
            for (int r = 0; r < slp; r++) {
                BlockKernels.Qkv qkv = BlockKernels.attentionInputs(config, w, x[r], positions[r]);
                q[r] = qkv.q();
                k[r] = qkv.k();
                v[r] = qkv.v();
            }
            for (int r = 0; r < slp; r++) {
                float[] attention = prefillAttention(q[r], k, v, r, real);
                BlockKernels.finishBlock(config, w, x[r], attention);
            }
            prefillKeys[l] = k;
            prefillValues[l] = v;
        }
        cache.clear();
        for (int l = 0; l < config.layers(); l++) {
            for (int t = 0; t < prompt.length; t++) {
                cache.writeSlot(l, t, prefillKeys[l][t], prefillValues[l][t]);
            }
        }
        cache.resetByteCounter();
        stored = prompt.length;
        decodeSteps = 0;
        return BlockKernels.logits(weights, x[prompt.length - 1]);
    }

    private float[] prefillAttention(float[] q, float[][] k, float[][] v, int row, boolean[] real) {
        int slp = k.length;
        int d = config.headDim();
        float scale = (float) (1.0 / Math.sqrt(d));
        float[] out = new float[config.dim()];
        float[] scores = new float[slp];
        for (int h = 0; h < config.heads(); h++) {
            int kvOff = (h / config.groupSize()) * d;
            for (int t = 0; t < slp; t++) {
                float s = 0f;
                for (int i = 0; i < d; i++) {
                    s += q[h * d + i] * k[t][kvOff + i];
                }
                boolean visible = real[row] ? real[t] && t <= row : t == row;
                scores[t] = visible ? s * scale : Float.NEGATIVE_INFINITY;
            }
            Ops.softmax(scores, slp);
            for (int t = 0; t < slp; t++) {
                for (int i = 0; i < d; i++) {
                    out[h * d + i] += scores[t] * v[t][kvOff + i];
                }
            }
        }
        return out;
    }

    /** Runs the decode graph for {@code token} at the next position and returns its logits. */
    public float[] decode(int token) {
        if (decodeSteps >= shape.slr()) {
            throw new IllegalStateException("the static decode graph allows SLR = " + shape.slr()
                    + " decode steps; generating past SLR needs a larger slr");
        }
        if (stored >= shape.kvCapacity()) {
            throw new IllegalStateException("the static KV cache holds SLP + SLR = " + shape.kvCapacity() + " tokens");
        }
        int slot = stored;
        float[] x = BlockKernels.embed(weights, token);
        float[][] newKeys = new float[config.layers()][];
        float[][] newValues = new float[config.layers()][];
        for (int l = 0; l < config.layers(); l++) {
            LayerWeights w = weights.layers()[l];
            BlockKernels.Qkv qkv = BlockKernels.attentionInputs(config, w, x, slot);
            float[] attention = decodeAttention(l, qkv, slot);
            BlockKernels.finishBlock(config, w, x, attention);
            newKeys[l] = qkv.k();
            newValues[l] = qkv.v();
        }
        for (int l = 0; l < config.layers(); l++) {
            cache.writeSlot(l, slot, newKeys[l], newValues[l]);
        }
        stored++;
        decodeSteps++;
        return BlockKernels.logits(weights, x);
    }

    private float[] decodeAttention(int layer, BlockKernels.Qkv qkv, int slot) {
        int capacity = cache.capacity();
        int d = config.headDim();
        float scale = (float) (1.0 / Math.sqrt(d));
        float[] q = qkv.q();
        float[] out = new float[config.dim()];
        float[] scores = new float[capacity];
        for (int h = 0; h < config.heads(); h++) {
            int kvh = h / config.groupSize();
            float[][] keysT = cache.keysT[layer][kvh];
            float[][] values = cache.values[layer][kvh];
            java.util.Arrays.fill(scores, 0f);
            for (int i = 0; i < d; i++) {
                float qi = q[h * d + i];
                float[] keyRow = keysT[i];
                for (int t = 0; t < capacity; t++) {
                    scores[t] += qi * (t == slot ? qkv.k()[kvh * d + i] : keyRow[t]);
                }
            }
            for (int t = 0; t < capacity; t++) {
                scores[t] = t <= slot ? scores[t] * scale : Float.NEGATIVE_INFINITY;
            }
            Ops.softmax(scores, capacity);
            for (int t = 0; t < capacity; t++) {
                float p = scores[t];
                float[] vRow = t == slot ? null : values[t];
                for (int i = 0; i < d; i++) {
                    out[h * d + i] += p * (vRow == null ? qkv.v()[kvh * d + i] : vRow[i]);
                }
            }
        }
        return out;
    }
}
