package org.llmnpu.numerics.vector;

import java.util.function.DoubleUnaryOperator;
import org.apache.commons.math3.linear.Array2DRowRealMatrix;
import org.apache.commons.math3.linear.ArrayRealVector;
import org.apache.commons.math3.linear.LUDecomposition;
import org.apache.commons.math3.linear.RealVector;
import org.llmnpu.numerics.fp16.Fp16;

/**
 * A piecewise polynomial with FP16 coefficients evaluated in FP16 arithmetic — the DSP's PPU
 * path for the seed approximations of exp, reciprocal and reciprocal square root.
 *
 * <p><b>Evaluation</b> of an FP16 {@code v}: segment {@code s} = the last segment whose start is
 * ≤ v (segment 0 below the first start); {@code u = Fp16.sub(v, start[s])}; Horner
 * {@code acc = c[s][d]}, then {@code acc = Fp16.fma(acc, u, c[s][k])} for k = d−1 … 0: each
 * Horner step is one fused multiply-add rounded once to nearest even (the DSP's {@code FMA16}). Segment starts are FP16 values
 * chosen so the hardware finds the segment from exponent/mantissa bits.
 *
 * <p><b>Fitting</b> ({@link #interpolate}): on each segment [a, a+w) the polynomial in u = v − a
 * interpolating f at the {@code degree+1} Chebyshev nodes of the segment (solved with Apache
 * Commons Math), each coefficient rounded once to FP16.
 */
public final class SegmentedPolynomial {
    private final short[] starts;
    private final short[][] coefficients;

    /** A table from explicit FP16 starts (strictly increasing) and coefficients [segment][k]. */
    public SegmentedPolynomial(short[] starts, short[][] coefficients) {
        if (starts.length == 0 || starts.length != coefficients.length) {
            throw new IllegalArgumentException("starts and coefficients must have the same non-zero length, got "
                    + starts.length + " and " + coefficients.length);
        }
        for (int s = 1; s < starts.length; s++) {
            if (!(Fp16.toDouble(starts[s]) > Fp16.toDouble(starts[s - 1]))) {
                throw new IllegalArgumentException("starts[" + s + "] must be greater than starts[" + (s - 1) + "]");
            }
        }
        this.starts = starts.clone();
        this.coefficients = new short[coefficients.length][];
        for (int s = 0; s < coefficients.length; s++) {
            this.coefficients[s] = coefficients[s].clone();
        }
    }

    /** Interpolating table of f on [lo, lo + segments·width), degree {@code degree} per segment. */
    public static SegmentedPolynomial interpolate(DoubleUnaryOperator f, double lo, double width, int segments, int degree) {
        short[] starts = new short[segments];
        short[][] coeffs = new short[segments][];
        for (int s = 0; s < segments; s++) {
            double a = lo + s * width;
            starts[s] = Fp16.fromDouble(a);
            if (Fp16.toDouble(starts[s]) != a) {
                throw new IllegalArgumentException("segment start " + a + " is not an FP16 value");
            }
            coeffs[s] = fitSegment(f, a, width, degree);
        }
        return new SegmentedPolynomial(starts, coeffs);
    }

    private static short[] fitSegment(DoubleUnaryOperator f, double a, double width, int degree) {
        int n = degree + 1;
        double[][] vandermonde = new double[n][n];
        double[] y = new double[n];
        for (int j = 0; j < n; j++) {
            double node = width / 2 * (1 - StrictMath.cos(Math.PI * (2 * j + 1) / (2 * n)));
            double p = 1;
            for (int k = 0; k < n; k++) {
                vandermonde[j][k] = p;
                p *= node;
            }
            y[j] = f.applyAsDouble(a + node);
        }
        RealVector c = new LUDecomposition(new Array2DRowRealMatrix(vandermonde, false)).getSolver()
                .solve(new ArrayRealVector(y, false));
        short[] out = new short[n];
        for (int k = 0; k < n; k++) {
            out[k] = Fp16.fromDouble(c.getEntry(k));
        }
        return out;
    }

    /** Number of segments. */
    public int segments() {
        return starts.length;
    }

    /** FP16 start of segment s. */
    public short start(int s) {
        return starts[s];
    }

    /** FP16 coefficient of u^k in segment s. */
    public short coefficient(int s, int k) {
        return coefficients[s][k];
    }

    /** Degree of segment s. */
    public int degree(int s) {
        return coefficients[s].length - 1;
    }

    /** Segment index of v (see class comment). */
    public int segmentOf(short v) {
        int s = 0;
        for (int i = 1; i < starts.length; i++) {
            if (Fp16.le(starts[i], v)) {
                s = i;
            }
        }
        return s;
    }

    /** FP16 evaluation (see class comment). */
    public short evaluate(short v) {
        int s = segmentOf(v);
        short u = Fp16.sub(v, starts[s]);
        short[] c = coefficients[s];
        short acc = c[c.length - 1];
        for (int k = c.length - 2; k >= 0; k--) {
            acc = Fp16.fma(acc, u, c[k]);
        }
        return acc;
    }
}
