package org.llmnpu.numerics.pim;

import java.math.BigInteger;
import org.llmnpu.numerics.fp.FloatFormat;

/**
 * Golden model of the PiM macro's FP GEMM {@code Y[M×N] = X[M×K] · W[K×N]} on FP8 weight codes and
 * FP8, BF16 or MX-block inputs ({@link PimInputFormat}; an MX scale is folded into its elements'
 * biased exponents, so every formula below holds with {@code eb_x} the scaled exponent), bit exact
 * with the RTL: the same bits dropped (pre-alignment), the same accumulator, the same saturation.
 *
 * <p><b>Row groups.</b> K is cut into {@code ceil(K / rows)} row groups (the last one ragged, padded
 * with +0 codes, which change nothing). For one output element the groups are folded in order into a
 * signed {@link PimFpConfig#accWidth()}-bit accumulator whose unit is {@code 2^accExponent}; one
 * saturating addition per group ({@code acc = clamp(acc + contribution)}, sticky overflow).
 *
 * <p><b>Contribution of a group</b>, with {@link PimFpFields} {@code (±s, eb)} per code:
 * <ul>
 *   <li>POST: {@code Σ_k ±(s_x · s_w) << (eb_x + eb_w − 2)} — every product aligned on its own,
 *       exact (the accumulator unit is the smallest product quantum);</li>
 *   <li>PRE: the input vector and each weight column are {@link PimPrealign aligned} to their group
 *       maximum ({@code X_k}, {@code ebX}; {@code W_kj}, {@code ebW_j}), then
 *       {@code (Σ_k X_k · W_kj) << (ebX + ebW_j − 2)}.</li>
 * </ul>
 * Specials (NaN/Inf) enter as zero and set {@link Result#special()}.
 *
 * <p><b>Traffic</b>: as the INT array, groups are folded {@code icAccumDepth} at a time, so
 * {@code psumWritebacks = psumReadbacks = (ceil(kTiles / icAccumDepth) − 1) · M · N}; the
 * write-back/read-back restores the accumulator unchanged, so the result does not depend on it.
 */
public final class PimFpGemm {
    private PimFpGemm() {
    }

    /**
     * Accumulators (units of {@code 2^accExponent}), the sticky flags and the counted traffic.
     */
    public record Result(BigInteger[][] acc, int accExponent, boolean overflow, boolean special,
                         long psumWritebacks, long psumReadbacks) {

        /** The value of output (i, j) as a double (NaN when a special was seen). */
        public double value(int i, int j) {
            return special ? Double.NaN : Math.scalb(acc[i][j].doubleValue(), accExponent);
        }
    }

    /** Runs the GEMM on input codes {@code x} (M×K, not block-scaled) and weight codes {@code w} (K×N). */
    public static Result run(PimFpConfig config, int[][] x, int[][] w) {
        return run(config, x, null, w);
    }

    /**
     * Runs the GEMM on input codes {@code x} (M×K) of {@code config.input()}, with, for MX inputs,
     * the E8M0 scales {@code xScales} (M×ceil(K/32): block b of row i covers K elements
     * {@code 32b .. 32b+31}), and weight codes {@code w} (K×N) of {@code config.format()}.
     */
    public static Result run(PimFpConfig config, int[][] x, int[][] xScales, int[][] w) {
        checkScales(config.input(), x, xScales);
        int m = x.length;
        int k = m == 0 ? 0 : x[0].length;
        if (w.length != k) {
            throw new IllegalArgumentException("X is " + m + "x" + k + " but W has " + w.length + " rows");
        }
        int n = k == 0 ? 0 : w[0].length;
        int rows = config.rows();
        int tiles = Math.max(1, (k + rows - 1) / rows);
        int accWidth = config.accWidth();
        BigInteger max = BigInteger.ONE.shiftLeft(accWidth - 1).subtract(BigInteger.ONE);
        BigInteger min = max.negate().subtract(BigInteger.ONE);
        BigInteger[][] acc = new BigInteger[m][n];
        boolean overflow = false;
        boolean special = false;
        for (int i = 0; i < m; i++) {
            for (int j = 0; j < n; j++) {
                acc[i][j] = BigInteger.ZERO;
            }
        }
        for (int t = 0; t < tiles; t++) {
            int k0 = t * rows;
            int k1 = Math.min(k, k0 + rows);
            Group g = new Group(config, w, k0, k1, n);
            special |= g.weightSpecial;
            for (int i = 0; i < m; i++) {
                GroupInput in = new GroupInput(config, x[i], xScales == null ? null : xScales[i], k0, k1);
                special |= in.special;
                for (int j = 0; j < n; j++) {
                    BigInteger sum = acc[i][j].add(g.contribution(in, j));
                    if (sum.compareTo(max) > 0 || sum.compareTo(min) < 0) {
                        overflow = true;
                        sum = sum.signum() > 0 ? max : min;
                    }
                    acc[i][j] = sum;
                }
            }
        }
        long groups = (tiles + (long) config.icAccumDepth() - 1) / config.icAccumDepth();
        long traffic = (groups - 1) * (long) m * n;
        return new Result(acc, config.accExponent(), overflow, special, traffic, traffic);
    }

    private static void checkScales(PimInputFormat f, int[][] x, int[][] xScales) {
        if (!f.blockScaled()) {
            return;
        }
        if (xScales == null || xScales.length != x.length) {
            throw new IllegalArgumentException(f.name() + " inputs need one row of E8M0 scales per input row");
        }
        for (int i = 0; i < x.length; i++) {
            if (xScales[i].length != f.scalesPerRow(x[i].length)) {
                throw new IllegalArgumentException(f.name() + " input row " + i + " has " + x[i].length
                    + " elements and needs " + f.scalesPerRow(x[i].length) + " scales, got " + xScales[i].length);
            }
        }
    }

    /** Exact double-precision reference of decoded input codes (scaled, for MX) times weight codes. */
    public static double[][] reference(PimInputFormat input, FloatFormat format, int[][] x, int[][] xScales,
                                       int[][] w) {
        int m = x.length;
        int k = m == 0 ? 0 : x[0].length;
        int n = k == 0 ? 0 : w[0].length;
        double[][] y = new double[m][n];
        for (int i = 0; i < m; i++) {
            for (int j = 0; j < n; j++) {
                double s = 0;
                for (int kk = 0; kk < k; kk++) {
                    int scale = input.blockScaled() ? xScales[i][kk / PimInputFormat.BLOCK] : 0;
                    s += input.value(x[i][kk], scale) * format.decode(w[kk][j]);
                }
                y[i][j] = s;
            }
        }
        return y;
    }

    /** Exact double-precision reference {@code Σ_k x·w} of decoded codes (for error figures). */
    public static double[][] reference(FloatFormat format, int[][] x, int[][] w) {
        int m = x.length;
        int k = m == 0 ? 0 : x[0].length;
        int n = k == 0 ? 0 : w[0].length;
        double[][] y = new double[m][n];
        for (int i = 0; i < m; i++) {
            for (int j = 0; j < n; j++) {
                double s = 0;
                for (int kk = 0; kk < k; kk++) {
                    s += format.decode(x[i][kk]) * format.decode(w[kk][j]);
                }
                y[i][j] = s;
            }
        }
        return y;
    }

    /** One row group's input vector as the array sees it. */
    private static final class GroupInput {
        final PimFpFields[] fields;
        final PimPrealign.Aligned aligned;
        final boolean special;

        GroupInput(PimFpConfig c, int[] row, int[] scales, int k0, int k1) {
            PimInputFormat f = c.input();
            fields = new PimFpFields[k1 - k0];
            boolean s = false;
            for (int i = 0; i < fields.length; i++) {
                int kk = k0 + i;
                fields[i] = f.fields(row[kk], f.blockScaled() ? scales[kk / PimInputFormat.BLOCK] : 0);
                s |= fields[i].special();
            }
            special = s;
            aligned = c.alignment() == PimAlignment.PRE ? PimPrealign.align(fields, f.mantissaBits(), c.alignBits()) : null;
        }
    }

    /** One row group's weights as stored in the bitcells (aligned per column for PRE). */
    private static final class Group {
        final PimFpConfig config;
        final PimFpFields[][] fields;
        final PimPrealign.Aligned[] columns;
        final boolean weightSpecial;

        Group(PimFpConfig c, int[][] w, int k0, int k1, int n) {
            config = c;
            fields = new PimFpFields[k1 - k0][n];
            boolean s = false;
            for (int r = k0; r < k1; r++) {
                for (int j = 0; j < n; j++) {
                    fields[r - k0][j] = PimFpFields.of(c.format(), w[r][j]);
                    s |= fields[r - k0][j].special();
                }
            }
            weightSpecial = s;
            columns = new PimPrealign.Aligned[n];
            if (c.alignment() == PimAlignment.PRE) {
                for (int j = 0; j < n; j++) {
                    int[] col = new int[k1 - k0];
                    for (int r = k0; r < k1; r++) {
                        col[r - k0] = w[r][j];
                    }
                    columns[j] = PimPrealign.align(c.format(), col, c.alignBits());
                }
            }
        }

        BigInteger contribution(GroupInput in, int j) {
            if (config.alignment() == PimAlignment.PRE) {
                int[] xs = in.aligned.ints();
                int[] ws = columns[j].ints();
                long sum = 0;
                for (int r = 0; r < xs.length; r++) {
                    sum += (long) xs[r] * ws[r];
                }
                int shift = in.aligned.maxBiasedExponent() + columns[j].maxBiasedExponent() - 2;
                return BigInteger.valueOf(sum).shiftLeft(shift);
            }
            BigInteger sum = BigInteger.ZERO;
            for (int r = 0; r < fields.length; r++) {
                PimFpFields a = in.fields[r];
                PimFpFields b = fields[r][j];
                long p = (long) a.significand() * b.significand();
                if (p != 0) {
                    BigInteger v = BigInteger.valueOf(a.negative() != b.negative() ? -p : p);
                    sum = sum.add(v.shiftLeft(a.biasedExponent() + b.biasedExponent() - 2));
                }
            }
            return sum;
        }
    }
}
