package org.llmnpu.numerics.quant;

import static org.junit.jupiter.api.Assertions.*;

import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.llmnpu.numerics.sparse.NmCompressedMatrix;
import org.llmnpu.numerics.sparse.NmPattern;
import org.llmnpu.numerics.sparse.NmPruner;

/**
 * Groups that do not divide K (stories260K: hidden 172): the last group is padded with zeros. Each
 * format must give exactly what the same matrix padded with zero columns gives, on the real columns.
 */
class RaggedGroupsTest {

    private static float[][] random(int rows, int cols, long seed) {
        Random r = new Random(seed);
        float[][] m = new float[rows][cols];
        for (float[] row : m) {
            for (int c = 0; c < cols; c++) {
                row[c] = (float) (r.nextGaussian() * (c % 7 == 0 ? 3 : 1));
            }
        }
        return m;
    }

    private static float[][] padded(float[][] m, int cols) {
        float[][] p = new float[m.length][];
        for (int r = 0; r < m.length; r++) {
            p[r] = Arrays.copyOf(m[r], cols);
        }
        return p;
    }

    @Test
    void intGroupsOverRaggedKEqualZeroPaddedGroups() {
        for (int k : new int[] {172, 64 + 5, 31, 1}) {
            float[][] w = random(9, k, k);
            for (QuantScheme s : new QuantScheme[] {QuantScheme.parse("int4-g32"), QuantScheme.parse("int4-g32-asym"),
                QuantScheme.parse("int8-g128"), QuantScheme.parse("int3-g5")}) {
                int g = s.effectiveGroup(k);
                int kp = (k + g - 1) / g * g;
                QuantizedMatrix q = WeightQuantizer.quantize(w, s);
                QuantizedMatrix qp = WeightQuantizer.quantize(padded(w, kp), s);
                assertEquals((k + g - 1) / g, q.groupsPerRow(), s + " K=" + k);
                assertArrayEquals(qp.scales(), q.scales(), s + " K=" + k);
                assertArrayEquals(qp.zeroPoints(), q.zeroPoints(), s + " K=" + k);
                for (int r = 0; r < w.length; r++) {
                    for (int c = 0; c < k; c++) {
                        assertEquals(qp.dequantize(r, c), q.dequantize(r, c), s + " K=" + k);
                    }
                }
                long codeBits = (long) w.length * k * s.bits();
                long metaBits = (long) w.length * q.groupsPerRow() * (16 + (s.symmetric() ? 0 : s.bits()));
                assertEquals((codeBits + metaBits + 7) / 8, q.storageBytes(), "padding is not stored");
            }
        }
    }

    @Test
    void nmPruningOverRaggedKEqualsZeroPaddedPruning() {
        for (NmPattern p : NmPattern.values()) {
            for (int k : new int[] {172, 173, 6, 3}) {
                float[][] w = random(11, k, 31 + k);
                int kp = NmPruner.groupsPerRow(k, p) * p.m();
                float[][] pruned = NmPruner.prune(w, p);
                float[][] prunedPadded = NmPruner.prune(padded(w, kp), p);
                for (int r = 0; r < w.length; r++) {
                    assertArrayEquals(Arrays.copyOf(prunedPadded[r], k), pruned[r], p + " K=" + k);
                }
                assertTrue(NmPruner.satisfies(pruned, p));
                int tail = k % p.m();
                if (tail > 0 && tail <= p.n()) {
                    for (float[] row : pruned) {
                        for (int c = k - tail; c < k; c++) {
                            assertNotEquals(0f, row[c], "a short last group of <= N elements keeps them all");
                        }
                    }
                }
            }
        }
    }

    @Test
    void compressedNmLayoutRoundTripsARaggedMatrix() {
        for (NmPattern p : NmPattern.values()) {
            int k = 172;
            Random rnd = new Random(5);
            byte[][] dense = new byte[7][k];
            float[][] f = random(7, k, 9);
            float[][] pruned = NmPruner.prune(f, p);
            for (int r = 0; r < dense.length; r++) {
                for (int c = 0; c < k; c++) {
                    dense[r][c] = (byte) (pruned[r][c] == 0f ? 0 : 1 + rnd.nextInt(100));
                }
            }
            NmCompressedMatrix cm = NmCompressedMatrix.compress(dense, p);
            assertEquals(7 * NmPruner.groupsPerRow(k, p) * p.n(), cm.values().length);
            for (int r = 0; r < dense.length; r++) {
                assertArrayEquals(dense[r], cm.toZeroFilledDense()[r]);
            }
            assertEquals(NmPruner.groupsPerRow(k, p), (k + p.m() - 1) / p.m());
        }
    }
}
