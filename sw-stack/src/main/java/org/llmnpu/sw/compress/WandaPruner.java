package org.llmnpu.sw.compress;

import org.llmnpu.numerics.sparse.NmPattern;
import org.llmnpu.numerics.sparse.NmPruner;

/**
 * Wanda N:M pruning (pruning by weights and activations): weight {@code w_ij} scores
 * {@code |w_ij| · ‖x_j‖₂}, the L2 norm of input channel j over the calibration inputs, and every group of
 * M along K keeps its N best scores ({@link NmPruner#pruneRowByScore}, ragged last group included). No
 * weight is updated; with no calibration samples it falls back to magnitude pruning.
 */
public final class WandaPruner {

    private WandaPruner() {
    }

    public static float[][] prune(float[][] w, float[][] samples, NmPattern pattern) {
        if (samples == null) {
            return NmPruner.prune(w, pattern);
        }
        int k = w[0].length;
        double[] sq = new double[k];
        for (float[] x : samples) {
            if (x.length != k) {
                throw new IllegalArgumentException("calibration input width " + x.length + " must equal K = " + k);
            }
            for (int j = 0; j < k; j++) {
                sq[j] += (double) x[j] * x[j];
            }
        }
        float[] norm = new float[k];
        for (int j = 0; j < k; j++) {
            norm[j] = (float) Math.sqrt(sq[j]);
        }
        float[][] out = new float[w.length][];
        float[] score = new float[k];
        for (int r = 0; r < w.length; r++) {
            for (int j = 0; j < k; j++) {
                score[j] = Math.abs(w[r][j]) * norm[j];
            }
            out[r] = NmPruner.pruneRowByScore(w[r], score, pattern);
        }
        return out;
    }
}
