package org.llmnpu.sw.train;

import org.llmnpu.sw.model.ModelConfig;

/**
 * Grouped-query attention over a whole sequence under a prefix mask (causal, or the block-causal mask of diffusion
 * decoding: row t sees positions {@code s < visibleEnd[t]}) and its backward pass, plus the rotary embedding
 * (llama2.c's interleaved pairs, as {@link org.llmnpu.sw.model.Ops#rope}) and its transpose.
 *
 * <p>Forward, query head h reading KV head {@code h / groupSize}: {@code s_ts = q_t·k_s / sqrt(d)} for
 * {@code s < visibleEnd[t]} (causal: {@code s ≤ t}), {@code P_t = softmax(s_t)}, {@code o_t = Σ_s P_ts v_s}. Backward:
 * {@code dv_s += P_ts do_t}, {@code dP_ts = do_t·v_s}, {@code ds_ts = P_ts (dP_ts − Σ_s' P_ts' dP_ts')},
 * {@code dq_t += Σ_s ds_ts k_s / sqrt(d)}, {@code dk_s += ds_ts q_t / sqrt(d)} — a KV head's gradients sum
 * over the query heads of its group.
 */
public final class AttentionBackprop {

    /** The output and the attention probabilities {@code probs[h][t][s]}, s &lt; visibleEnd[t] (kept for backward). */
    public record Result(double[][] out, double[][][] probs) {
    }

    /** Gradients of the (rotated) queries, keys and values. */
    public record Gradients(double[][] dq, double[][] dk, double[][] dv) {
    }

    private AttentionBackprop() {
    }

    /** Causal attention: row t sees positions 0..t. */
    public static Result forward(ModelConfig c, double[][] q, double[][] k, double[][] v) {
        return forward(c, q, k, v, causalEnds(q.length));
    }

    /** Row t sees positions 0..t: the causal mask as prefix ends. */
    public static int[] causalEnds(int seq) {
        int[] ends = new int[seq];
        for (int t = 0; t < seq; t++) {
            ends[t] = t + 1;
        }
        return ends;
    }

    /**
     * Attention where row t sees positions {@code 0 .. visibleEnd[t] − 1} (each end in 1..seq): the causal mask, or a
     * block-causal one where a row sees its whole block and every earlier block.
     */
    public static Result forward(ModelConfig c, double[][] q, double[][] k, double[][] v, int[] visibleEnd) {
        int seq = q.length;
        if (visibleEnd.length != seq) {
            throw new IllegalArgumentException("visibleEnd has " + visibleEnd.length + " rows, the sequence " + seq);
        }
        for (int t = 0; t < seq; t++) {
            if (visibleEnd[t] < 1 || visibleEnd[t] > seq) {
                throw new IllegalArgumentException("visibleEnd[" + t + "] must be in 1.." + seq + ", got " + visibleEnd[t]);
            }
        }
        int d = c.headDim();
        double scale = 1.0 / Math.sqrt(d);
        double[][] out = new double[seq][c.dim()];
        double[][][] probs = new double[c.heads()][seq][];
        for (int h = 0; h < c.heads(); h++) {
            int qo = h * d;
            int ko = (h / c.groupSize()) * d;
            for (int t = 0; t < seq; t++) {
                int end = visibleEnd[t];
                double[] p = new double[end];
                double max = Double.NEGATIVE_INFINITY;
                for (int s = 0; s < end; s++) {
                    double dot = 0;
                    for (int i = 0; i < d; i++) {
                        dot += q[t][qo + i] * k[s][ko + i];
                    }
                    p[s] = dot * scale;
                    max = Math.max(max, p[s]);
                }
                double sum = 0;
                for (int s = 0; s < end; s++) {
                    p[s] = Math.exp(p[s] - max);
                    sum += p[s];
                }
                for (int s = 0; s < end; s++) {
                    p[s] /= sum;
                    for (int i = 0; i < d; i++) {
                        out[t][qo + i] += p[s] * v[s][ko + i];
                    }
                }
                probs[h][t] = p;
            }
        }
        return new Result(out, probs);
    }

    public static Gradients backward(ModelConfig c, double[][] dOut, double[][] q, double[][] k, double[][] v, double[][][] probs) {
        int seq = q.length;
        int d = c.headDim();
        double scale = 1.0 / Math.sqrt(d);
        double[][] dq = new double[seq][c.dim()];
        double[][] dk = new double[seq][c.kvDim()];
        double[][] dv = new double[seq][c.kvDim()];
        for (int h = 0; h < c.heads(); h++) {
            int qo = h * d;
            int ko = (h / c.groupSize()) * d;
            for (int t = 0; t < seq; t++) {
                double[] p = probs[h][t];
                double[] dp = new double[p.length];
                double weighted = 0;
                for (int s = 0; s < p.length; s++) {
                    double dot = 0;
                    for (int i = 0; i < d; i++) {
                        dot += dOut[t][qo + i] * v[s][ko + i];
                        dv[s][ko + i] += p[s] * dOut[t][qo + i];
                    }
                    dp[s] = dot;
                    weighted += p[s] * dot;
                }
                for (int s = 0; s < p.length; s++) {
                    double ds = p[s] * (dp[s] - weighted) * scale;
                    for (int i = 0; i < d; i++) {
                        dq[t][qo + i] += ds * k[s][ko + i];
                        dk[s][ko + i] += ds * q[t][qo + i];
                    }
                }
            }
        }
        return new Gradients(dq, dk, dv);
    }

    /**
     * Rotates each position's pairs {@code (2i, 2i+1)} of every head by {@code sign · pos · theta^(-2i/headDim)}
     * in place: sign +1 is the forward RoPE, −1 its transpose (the backward pass of a rotation).
     */
    public static void rotate(double[][] x, int headDim, double theta, int sign) {
        for (int pos = 0; pos < x.length; pos++) {
            double[] v = x[pos];
            for (int i = 0; i < v.length; i += 2) {
                int inHead = i % headDim;
                double angle = pos / Math.pow(theta, inHead / (double) headDim);
                double cos = Math.cos(angle);
                double sin = sign * Math.sin(angle);
                double a = v[i];
                double b = v[i + 1];
                v[i] = a * cos - b * sin;
                v[i + 1] = a * sin + b * cos;
            }
        }
    }
}
