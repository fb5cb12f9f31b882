package org.llmnpu.sw.compress;

import java.util.Optional;
import org.llmnpu.numerics.quant.QuantScheme;
import org.llmnpu.numerics.quant.QuantizedMatrix;
import org.llmnpu.numerics.quant.WeightQuantizer;
import org.llmnpu.numerics.sparse.NmPattern;

/**
 * Optimal-brain-surgeon column sweep shared by SparseGPT (pruning) and GPTQ (quantization), for a
 * weight matrix W [rows][K] with calibration inputs of Hessian H (see {@link Hessian}).
 *
 * <p>With U the upper Cholesky factor of {@code (H + λI)⁻¹}, columns i = 0 … K−1 are processed in order.
 * For every row: the weight becomes its target q (0 if pruned, else its quantize–dequantize value, else
 * unchanged), and the error {@code e = (w_i − q) / U_ii} is compensated on the later columns,
 * {@code w_j −= e · U_ij} for j &gt; i. Pruning masks (N:M): when a quantization group (or, without
 * quantization, an N:M group) starts, the masks of the N:M groups it covers are chosen from the current,
 * already-updated weights, keeping per group the N largest {@code w_j² / U_jj²} (SparseGPT's saliency);
 * the last group may be ragged (fewer than M columns; see {@link org.llmnpu.numerics.sparse.NmPruner}).
 * Quantization groups: the scale (and zero point) of a group is fixed when its first column is reached,
 * by {@link WeightQuantizer#params} over the group's current weights with pruned ones as 0 — GPTQ's
 * "static groups off" order; a ragged last group is padded as in {@link QuantizedMatrix}.
 * Fixed zeros ({@code keepZeros}) are pruned positions decided beforehand (e.g. by Wanda), treated
 * like mask entries. Cost: {@code O(rows·K²)} multiply–adds after an {@code O(K³)} factorization.
 */
public final class ObsCompressor {

    /** Result: the effective weights (dequantized, pruned) and, when quantized, the golden quantized matrix. */
    public record Result(float[][] weights, Optional<QuantizedMatrix> quantized) {
    }

    private ObsCompressor() {
    }

    /**
     * @param w         weights [rows][K] (not modified)
     * @param hessian   {@code 2XᵀX/n} of the calibration inputs [K][K]
     * @param pattern   N:M pattern to prune to, or empty
     * @param keepZeros if true, weights that are exactly 0 stay 0 (an earlier pruning's mask)
     * @param scheme    integer scheme to quantize to, or empty
     */
    public static Result run(float[][] w, double[][] hessian, Optional<NmPattern> pattern, boolean keepZeros,
                             Optional<QuantScheme> scheme) {
        int rows = w.length;
        int k = w[0].length;
        if (hessian.length != k) {
            throw new IllegalArgumentException("Hessian is " + hessian.length + " wide, the weights have K = " + k);
        }
        double[][] u = Hessian.inverseCholeskyUpper(hessian, Hessian.DEFAULT_DAMP);
        boolean[] dead = Hessian.deadChannels(hessian);
        double[][] work = new double[rows][k];
        boolean[][] pruned = new boolean[rows][k];
        for (int r = 0; r < rows; r++) {
            for (int c = 0; c < k; c++) {
                work[r][c] = dead[c] ? 0 : w[r][c];
                pruned[r][c] = keepZeros && w[r][c] == 0f;
            }
        }
        int m = pattern.map(NmPattern::m).orElse(1);
        int group = scheme.map(s -> s.effectiveGroup(k)).orElse(0);
        int groupsPerRow = group == 0 ? 0 : (k + group - 1) / group;
        byte[] codes = new byte[rows * k];
        float[] scales = new float[rows * Math.max(groupsPerRow, 1)];
        int[] zeros = new int[scales.length];
        int decidedUpTo = 0;
        WeightQuantizer.GroupParams[] params = new WeightQuantizer.GroupParams[rows];
        float[] buf = new float[k];
        for (int i = 0; i < k; i++) {
            boolean groupStart = group > 0 && i % group == 0;
            if (pattern.isPresent() && i >= decidedUpTo) {
                int end = groupStart ? i + group : i + 1;
                int until = Math.min(k, (end + m - 1) / m * m);
                chooseMasks(work, u, pattern.get(), pruned, decidedUpTo, until);
                decidedUpTo = until;
            }
            if (groupStart) {
                int len = Math.min(group, k - i);
                for (int r = 0; r < rows; r++) {
                    for (int c = i; c < i + len; c++) {
                        buf[c] = pruned[r][c] ? 0f : (float) work[r][c];
                    }
                    params[r] = WeightQuantizer.params(buf, i, len, scheme.get(), 1f);
                    scales[r * groupsPerRow + i / group] = params[r].scale();
                    zeros[r * groupsPerRow + i / group] = params[r].zero();
                }
            }
            double uii = u[i][i];
            for (int r = 0; r < rows; r++) {
                double wi = work[r][i];
                double q;
                if (pruned[r][i]) {
                    q = 0;
                    codes[r * k + i] = (byte) (group > 0 ? WeightQuantizer.code(0f, params[r], scheme.get()) : 0);
                } else if (group > 0) {
                    int code = WeightQuantizer.code((float) wi, params[r], scheme.get());
                    codes[r * k + i] = (byte) code;
                    q = (code - params[r].zero()) * params[r].scale();
                } else {
                    q = wi;
                }
                double err = (wi - q) / uii;
                work[r][i] = q;
                if (err != 0) {
                    double[] ui = u[i];
                    double[] wr = work[r];
                    for (int j = i + 1; j < k; j++) {
                        wr[j] -= err * ui[j];
                    }
                }
            }
        }
        Optional<QuantizedMatrix> qm = scheme.map(s -> new QuantizedMatrix(rows, k, s, codes, scales, zeros));
        float[][] out = qm.isPresent() ? qm.get().dequantize() : new float[rows][k];
        if (qm.isEmpty()) {
            for (int r = 0; r < rows; r++) {
                for (int c = 0; c < k; c++) {
                    out[r][c] = (float) work[r][c];
                }
            }
        }
        return new Result(out, qm);
    }

    /** Masks of the N:M groups in [from, until) ({@code from} a multiple of M): per row, prune the lowest saliencies w²/U_jj². */
    private static void chooseMasks(double[][] work, double[][] u, NmPattern p, boolean[][] pruned, int from, int until) {
        int m = p.m();
        int k = work[0].length;
        for (int g = from; g < until; g += m) {
            int len = Math.min(m, k - g);
            float[] score = new float[len];
            for (int r = 0; r < work.length; r++) {
                for (int j = 0; j < len; j++) {
                    double d = u[g + j][g + j];
                    score[j] = pruned[r][g + j] ? -1f : (float) (work[r][g + j] * work[r][g + j] / (d * d));
                }
                boolean[] keep = org.llmnpu.numerics.sparse.NmPruner.keptPositions(score, 0, len, p.n());
                for (int j = 0; j < len; j++) {
                    if (!keep[j]) {
                        pruned[r][g + j] = true;
                    }
                }
            }
        }
    }
}
