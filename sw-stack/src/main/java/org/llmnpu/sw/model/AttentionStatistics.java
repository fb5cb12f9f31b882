package org.llmnpu.sw.model;

/**
 * How far a model's attention is from uniform: for the last {@code queries} positions of a sequence,
 * every layer and head, the entropy of the attention distribution divided by the entropy of the
 * uniform distribution over the same keys ({@code ln(pos + 1)}), averaged; and the mean share of
 * attention mass on the first token (the sink) and on the 8 most recent tokens (locality).
 */
public record AttentionStatistics(double relativeEntropy, double sinkMass, double recentMass) {

    public static AttentionStatistics measure(Transformer model, int[] tokens, int queries) {
        if (queries < 1 || queries >= tokens.length) {
            throw new IllegalArgumentException("queries must be in 1.." + (tokens.length - 1) + ", got " + queries);
        }
        ModelConfig c = model.config();
        RecordingKvStore store = new RecordingKvStore(c, tokens.length);
        model.forwardAll(tokens, store);
        double entropy = 0;
        double sink = 0;
        double recent = 0;
        int n = 0;
        for (int pos = tokens.length - queries; pos < tokens.length; pos++) {
            for (int l = 0; l < c.layers(); l++) {
                for (int h = 0; h < c.heads(); h++) {
                    float[] w = store.attentionWeights(l, h, pos);
                    double hsum = 0;
                    for (float p : w) {
                        hsum -= p > 0 ? p * Math.log(p) : 0;
                    }
                    entropy += hsum / Math.log(pos + 1);
                    sink += w[0];
                    for (int t = Math.max(0, pos - 7); t <= pos; t++) {
                        recent += w[t];
                    }
                    n++;
                }
            }
        }
        return new AttentionStatistics(entropy / n, sink / n, recent / n);
    }
}
