package org.llmnpu.sw.graph;

/**
 * Tile sizes for C[M×N] = A[M×K] · W[K×N] that minimize off-chip traffic under an SRAM budget, found by
 * exhaustive search over candidates (multiples of the array size by powers of two, and the full
 * dimension). Cost model, output-stationary tiles streamed over K: A is read once per N-tile, W once per
 * M-tile, C written once; when K is split ({@code tk < K}) INT32 partial sums spill and are read back,
 * {@code 2·(⌈K/tk⌉−1)·M·N·4} bytes. SRAM holds double-buffered operand tiles and the INT32 accumulators:
 * {@code 2·(tm·tk·a + tk·tn·w) + tm·tn·4 ≤ SRAM}. Ties go to fewer tiles.
 */
public final class GemmTiling {

    /** Chosen tile and the traffic it costs. */
    public record Tile(long tm, long tn, long tk, double trafficBytes) {
    }

    private GemmTiling() {
    }

    public static Tile search(long m, long k, long n, double aBytes, double wBytes, double outBytes, TilingConfig cfg) {
        Tile best = null;
        for (long tm : candidates(m, cfg.arrayRows())) {
            for (long tn : candidates(n, cfg.arrayCols())) {
                for (long tk : candidates(k, cfg.arrayRows())) {
                    double sram = 2 * (tm * tk * aBytes + tk * tn * wBytes) + tm * tn * 4.0;
                    if (sram > cfg.sramBytes()) {
                        continue;
                    }
                    double traffic = m * k * aBytes * ceil(n, tn) + k * n * wBytes * ceil(m, tm) + m * n * outBytes
                            + 2.0 * (ceil(k, tk) - 1) * m * n * 4;
                    if (best == null || traffic < best.trafficBytes - 1e-9
                            || (Math.abs(traffic - best.trafficBytes) <= 1e-9 && tiles(m, n, k, tm, tn, tk) < tiles(m, n, k, best.tm, best.tn, best.tk))) {
                        best = new Tile(tm, tn, tk, traffic);
                    }
                }
            }
        }
        if (best == null) {
            throw new IllegalArgumentException("SRAM of " + cfg.sramBytes() + " bytes cannot hold one " + cfg.arrayRows() + "x"
                    + cfg.arrayCols() + " tile of a " + m + "x" + k + "x" + n + " GEMM");
        }
        return best;
    }

    static long[] candidates(long dim, int unit) {
        java.util.TreeSet<Long> c = new java.util.TreeSet<>();
        c.add(dim);
        for (long v = Math.min(unit, dim); v < dim; v *= 2) {
            c.add(v);
        }
        return c.stream().mapToLong(Long::longValue).toArray();
    }

    static long ceil(long a, long b) {
        return (a + b - 1) / b;
    }

    private static long tiles(long m, long n, long k, long tm, long tn, long tk) {
        return ceil(m, tm) * ceil(n, tn) * ceil(k, tk);
    }
}
