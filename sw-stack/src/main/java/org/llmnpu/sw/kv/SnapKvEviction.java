package org.llmnpu.sw.kv;

import java.util.Arrays;
import org.llmnpu.sw.model.ModelConfig;
import org.llmnpu.sw.model.RecordingKvStore;

/**
 * Chooses which prefill positions each layer's KV heads keep (SnapKV with per-layer budgets). For a
 * prefill of length L and layer budget C (L > C): the attention weights of the last w queries
 * (each over its causal keys) are summed over those queries and over the query heads sharing the KV
 * head (GQA) for positions [0, L − w); pooled; the C − w best positions are kept with the last w.
 * Ties keep the earlier position. A layer with L ≤ C keeps everything.
 */
public final class SnapKvEviction {

    private SnapKvEviction() {
    }

    /** kept[layer][kvHead] = ascending positions. */
    public static int[][][] select(RecordingKvStore prefill, EvictionConfig e) {
        ModelConfig c = prefill.cache().config();
        int length = prefill.length();
        int[] budgets = e.schedule().budgets(c.layers(), e.budget(), e.window());
        int[][][] kept = new int[c.layers()][c.kvHeads()][];
        for (int l = 0; l < c.layers(); l++) {
            for (int h = 0; h < c.kvHeads(); h++) {
                kept[l][h] = length <= budgets[l] || length <= e.window()
                        ? range(0, length)
                        : selectHead(prefill, l, h, budgets[l], e);
            }
        }
        return kept;
    }

    private static int[] selectHead(RecordingKvStore prefill, int layer, int kvHead, int budget, EvictionConfig e) {
        ModelConfig c = prefill.cache().config();
        int length = prefill.length();
        int prefix = length - e.window();
        double[] votes = new double[prefix];
        for (int head = kvHead * c.groupSize(); head < (kvHead + 1) * c.groupSize(); head++) {
            for (int pos = prefix; pos < length; pos++) {
                float[] w = prefill.attentionWeights(layer, head, pos);
                for (int t = 0; t < prefix; t++) {
                    votes[t] += w[t];
                }
            }
        }
        double[] pooled = pool(votes, e.kernel(), e.maxPooling());
        Integer[] order = new Integer[prefix];
        for (int i = 0; i < prefix; i++) {
            order[i] = i;
        }
        Arrays.sort(order, (a, b) -> pooled[a] != pooled[b] ? Double.compare(pooled[b], pooled[a]) : Integer.compare(a, b));
        int choose = Math.min(prefix, budget - e.window());
        int[] out = new int[choose + e.window()];
        for (int i = 0; i < choose; i++) {
            out[i] = order[i];
        }
        for (int i = 0; i < e.window(); i++) {
            out[choose + i] = prefix + i;
        }
        Arrays.sort(out);
        return out;
    }

    /** 1-D pooling, stride 1, zero padding kernel/2 on both sides; the average counts the padding. */
    static double[] pool(double[] x, int kernel, boolean max) {
        int half = kernel / 2;
        double[] out = new double[x.length];
        for (int i = 0; i < x.length; i++) {
            double acc = max ? Double.NEGATIVE_INFINITY : 0;
            for (int j = i - half; j <= i + half; j++) {
                double v = j >= 0 && j < x.length ? x[j] : 0;
                acc = max ? Math.max(acc, v) : acc + v;
            }
            out[i] = max ? acc : acc / kernel;
        }
        return out;
    }

    static int[] range(int from, int to) {
        int[] r = new int[to - from];
        for (int i = 0; i < r.length; i++) {
            r[i] = from + i;
        }
        return r;
    }
}
