package org.llmnpu.numerics.quant;

import static org.junit.jupiter.api.Assertions.*;

import java.util.Random;
import org.junit.jupiter.api.Test;

class WeightQuantizerTest {

    private static float[][] randomMatrix(int rows, int cols, long seed) {
        Random rnd = new Random(seed);
        float[][] w = new float[rows][cols];
        for (float[] row : w) {
            for (int c = 0; c < cols; c++) {
                row[c] = (float) rnd.nextGaussian();
            }
        }
        return w;
    }

    @Test
    void symmetricRoundTripErrorIsAtMostHalfAScale() {
        float[][] w = randomMatrix(8, 64, 1);
        for (QuantScheme s : new QuantScheme[] {QuantScheme.perChannel(8, true), QuantScheme.perGroup(4, true, 16)}) {
            QuantizedMatrix q = WeightQuantizer.quantize(w, s);
            for (int r = 0; r < 8; r++) {
                for (int c = 0; c < 64; c++) {
                    float scale = q.scales()[r * q.groupsPerRow() + c / s.effectiveGroup(64)];
                    assertTrue(Math.abs(w[r][c] - q.dequantize(r, c)) <= scale / 2 + 1e-6f, s + " at " + r + "," + c);
                    assertTrue(q.code(r, c) >= s.minCode() && q.code(r, c) <= s.maxCode());
                }
            }
        }
    }

    @Test
    void asymmetricInt8UsesUnsignedCodesAndKeepsZeroExact() {
        float[][] w = randomMatrix(4, 32, 2);
        for (float[] row : w) {
            row[3] = 0f;
            row[5] = Math.abs(row[5]) + 3f;
        }
        QuantizedMatrix q = WeightQuantizer.quantize(w, QuantScheme.perChannel(8, false));
        boolean sawHighCode = false;
        for (int r = 0; r < 4; r++) {
            assertEquals(0f, q.dequantize(r, 3), "a zero weight must dequantize to exactly zero");
            for (int c = 0; c < 32; c++) {
                sawHighCode |= q.code(r, c) > 127;
                assertTrue(Math.abs(w[r][c] - q.dequantize(r, c)) <= q.scales()[r] / 2 + 1e-5f);
            }
        }
        assertTrue(sawHighCode, "asymmetric INT8 codes must use the range 128..255");
    }

    @Test
    void smallerGroupsGiveSmallerInt4Error() {
        float[][] w = randomMatrix(16, 128, 3);
        w[2][7] = 25f; // an outlier hurts the whole channel when the scale is per-channel
        double perChannel = mse(w, WeightQuantizer.quantize(w, QuantScheme.perChannel(4, true)));
        double perGroup = mse(w, WeightQuantizer.quantize(w, QuantScheme.perGroup(4, true, 32)));
        assertTrue(perGroup < perChannel, "g32 " + perGroup + " vs per-channel " + perChannel);
    }

    @Test
    void groupSizeThatDoesNotDivideTheRowGivesAPaddedLastGroup() {
        QuantizedMatrix q = WeightQuantizer.quantize(randomMatrix(2, 48, 4), QuantScheme.perGroup(4, true, 32));
        assertEquals(2, q.groupsPerRow());
        assertEquals(4, q.scales().length);
    }

    @Test
    void parsesSchemeNames() {
        assertEquals(new QuantScheme(4, true, 32), QuantScheme.parse("int4-g32"));
        assertEquals(new QuantScheme(8, false, 0), QuantScheme.parse("int8-asym"));
        assertEquals("int4-g32-asym", QuantScheme.parse("INT4-g32-asym").toString());
        assertThrows(IllegalArgumentException.class, () -> QuantScheme.parse("int9"));
        assertThrows(IllegalArgumentException.class, () -> QuantScheme.parse("fp4"));
    }

    @Test
    void scalesAreFp16Values() {
        QuantizedMatrix q = WeightQuantizer.quantize(randomMatrix(4, 64, 6), QuantScheme.perGroup(4, false, 16));
        for (float s : q.scales()) {
            assertEquals(Fp16Rounding.round(s), s);
        }
    }

    @Test
    void storageCountsPackedCodesAndFp16Scales() {
        QuantizedMatrix q = WeightQuantizer.quantize(randomMatrix(4, 64, 5), QuantScheme.perGroup(4, true, 32));
        assertEquals((4 * 64 * 4 + 8 * 16) / 8, q.storageBytes());
    }

    static double mse(float[][] w, QuantizedMatrix q) {
        double s = 0;
        for (int r = 0; r < w.length; r++) {
            for (int c = 0; c < w[0].length; c++) {
                double d = w[r][c] - q.dequantize(r, c);
                s += d * d;
            }
        }
        return s / (w.length * w[0].length);
    }
}
