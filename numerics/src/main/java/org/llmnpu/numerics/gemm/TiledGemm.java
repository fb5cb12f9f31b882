package org.llmnpu.numerics.gemm;

/**
 * Golden model of the MAC array's tiled GEMM with extended input-channel accumulation, bit
 * exact with the RTL, including where saturation happens and how many partial sums travel.
 *
 * <p><b>Tiling.</b> K is cut into {@code kTiles = ceil(K / kPerTile)} tiles of {@code kPerTile}
 * ({@code rows}, or {@code 2·rows} with 2:4 or 4:8 sparsity; the last tile is ragged). For one output
 * element the K tiles are processed in order 0, 1, …; they are grouped in runs of
 * {@code icAccumDepth} consecutive tiles ({@code kGroups = ceil(kTiles / icAccumDepth)} groups).
 *
 * <p><b>Numerics.</b> Inside a K tile the PE column sums its products exactly (the column adder
 * chain is wide enough: at most {@code 2·rows·2^14} in magnitude, so it never saturates). The
 * periphery accumulator then performs one saturating addition per K tile:
 * {@code acc = clamp(acc + tilePsum)} to the signed {@code accWidth}-bit range, with the sticky
 * overflow flag set when a clamp changes the sum. That is the only place saturation is applied.
 * A write-back stores the accumulator value (already in range) and the read-back restores it
 * unchanged, so the result does <em>not</em> depend on {@code icAccumDepth}, {@code mTile} or
 * {@code cols}; only the traffic does. With no saturation the result equals the exact GEMM and
 * {@link IntGemm#gemm}; under saturation the two may differ (per-tile vs per-MAC clamping).
 *
 * <p><b>Traffic</b> (counted in elements of {@code accWidth} bits, independent of loop order as
 * long as each output's K tiles are folded in consecutive groups): every group but the last ends
 * with a partial-sum write-back of the output element, and every group but the first starts with
 * its read-back, so {@code psumWritebacks = psumReadbacks = (kGroups − 1) · M · N}; the final
 * results add {@code M · N} output writes. {@link #psumWritebacks} is that formula; {@link #run}
 * counts the events while it computes.
 */
public final class TiledGemm {
    private TiledGemm() {
    }

    /** Result: outputs, sticky overflow (OR over all accumulators), and counted traffic. */
    public record Result(int[][] y, boolean overflow, long psumWritebacks, long psumReadbacks, long outputWrites) {
    }

    /** Formula: partial-sum elements written back (and read back) for an M×K×N GEMM. */
    public static long psumWritebacks(TiledGemmConfig config, int m, int k, int n) {
        return (config.kGroups(k) - 1) * (long) m * n;
    }

    /**
     * Runs the tiled GEMM of INT8 {@code x} (M×K) and {@code w} (K×N). With an N:M sparsity
     * ({@link Sparsity#S2_4}, {@link Sparsity#S4_8}), {@code w} is the zero-filled dense form of
     * N:M-pruned weights: every group of M consecutive K rows starting at a multiple of M must hold
     * at most N non-zeros per column (checked).
     */
    public static Result run(TiledGemmConfig config, byte[][] x, byte[][] w) {
        int k = IntGemm.checkShapes(x, w);
        if (config.sparsity() != Sparsity.NONE) {
            checkNm(w, config.sparsity());
        }
        int m = x.length;
        int n = k == 0 ? 0 : w[0].length;
        int kPerTile = config.kPerTile();
        long kTiles = config.kTiles(k);
        long depth = Math.min(config.icAccumDepth(), Math.max(kTiles, 1));
        int[][] y = new int[m][n];
        long[][] psumMemory = new long[m][n];
        boolean overflow = false;
        long writebacks = 0;
        long readbacks = 0;
        long outputs = 0;
        SaturatingAccumulator acc = new SaturatingAccumulator(config.accWidth());
        for (int n0 = 0; n0 < n; n0 += config.cols()) {
            int n1 = Math.min(n, n0 + config.cols());
            for (int m0 = 0; m0 < m; m0 += config.mTile()) {
                int m1 = Math.min(m, m0 + config.mTile());
                for (long g0 = 0; g0 < Math.max(kTiles, 1); g0 += depth) {
                    long g1 = Math.min(kTiles, g0 + depth);
                    boolean firstGroup = g0 == 0;
                    boolean lastGroup = g1 >= kTiles;
                    for (int i = m0; i < m1; i++) {
                        for (int j = n0; j < n1; j++) {
                            acc.reset();
                            if (!firstGroup) {
                                acc.load(psumMemory[i][j]);
                                readbacks++;
                            }
                            for (long t = g0; t < g1; t++) {
                                acc.add(tilePsum(x[i], w, j, (int) t * kPerTile, Math.min(k, (int) (t + 1) * kPerTile)));
                            }
                            overflow |= acc.overflow();
                            if (lastGroup) {
                                y[i][j] = acc.value();
                                outputs++;
                            } else {
                                psumMemory[i][j] = acc.value();
                                writebacks++;
                            }
                        }
                    }
                }
            }
        }
        return new Result(y, overflow, writebacks, readbacks, outputs);
    }

    /** Throws if some column has more than N non-zeros in a group of M K rows (N:M of {@code s}). */
    static void checkNm(byte[][] w, Sparsity s) {
        int n = w.length == 0 ? 0 : w[0].length;
        int group = s.group();
        for (int g = 0; g < w.length; g += group) {
            for (int j = 0; j < n; j++) {
                int nonZeros = 0;
                for (int kk = g; kk < Math.min(w.length, g + group); kk++) {
                    nonZeros += w[kk][j] != 0 ? 1 : 0;
                }
                if (nonZeros > s.kept()) {
                    throw new IllegalArgumentException("w is not " + s.pattern() + " sparse: column " + j + " has "
                            + nonZeros + " non-zeros in K rows " + g + ".." + Math.min(w.length - 1, g + group - 1));
                }
            }
        }
    }

    /** Exact column sum of one K tile for one output: {@code Σ_{k0 ≤ k < k1} x[k]·w[k][col]}. */
    public static long tilePsum(byte[] xRow, byte[][] w, int col, int k0, int k1) {
        long s = 0;
        for (int kk = k0; kk < k1; kk++) {
            s += xRow[kk] * w[kk][col];
        }
        return s;
    }
}
