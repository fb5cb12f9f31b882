package org.llmnpu.sw.eval;

import org.llmnpu.sw.model.Ops;
import org.llmnpu.sw.model.Transformer;

/**
 * Accuracy of a (compressed) model on held-out sequences, teacher-forced, against the FP32 model:
 * over every predicted position (all but the first token of each sequence),
 * <ul>
 *   <li>perplexity {@code exp(−mean log p(next token))} of the model, and of the FP32 model;</li>
 *   <li>KL divergence {@code KL(p_FP32 ‖ p_model)} in nats, mean over positions;</li>
 *   <li>top-1 agreement: share of positions where both models' argmax tokens match;</li>
 *   <li>logits SNR in dB over all logits.</li>
 * </ul>
 * Logits that are not finite are an error naming the model and position (a broken model must not
 * report agreement).
 */
public record HeldOutEvaluation(double perplexity, double fp32Perplexity, double klDivergence, double top1Agreement,
                                double snrDb, int positions) {

    /** The FP32 logits of the held-out set, computed once and shared by every compared model. */
    public record Reference(int[][] sequences, float[][][] logits) {

        public static Reference of(Transformer fp32, int[][] sequences) {
            float[][][] logits = new float[sequences.length][][];
            for (int s = 0; s < sequences.length; s++) {
                logits[s] = fp32.forwardAll(sequences[s], fp32.newCache(sequences[s].length));
                checkFinite(logits[s], "the FP32 model", s);
            }
            return new Reference(sequences, logits);
        }

        public int positions() {
            int n = 0;
            for (int[] s : sequences) {
                n += s.length - 1;
            }
            return n;
        }
    }

    public static HeldOutEvaluation evaluate(Reference ref, Transformer model, String modelName) {
        double nll = 0;
        double refNll = 0;
        double kl = 0;
        double signal = 0;
        double noise = 0;
        int agree = 0;
        int n = 0;
        for (int s = 0; s < ref.sequences().length; s++) {
            int[] seq = ref.sequences()[s];
            float[][] got = model.forwardAll(seq, model.newCache(seq.length));
            checkFinite(got, modelName, s);
            for (int p = 0; p + 1 < seq.length; p++) {
                float[] r = ref.logits()[s][p];
                float[] t = got[p];
                nll -= logSoftmax(t, seq[p + 1]);
                refNll -= logSoftmax(r, seq[p + 1]);
                kl += LogitComparison.klDivergence(r, t);
                agree += Ops.argmax(r) == Ops.argmax(t) ? 1 : 0;
                for (int i = 0; i < r.length; i++) {
                    signal += (double) r[i] * r[i];
                    noise += ((double) r[i] - t[i]) * ((double) r[i] - t[i]);
                }
                n++;
            }
        }
        if (n == 0) {
            throw new IllegalArgumentException("the held-out set has no predicted positions (sequences of one token)");
        }
        double snr = noise == 0 ? Double.POSITIVE_INFINITY : 10 * Math.log10(signal / noise);
        return new HeldOutEvaluation(Math.exp(nll / n), Math.exp(refNll / n), kl / n, agree / (double) n, snr, n);
    }

    static void checkFinite(float[][] logits, String model, int sequence) {
        for (int p = 0; p < logits.length; p++) {
            for (float v : logits[p]) {
                if (!Float.isFinite(v)) {
                    throw new IllegalStateException(model + ": logits are not finite (" + v + ") at position " + p
                            + " of held-out sequence " + sequence + "; the weights overflow or are corrupt");
                }
            }
        }
    }

    private static double logSoftmax(float[] logits, int token) {
        double max = Double.NEGATIVE_INFINITY;
        for (float v : logits) {
            max = Math.max(max, v);
        }
        double sum = 0;
        for (float v : logits) {
            sum += Math.exp(v - max);
        }
        return logits[token] - max - Math.log(sum);
    }
}
