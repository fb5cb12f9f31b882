package org.llmnpu.sw.train;

import java.util.Locale;

/**
 * What recovery fine-tuning minimizes, averaged over every predicted position (all but the last token of a sequence):
 * <ul>
 *   <li>{@code distill} (default) — {@code KL(p_FP32 ‖ p_model)} to the FP32 model's next-token distribution, whose
 *       gradient on the logits is {@code p_model − p_FP32}. On text sampled from the FP32 model the cross-entropy is a
 *       one-sample estimate of the same target (its expectation is this KL plus the FP32 entropy), so distillation
 *       is the same objective with the sampling noise removed, and it is exactly what the held-out KL and top-1
 *       agreement measure;</li>
 *   <li>{@code ce} — cross-entropy {@code −log p_model(next token)}, gradient {@code p_model − onehot}; the only
 *       choice when no teacher should be consulted.</li>
 * </ul>
 */
public enum TrainingLoss {
    DISTILL, CE;

    public static TrainingLoss parse(String text) {
        return switch (text.trim().toLowerCase(Locale.ROOT)) {
            case "distill", "kl" -> DISTILL;
            case "ce", "cross-entropy" -> CE;
            default -> throw new IllegalArgumentException("loss must be distill or ce, got '" + text + "'");
        };
    }

    public String label() {
        return this == DISTILL ? "distill" : "ce";
    }

    /**
     * The loss of one sequence's logits divided by {@code positions} (the batch's predicted positions), and its
     * gradient on the logits written into {@code dLogits}.
     *
     * @param teacher the FP32 logits of the same sequence (needed for {@code distill}, ignored for {@code ce})
     */
    public double lossAndGradient(double[][] logits, int[] tokens, float[][] teacher, int positions, double[][] dLogits) {
        double loss = 0;
        for (int t = 0; t + 1 < tokens.length; t++) {
            double[] logP = logSoftmax(logits[t]);
            double[] g = dLogits[t];
            if (this == CE) {
                int next = tokens[t + 1];
                loss -= logP[next];
                for (int i = 0; i < logP.length; i++) {
                    g[i] = (Math.exp(logP[i]) - (i == next ? 1 : 0)) / positions;
                }
            } else {
                double[] logTarget = logSoftmax(toDouble(teacher[t]));
                for (int i = 0; i < logP.length; i++) {
                    double target = Math.exp(logTarget[i]);
                    loss += target * (logTarget[i] - logP[i]);
                    g[i] = (Math.exp(logP[i]) - target) / positions;
                }
            }
        }
        return loss / positions;
    }

    /** {@code log softmax(logits)}, max-subtracted. */
    public static double[] logSoftmax(double[] logits) {
        double max = Double.NEGATIVE_INFINITY;
        for (double v : logits) {
            max = Math.max(max, v);
        }
        double sum = 0;
        for (double v : logits) {
            sum += Math.exp(v - max);
        }
        double logSum = max + Math.log(sum);
        double[] out = new double[logits.length];
        for (int i = 0; i < out.length; i++) {
            out[i] = logits[i] - logSum;
        }
        return out;
    }

    private static double[] toDouble(float[] v) {
        double[] d = new double[v.length];
        for (int i = 0; i < d.length; i++) {
            d[i] = v[i];
        }
        return d;
    }
}
