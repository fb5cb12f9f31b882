package org.llmnpu.sw.kv;

import java.util.Optional;
import org.llmnpu.sw.model.AttentionMath;
import org.llmnpu.sw.model.DenseKvCache;
import org.llmnpu.sw.model.KvStore;
import org.llmnpu.sw.model.ModelConfig;

/**
 * A KV cache that may be quantized ({@link KvQuantConfig}) and may have been evicted at prefill: every
 * layer and KV head holds its own sequence of (key, value) rows — after eviction different heads keep
 * different positions — and every new token is appended to all of them. Attention of a query head
 * runs over the rows of its KV head, in the order they were stored.
 */
public final class CompressedKvStore implements KvStore {

    private final ModelConfig config;
    private final QuantizedTensorStream[][] keys;
    private final QuantizedTensorStream[][] values;
    private int length;
    /** Positions below this came from prefill (possibly evicted) and cannot be rolled back. */
    private int prefillLength;

    public CompressedKvStore(ModelConfig config, Optional<KvQuantConfig> quant) {
        this.config = config;
        int d = config.headDim();
        quant.ifPresent(q -> q.checkHeadDim(d));
        keys = new QuantizedTensorStream[config.layers()][config.kvHeads()];
        values = new QuantizedTensorStream[config.layers()][config.kvHeads()];
        for (int l = 0; l < config.layers(); l++) {
            for (int h = 0; h < config.kvHeads(); h++) {
                keys[l][h] = quant.map(q -> new QuantizedTensorStream(d, q.bits(), q.groupSize(), q.residual(),
                        q.grouping().keysPerChannel())).orElseGet(() -> QuantizedTensorStream.exact(d));
                values[l][h] = quant.map(q -> new QuantizedTensorStream(d, q.bits(), q.groupSize(), q.residual(),
                        q.grouping().valuesPerChannel())).orElseGet(() -> QuantizedTensorStream.exact(d));
            }
        }
    }

    /**
     * A store holding the prefill KV of {@code prefill}, only the positions {@code kept[layer][kvHead]}
     * (ascending) of each head, appended in position order (so quantization sees them as a stream).
     */
    public static CompressedKvStore fromPrefill(DenseKvCache prefill, int[][][] kept, Optional<KvQuantConfig> quant) {
        ModelConfig c = prefill.config();
        CompressedKvStore store = new CompressedKvStore(c, quant);
        int d = c.headDim();
        for (int l = 0; l < c.layers(); l++) {
            for (int h = 0; h < c.kvHeads(); h++) {
                for (int pos : kept[l][h]) {
                    store.keys[l][h].append(java.util.Arrays.copyOfRange(prefill.key(l, pos), h * d, (h + 1) * d));
                    store.values[l][h].append(java.util.Arrays.copyOfRange(prefill.value(l, pos), h * d, (h + 1) * d));
                }
            }
        }
        store.length = prefill.length();
        store.prefillLength = prefill.length();
        return store;
    }

    /** Every position of every head: no eviction. */
    public static int[][][] keepAll(ModelConfig c, int length) {
        int[][][] kept = new int[c.layers()][c.kvHeads()][length];
        for (int[][] layer : kept) {
            for (int[] head : layer) {
                for (int i = 0; i < length; i++) {
                    head[i] = i;
                }
            }
        }
        return kept;
    }

    @Override
    public void write(int layer, int pos, float[] k, float[] v) {
        int d = config.headDim();
        for (int h = 0; h < config.kvHeads(); h++) {
            keys[layer][h].append(java.util.Arrays.copyOfRange(k, h * d, (h + 1) * d));
            values[layer][h].append(java.util.Arrays.copyOfRange(v, h * d, (h + 1) * d));
        }
        length = Math.max(length, pos + 1);
    }

    @Override
    public void attend(int layer, float[] q, int pos, float[] out) {
        int d = config.headDim();
        for (int h = 0; h < config.heads(); h++) {
            int kvh = h / config.groupSize();
            QuantizedTensorStream ks = keys[layer][kvh];
            QuantizedTensorStream vs = values[layer][kvh];
            int n = ks.size();
            float[][] kr = new float[n][];
            float[][] vr = new float[n][];
            for (int t = 0; t < n; t++) {
                kr[t] = ks.row(t);
                vr[t] = vs.row(t);
            }
            AttentionMath.attendHead(q, h * d, kr, vr, 0, n, d, new float[Math.max(1, n)], out, h * d);
        }
    }

    @Override
    public int length() {
        return length;
    }

    /**
     * Speculative rollback: forgets the newest {@code length - newLength} decoded tokens in every head,
     * exactly (rows they pushed out of the FP16 window are restored). Possible for tokens decoded after
     * prefill, up to the last {@value QuantizedTensorStream#UNDO_DEPTH} of them.
     */
    @Override
    public void truncate(int newLength) {
        if (newLength < prefillLength || newLength > length) {
            throw new IllegalArgumentException("truncate to " + newLength + " tokens: allowed " + prefillLength + ".."
                    + length + " (prefill positions cannot be rolled back)");
        }
        int drop = length - newLength;
        for (int l = 0; l < config.layers(); l++) {
            for (int h = 0; h < config.kvHeads(); h++) {
                int undoable = Math.min(keys[l][h].undoableAppends(), values[l][h].undoableAppends());
                if (drop > undoable) {
                    throw new IllegalArgumentException("truncate by " + drop + " tokens: at most " + undoable
                            + " of the newest tokens can be rolled back");
                }
            }
        }
        for (int l = 0; l < config.layers(); l++) {
            for (int h = 0; h < config.kvHeads(); h++) {
                keys[l][h].dropNewest(drop);
                values[l][h].dropNewest(drop);
            }
        }
        length = newLength;
    }

    /** Bytes one decode step reads to attend over the whole cache (all layers, keys and values). */
    public long bytesPerDecodeStep() {
        long b = 0;
        for (int l = 0; l < config.layers(); l++) {
            for (int h = 0; h < config.kvHeads(); h++) {
                b += keys[l][h].bytes() + values[l][h].bytes();
            }
        }
        return b;
    }

    /** Rows held by one layer's KV head. */
    public int rows(int layer, int kvHead) {
        return keys[layer][kvHead].size();
    }
}
