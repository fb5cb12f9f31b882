package org.llmnpu.sw.train;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.llmnpu.sw.model.LayerWeights;

/**
 * LoRA adapters on chosen projection matrices of every layer, trained through the N:M mask: the effective weight is
 * {@code W' = M ⊙ (W + s·B·A)} with {@code s = α/r}, A [r][in] drawn uniformly from ±1/√in, B [out][r] zero (so
 * training starts at the pruned model). Given the gradient {@code G} of the loss w.r.t. W',
 * {@code dB = s·(M⊙G)·Aᵀ} and {@code dA = s·Bᵀ·(M⊙G)}. Merging writes W' into the weights: the dense sum
 * {@code W + s·B·A} breaks the N:M pattern, and the merge prunes it again with the pruning's own mask — the weights
 * the adapters were trained through, so the re-pruning changes nothing training saw.
 */
public final class LoraAdapters {

    private final int[] targets;
    private final double scale;
    /** a[l][j], b[l][j]: the adapters of layer l's j-th target. */
    private final double[][][][] a;
    private final double[][][][] b;

    public LoraAdapters(TrainableWeights base, List<String> targetNames, int rank, double alpha, long seed) {
        List<String> names = List.of(LayerWeights.PROJECTION_NAMES);
        this.targets = targetNames.stream().mapToInt(names::indexOf).sorted().distinct().toArray();
        this.scale = alpha / rank;
        int layers = base.config.layers();
        this.a = new double[layers][targets.length][][];
        this.b = new double[layers][targets.length][][];
        Random random = new Random(seed);
        for (int l = 0; l < layers; l++) {
            for (int j = 0; j < targets.length; j++) {
                double[][] w = base.projections[l][targets[j]];
                int in = w[0].length;
                a[l][j] = new double[rank][in];
                for (double[] row : a[l][j]) {
                    for (int i = 0; i < in; i++) {
                        row[i] = (2 * random.nextDouble() - 1) / Math.sqrt(in);
                    }
                }
                b[l][j] = new double[w.length][rank];
            }
        }
    }

    /** The effective weights {@code M ⊙ (W + s·B·A)} of the targets; other matrices shared with {@code base}. */
    public TrainableWeights effective(TrainableWeights base, boolean[][][][] masks) {
        double[][][][] proj = new double[base.projections.length][][][];
        for (int l = 0; l < proj.length; l++) {
            proj[l] = base.projections[l].clone();
            for (int j = 0; j < targets.length; j++) {
                int m = targets[j];
                proj[l][m] = maskedSum(base.projections[l][m], b[l][j], a[l][j], masks[l][m]);
            }
        }
        return base.withProjections(proj);
    }

    /** The adapters' gradients, in the order of {@link #rows()}, from the gradients of the effective weights. */
    public List<double[]> gradients(TrainableWeights effectiveGrads, boolean[][][][] masks) {
        List<double[]> out = new ArrayList<>();
        for (int l = 0; l < a.length; l++) {
            for (int j = 0; j < targets.length; j++) {
                double[][] g = effectiveGrads.projections[l][targets[j]];
                boolean[][] mask = masks[l][targets[j]];
                double[][] aj = a[l][j];
                double[][] bj = b[l][j];
                int rank = aj.length;
                double[][] dA = new double[rank][aj[0].length];
                double[][] dB = new double[bj.length][rank];
                for (int o = 0; o < g.length; o++) {
                    for (int i = 0; i < g[o].length; i++) {
                        if (!mask[o][i] || g[o][i] == 0) {
                            continue;
                        }
                        double gs = scale * g[o][i];
                        for (int k = 0; k < rank; k++) {
                            dB[o][k] += gs * aj[k][i];
                            dA[k][i] += gs * bj[o][k];
                        }
                    }
                }
                addRows(out, dA);
                addRows(out, dB);
            }
        }
        return out;
    }

    /** Every adapter row (A then B per layer and target): what the optimizer updates. */
    public List<double[]> rows() {
        List<double[]> out = new ArrayList<>();
        for (int l = 0; l < a.length; l++) {
            for (int j = 0; j < targets.length; j++) {
                addRows(out, a[l][j]);
                addRows(out, b[l][j]);
            }
        }
        return out;
    }

    public int parameters() {
        return rows().stream().mapToInt(r -> r.length).sum();
    }

    private double[][] maskedSum(double[][] w, double[][] bj, double[][] aj, boolean[][] mask) {
        double[][] out = new double[w.length][w[0].length];
        for (int o = 0; o < w.length; o++) {
            for (int i = 0; i < w[o].length; i++) {
                if (!mask[o][i]) {
                    continue;
                }
                double delta = 0;
                for (int k = 0; k < aj.length; k++) {
                    delta += bj[o][k] * aj[k][i];
                }
                out[o][i] = w[o][i] + scale * delta;
            }
        }
        return out;
    }

    private static void addRows(List<double[]> out, double[][] m) {
        for (double[] row : m) {
            out.add(row);
        }
    }
}
