package org.llmnpu.sw.compress;

import org.apache.commons.math3.linear.Array2DRowRealMatrix;
import org.apache.commons.math3.linear.CholeskyDecomposition;
import org.apache.commons.math3.linear.NonPositiveDefiniteMatrixException;
import org.apache.commons.math3.linear.RealMatrix;

/**
 * The layer-wise Hessian of the squared output error {@code ‖XWᵀ − XŴᵀ‖²} with respect to a weight row,
 * {@code H = 2XᵀX / n}, from calibration inputs X [n][K], and the factor GPTQ and SparseGPT iterate
 * with: the upper Cholesky factor U of the damped inverse, {@code (H + λI)⁻¹ = UᵀU},
 * {@code λ = damp · mean(diag H)}. An input channel that is always zero gets {@code H_jj = 1} (its
 * weights are then free to change without cost). Solves use Apache Commons Math
 * ({@link CholeskyDecomposition}) in double precision.
 */
public final class Hessian {

    /** GPTQ's default relative damping. */
    public static final double DEFAULT_DAMP = 0.01;

    private Hessian() {
    }

    /** {@code 2XᵀX / n} in double. */
    public static double[][] of(float[][] x) {
        if (x.length == 0) {
            throw new IllegalArgumentException("the Hessian needs at least one calibration sample");
        }
        int k = x[0].length;
        double[][] h = new double[k][k];
        for (float[] row : x) {
            for (int i = 0; i < k; i++) {
                double xi = row[i];
                if (xi == 0) {
                    continue;
                }
                double[] hi = h[i];
                for (int j = i; j < k; j++) {
                    hi[j] += xi * row[j];
                }
            }
        }
        double scale = 2.0 / x.length;
        for (int i = 0; i < k; i++) {
            for (int j = i; j < k; j++) {
                h[i][j] *= scale;
                h[j][i] = h[i][j];
            }
        }
        return h;
    }

    /** Channels whose Hessian diagonal is zero (never active in the calibration set). */
    public static boolean[] deadChannels(double[][] h) {
        boolean[] dead = new boolean[h.length];
        for (int i = 0; i < h.length; i++) {
            dead[i] = h[i][i] == 0;
        }
        return dead;
    }

    /** Upper Cholesky factor U of {@code (H + λI)⁻¹}; retries with 10× damping if H is too ill-conditioned. */
    public static double[][] inverseCholeskyUpper(double[][] h, double damp) {
        int k = h.length;
        double mean = 0;
        for (int i = 0; i < k; i++) {
            mean += h[i][i];
        }
        mean = mean / k;
        if (!(mean > 0)) {
            mean = 1;
        }
        for (int attempt = 0; attempt < 6; attempt++) {
            double lambda = damp * Math.pow(10, attempt) * mean;
            double[][] a = new double[k][k];
            for (int i = 0; i < k; i++) {
                a[i] = h[i].clone();
                if (a[i][i] == 0) {
                    a[i][i] = 1;
                }
                a[i][i] += lambda;
            }
            try {
                RealMatrix inv = new CholeskyDecomposition(new Array2DRowRealMatrix(a, false)).getSolver().getInverse();
                RealMatrix sym = inv.add(inv.transpose()).scalarMultiply(0.5);
                return new CholeskyDecomposition(sym, 1e-9, 1e-14).getLT().getData();
            } catch (NonPositiveDefiniteMatrixException e) {
                // more damping
            }
        }
        throw new IllegalStateException("the calibration Hessian stays singular even with damping " + damp * 1e5);
    }
}
