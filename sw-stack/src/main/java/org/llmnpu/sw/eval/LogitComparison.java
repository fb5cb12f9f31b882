package org.llmnpu.sw.eval;

import org.llmnpu.sw.model.Ops;

/**
 * Agreement of a model's logits with FP32 reference logits over a set of positions:
 * <ul>
 *   <li>SNR in dB: {@code 10 log10(sum ref^2 / sum (ref - test)^2)} over all logits;</li>
 *   <li>KL divergence {@code KL(softmax(ref) || softmax(test))} in nats, averaged over positions;</li>
 *   <li>top-1 agreement: share of positions whose argmax tokens match.</li>
 * </ul>
 */
public record LogitComparison(double snrDb, double klDivergence, double top1Agreement, int positions) {

    public static LogitComparison compare(float[][] reference, float[][] test) {
        if (reference.length != test.length || reference.length == 0) {
            throw new IllegalArgumentException("need the same non-zero number of positions, got "
                    + reference.length + " and " + test.length);
        }
        double signal = 0;
        double noise = 0;
        double kl = 0;
        int agree = 0;
        for (int p = 0; p < reference.length; p++) {
            float[] r = reference[p];
            float[] t = test[p];
            for (int i = 0; i < r.length; i++) {
                signal += (double) r[i] * r[i];
                noise += ((double) r[i] - t[i]) * ((double) r[i] - t[i]);
            }
            kl += klDivergence(r, t);
            agree += Ops.argmax(r) == Ops.argmax(t) ? 1 : 0;
        }
        double snr = noise == 0 ? Double.POSITIVE_INFINITY : 10 * Math.log10(signal / noise);
        return new LogitComparison(snr, kl / reference.length, agree / (double) reference.length, reference.length);
    }

    /** KL(softmax(p) || softmax(q)) in nats, computed in double with log-sum-exp. */
    public static double klDivergence(float[] pLogits, float[] qLogits) {
        double lp = logSumExp(pLogits);
        double lq = logSumExp(qLogits);
        double kl = 0;
        for (int i = 0; i < pLogits.length; i++) {
            double logP = pLogits[i] - lp;
            double logQ = qLogits[i] - lq;
            kl += Math.exp(logP) * (logP - logQ);
        }
        return Math.max(0, kl);
    }

    private static double logSumExp(float[] x) {
        double max = Double.NEGATIVE_INFINITY;
        for (float v : x) {
            max = Math.max(max, v);
        }
        double s = 0;
        for (float v : x) {
            s += Math.exp(v - max);
        }
        return max + Math.log(s);
    }
}
