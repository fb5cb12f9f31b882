package org.llmnpu.numerics.gemm;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.Test;

/** Specification of the MAC array's tiled GEMM: numerics, saturation points, psum traffic. */
class TiledGemmTest {

    static byte[][] random(Random rnd, int r, int c) {
        byte[][] a = new byte[r][c];
        for (byte[] row : a) {
            rnd.nextBytes(row);
        }
        return a;
    }

    /** Zeroes the two smallest-magnitude weights of every group of 4 K rows per column. */
    static byte[][] prune24(byte[][] w) {
        byte[][] p = new byte[w.length][];
        for (int k = 0; k < w.length; k++) {
            p[k] = w[k].clone();
        }
        for (int g = 0; g + 4 <= w.length; g += 4) {
            for (int j = 0; j < w[0].length; j++) {
                final int col = j;
                final int base = g;
                Integer[] idx = {0, 1, 2, 3};
                java.util.Arrays.sort(idx, java.util.Comparator.comparingInt(i -> Math.abs(w[base + i][col])));
                p[g + idx[0]][j] = 0;
                p[g + idx[1]][j] = 0;
            }
        }
        return p;
    }

    static byte[][] filled(int r, int c, int v) {
        byte[][] a = new byte[r][c];
        for (byte[] row : a) {
            java.util.Arrays.fill(row, (byte) v);
        }
        return a;
    }

    private static int[][] toInt(long[][] a) {
        int[][] r = new int[a.length][];
        for (int i = 0; i < a.length; i++) {
            r[i] = java.util.Arrays.stream(a[i]).mapToInt(Math::toIntExact).toArray();
        }
        return r;
    }

    @Test
    void withoutSaturationTheTiledResultIsTheExactGemmForRaggedShapesAndEveryIcDepth() {
        Random rnd = new Random(1);
        int[][] shapes = {{1, 1, 1}, {5, 13, 7}, {17, 64, 9}, {33, 1024, 20}, {16, 100, 16}};
        for (int[] s : shapes) {
            byte[][] x = random(rnd, s[0], s[1]);
            byte[][] w = prune24(random(rnd, s[1], s[2]));
            int[][] exact = toInt(IntGemm.exact(x, w));
            assertArrayEquals(exact, IntGemm.gemm(x, w, 32).y());
            for (int depth : new int[] {1, 2, 3, TiledGemmConfig.ALL_K_TILES}) {
                for (Sparsity sp : Sparsity.values()) {
                    var cfg = new TiledGemmConfig(8, 8, 16, 32, depth, sp);
                    TiledGemm.Result r = TiledGemm.run(cfg, x, w);
                    assertArrayEquals(exact, r.y(), "shape " + java.util.Arrays.toString(s) + " depth " + depth);
                    assertFalse(r.overflow());
                }
            }
        }
    }

    @Test
    void psumTrafficEqualsTheFormulaAndCountsNonFinalGroupsOnly() {
        Random rnd = new Random(2);
        for (int k : new int[] {1, 8, 9, 64, 130}) {
            byte[][] x = random(rnd, 19, k);
            byte[][] w = prune24(random(rnd, k, 11));
            for (int depth : new int[] {1, 2, 5, TiledGemmConfig.ALL_K_TILES}) {
                for (Sparsity sp : Sparsity.values()) {
                    var cfg = new TiledGemmConfig(8, 4, 6, 32, depth, sp);
                    TiledGemm.Result r = TiledGemm.run(cfg, x, w);
                    long formula = TiledGemm.psumWritebacks(cfg, 19, k, 11);
                    assertEquals(formula, r.psumWritebacks(), "k=" + k + " depth=" + depth + " " + sp);
                    assertEquals(formula, r.psumReadbacks());
                    assertEquals(19L * 11, r.outputWrites());
                }
            }
        }
        // K = 64 on 8 rows: 8 K tiles; depth 1 writes back 7 partials per output, depth 3 writes 2, all writes 0.
        assertEquals(7L * 10 * 10, TiledGemm.psumWritebacks(TiledGemmConfig.defaults(1), 10, 64, 10));
        assertEquals(2L * 10 * 10, TiledGemm.psumWritebacks(TiledGemmConfig.defaults(3), 10, 64, 10));
        assertEquals(0L, TiledGemm.psumWritebacks(TiledGemmConfig.defaults(TiledGemmConfig.ALL_K_TILES), 10, 64, 10));
        assertEquals(0L, TiledGemm.psumWritebacks(TiledGemmConfig.defaults(1), 10, 0, 10), "K = 0 has one empty group");
        // 2:4 halves the K tiles: 4 tiles -> 3 write-backs per output at depth 1.
        assertEquals(3L * 100, TiledGemm.psumWritebacks(new TiledGemmConfig(8, 8, 16, 32, 1, Sparsity.S2_4), 10, 64, 10));
    }

    @Test
    void allMinus128InputsFitInInt32ForK1024AndSaturateA24BitAccumulator() {
        byte[][] x = filled(3, 1024, -128);
        byte[][] w = filled(1024, 2, -128);
        TiledGemm.Result wide = TiledGemm.run(new TiledGemmConfig(8, 8, 16, 32, 1, Sparsity.NONE), x, w);
        assertEquals(1024 * 16384, wide.y()[2][1]);
        assertFalse(wide.overflow());
        TiledGemm.Result narrow = TiledGemm.run(new TiledGemmConfig(8, 8, 16, 24, 1, Sparsity.NONE), x, w);
        assertEquals((1 << 23) - 1, narrow.y()[0][0]);
        assertTrue(narrow.overflow());
    }

    @Test
    void saturationIsAppliedOncePerKTileNotPerMac() {
        // One K tile of four products +16129, +16129, +16129, -16129 into a 16-bit accumulator.
        byte[][] x = {{127, 127, 127, 127}};
        byte[][] w = {{127}, {127}, {127}, {-127}};
        var cfg = new TiledGemmConfig(4, 1, 1, 16, 1, Sparsity.NONE);
        TiledGemm.Result tiled = TiledGemm.run(cfg, x, w);
        assertEquals(32258, tiled.y()[0][0], "the exact column sum 32258 fits: no clamp");
        assertFalse(tiled.overflow());
        GemmResult perMac = IntGemm.gemm(x, w, 16);
        assertEquals(32767 - 16129, perMac.y()[0][0], "per MAC: 48387 clamps to 32767 before the negative product");
        assertTrue(perMac.overflow());
        // Two tiles: tile 0 sums to 64516 and clamps; tile 1 (-64516) is added to the clamped value.
        byte[][] x2 = {{127, 127, 127, 127, 127, 127, 127, 127}};
        byte[][] w2 = {{127}, {127}, {127}, {127}, {-127}, {-127}, {-127}, {-127}};
        TiledGemm.Result twoTiles = TiledGemm.run(cfg, x2, w2);
        assertEquals(32767 - 64516, twoTiles.y()[0][0]);
        assertTrue(twoTiles.overflow());
    }

    @Test
    void stickyFlagSurvivesARecoveryAndIcDepthDoesNotChangeSaturatedResults() {
        Random rnd = new Random(3);
        byte[][] x = random(rnd, 9, 200);
        byte[][] w = random(rnd, 200, 5);
        TiledGemm.Result reference = TiledGemm.run(new TiledGemmConfig(8, 8, 4, 18, 1, Sparsity.NONE), x, w);
        assertTrue(reference.overflow(), "an 18-bit accumulator overflows on K=200 random INT8");
        for (int depth : new int[] {2, 7, TiledGemmConfig.ALL_K_TILES}) {
            TiledGemm.Result r = TiledGemm.run(new TiledGemmConfig(8, 3, 5, 18, depth, Sparsity.NONE), x, w);
            assertArrayEquals(reference.y(), r.y());
            assertTrue(r.overflow());
        }
    }

    @Test
    void accumulatorSaturatesBothWaysAndKeepsItsFlagUntilReset() {
        SaturatingAccumulator acc = new SaturatingAccumulator(8);
        acc.add(200);
        assertEquals(127, acc.value());
        acc.add(-100);
        assertEquals(27, acc.value());
        assertTrue(acc.overflow());
        acc.add(-1000);
        assertEquals(-128, acc.value());
        acc.reset();
        assertFalse(acc.overflow());
        assertEquals(Integer.MAX_VALUE, SaturatingAccumulator.saturatingAdd(Integer.MAX_VALUE, 1, 32));
        assertTrue(SaturatingAccumulator.overflows(Integer.MIN_VALUE, -1, 32));
    }

    @Test
    void sparse24ModeRejectsWeightsThatAreNot24Sparse() {
        byte[][] w = {{1}, {2}, {3}, {0}};
        var e = assertThrows(IllegalArgumentException.class,
                () -> TiledGemm.run(new TiledGemmConfig(2, 1, 1, 32, 1, Sparsity.S2_4), new byte[][] {{1, 1, 1, 1}}, w));
        assertTrue(e.getMessage().contains("column 0 has 3 non-zeros in K rows 0..3"));
        assertEquals(6, TiledGemm.run(new TiledGemmConfig(2, 1, 1, 32, 1, Sparsity.NONE), new byte[][] {{1, 1, 1, 1}}, w).y()[0][0]);
    }

    @Test
    void sparse48ModeAllowsFourOfEightAndRejectsFive() {
        byte[][] x = {{1, 1, 1, 1, 1, 1, 1, 1, 1, 1}};
        // 4 non-zeros in K rows 0..3: not 2:4, but 4:8; the ragged second group (rows 8..9) holds 2.
        byte[][] w = {{1}, {2}, {3}, {4}, {0}, {0}, {0}, {0}, {5}, {6}};
        TiledGemmConfig s48 = new TiledGemmConfig(4, 1, 1, 32, 1, Sparsity.S4_8);
        assertEquals(21, TiledGemm.run(s48, x, w).y()[0][0]);
        assertEquals(8, s48.kPerTile());
        assertEquals(2, s48.kTiles(10));
        var e = assertThrows(IllegalArgumentException.class,
                () -> TiledGemm.run(new TiledGemmConfig(4, 1, 1, 32, 1, Sparsity.S2_4), x, w));
        assertTrue(e.getMessage().contains("not 2:4 sparse"), e.getMessage());
        byte[][] five = {{1}, {0}, {1}, {0}, {1}, {0}, {1}, {1}, {0}, {0}};
        e = assertThrows(IllegalArgumentException.class, () -> TiledGemm.run(s48, x, five));
        assertTrue(e.getMessage().contains("not 4:8 sparse: column 0 has 5 non-zeros in K rows 0..7"), e.getMessage());
    }

    @Test
    void configRejectsBadParametersNamingThem() {
        var e = assertThrows(IllegalArgumentException.class, () -> new TiledGemmConfig(0, 8, 16, 32, 1, Sparsity.NONE));
        assertTrue(e.getMessage().startsWith("rows"));
        e = assertThrows(IllegalArgumentException.class, () -> new TiledGemmConfig(8, 8, 16, 33, 1, Sparsity.NONE));
        assertTrue(e.getMessage().startsWith("accWidth"));
        e = assertThrows(IllegalArgumentException.class, () -> new TiledGemmConfig(8, 8, 16, 32, 0, Sparsity.NONE));
        assertTrue(e.getMessage().startsWith("icAccumDepth"));
        e = assertThrows(IllegalArgumentException.class, () -> IntGemm.gemm(new byte[][] {{1, 2}}, new byte[][] {{1}}, 32));
        assertTrue(e.getMessage().contains("K = 1"));
    }
}
