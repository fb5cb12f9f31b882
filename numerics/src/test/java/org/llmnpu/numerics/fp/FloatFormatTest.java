package org.llmnpu.numerics.fp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The element formats of OCP MX v1.0 and IEEE binary16, checked over every code. */
class FloatFormatTest {

    private static final List<FloatFormat> ALL = List.of(FloatFormat.FP16, FloatFormat.FP8_E4M3,
            FloatFormat.FP8_E5M2, FloatFormat.FP6_E3M2, FloatFormat.FP6_E2M3, FloatFormat.FP4_E2M1);

    @Test
    void largestFiniteValuesAreThoseOfTheOcpAndIeeeSpecs() {
        assertEquals(65504.0, FloatFormat.FP16.maxFinite());
        assertEquals(448.0, FloatFormat.FP8_E4M3.maxFinite());
        assertEquals(57344.0, FloatFormat.FP8_E5M2.maxFinite());
        assertEquals(28.0, FloatFormat.FP6_E3M2.maxFinite());
        assertEquals(7.5, FloatFormat.FP6_E2M3.maxFinite());
        assertEquals(6.0, FloatFormat.FP4_E2M1.maxFinite());
    }

    @Test
    void fp4E2M1PositiveCodesDecodeToTheSpecTable() {
        double[] expected = {0, 0.5, 1, 1.5, 2, 3, 4, 6};
        for (int c = 0; c < 8; c++) {
            assertEquals(expected[c], FloatFormat.FP4_E2M1.decode(c), "code " + c);
            assertEquals(-expected[c], FloatFormat.FP4_E2M1.decode(c | 8), "code " + (c | 8));
        }
    }

    @Test
    void smallestSubnormalsMatchTheSpec() {
        assertEquals(Math.scalb(1.0, -24), FloatFormat.FP16.decode(1));
        assertEquals(Math.scalb(1.0, -9), FloatFormat.FP8_E4M3.decode(1));
        assertEquals(Math.scalb(1.0, -16), FloatFormat.FP8_E5M2.decode(1));
        assertEquals(0.0625, FloatFormat.FP6_E3M2.decode(1));
        assertEquals(0.125, FloatFormat.FP6_E2M3.decode(1));
    }

    @Test
    void specialCodesAreExactlyThoseOfTheSpec() {
        assertEquals(2, countNaN(FloatFormat.FP8_E4M3));
        assertTrue(FloatFormat.FP8_E4M3.isNaN(0x7F) && FloatFormat.FP8_E4M3.isNaN(0xFF));
        assertEquals(6, countNaN(FloatFormat.FP8_E5M2));
        assertTrue(FloatFormat.FP8_E5M2.isInfinite(0x7C) && FloatFormat.FP8_E5M2.isInfinite(0xFC));
        assertEquals(2046, countNaN(FloatFormat.FP16));
        assertEquals(0, countNaN(FloatFormat.FP6_E3M2) + countNaN(FloatFormat.FP6_E2M3) + countNaN(FloatFormat.FP4_E2M1));
        assertEquals(0x7E00, FloatFormat.FP16.nanCode());
        assertEquals(0x7F, FloatFormat.FP8_E4M3.nanCode());
        assertEquals(0x7E, FloatFormat.FP8_E5M2.nanCode());
        assertEquals(0x7FC00000, FloatFormat.FP32.nanCode());
    }

    private static int countNaN(FloatFormat f) {
        int n = 0;
        for (int c = 0; c < f.codeCount(); c++) {
            n += f.isNaN(c) ? 1 : 0;
        }
        return n;
    }

    @Test
    void everyNonNaNCodeRoundTripsThroughItsValue() {
        for (FloatFormat f : ALL) {
            for (int c = 0; c < f.codeCount(); c++) {
                if (!f.isNaN(c)) {
                    assertEquals(c, f.encode(f.decode(c)), f.name() + " code " + c);
                }
            }
        }
    }

    @Test
    void positiveCodesAreOrderedByValue() {
        for (FloatFormat f : ALL) {
            int half = f.codeCount() / 2;
            for (int c = 1; c < half; c++) {
                if (!f.isNaN(c)) {
                    assertTrue(f.decode(c) > f.decode(c - 1), f.name() + " code " + c);
                }
            }
        }
    }

    @Test
    void midpointsRoundToEvenAndAnythingOffTheMidpointToTheNearer() {
        for (FloatFormat f : ALL) {
            int half = f.codeCount() / 2;
            for (int c = 0; c + 1 < half; c++) {
                if (f.isNaN(c + 1) || f.isInfinite(c + 1)) {
                    continue;
                }
                double lo = f.decode(c);
                double hi = f.decode(c + 1);
                double mid = (lo + hi) / 2;
                int even = (c & 1) == 0 ? c : c + 1;
                assertEquals(even, f.encode(mid, Rounding.NEAREST_EVEN, Overflow.SATURATE), f.name() + " mid " + mid);
                assertEquals(c + 1, f.encode(mid, Rounding.NEAREST_AWAY, Overflow.SATURATE), f.name() + " mid " + mid);
                assertEquals(c, f.encode(Math.nextDown(hi), Rounding.TOWARD_ZERO, Overflow.SATURATE));
                assertEquals(c, f.encode(Math.nextDown(mid), Rounding.NEAREST_EVEN, Overflow.SATURATE));
                assertEquals(c + 1, f.encode(Math.nextUp(mid), Rounding.NEAREST_EVEN, Overflow.SATURATE));
                assertEquals(c + 1 + half, f.encode(-Math.nextUp(mid), Rounding.NEAREST_EVEN, Overflow.SATURATE));
            }
        }
    }

    @Test
    void overflowSaturatesOrGoesToInfinityOrNaNAsTheFormatDefines() {
        assertEquals(0x7BFF, FloatFormat.FP16.encode(65519.99, Rounding.NEAREST_EVEN, Overflow.INFINITY));
        assertEquals(0x7C00, FloatFormat.FP16.encode(65520.0, Rounding.NEAREST_EVEN, Overflow.INFINITY));
        assertEquals(0x7BFF, FloatFormat.FP16.encode(1e9, Rounding.NEAREST_EVEN, Overflow.SATURATE));
        assertEquals(0xFBFF, FloatFormat.FP16.encode(Double.NEGATIVE_INFINITY, Rounding.NEAREST_EVEN, Overflow.SATURATE));
        assertEquals(0x7E, FloatFormat.FP8_E4M3.encode(464.0, Rounding.NEAREST_EVEN, Overflow.SATURATE));
        // 464 is the tie between 448 (mantissa 110, even) and the NaN slot 480: RNE keeps 448.
        assertEquals(0x7E, FloatFormat.FP8_E4M3.encode(464.0, Rounding.NEAREST_EVEN, Overflow.INFINITY));
        assertEquals(0x7F, FloatFormat.FP8_E4M3.encode(464.5, Rounding.NEAREST_EVEN, Overflow.INFINITY));
        assertEquals(0x7F, FloatFormat.FP8_E4M3.encode(464.0, Rounding.NEAREST_AWAY, Overflow.INFINITY));
        assertEquals(0x7, FloatFormat.FP4_E2M1.encode(100.0, Rounding.NEAREST_EVEN, Overflow.SATURATE));
        assertThrows(IllegalArgumentException.class,
                () -> FloatFormat.FP4_E2M1.encode(100.0, Rounding.NEAREST_EVEN, Overflow.INFINITY));
        assertThrows(IllegalArgumentException.class, () -> FloatFormat.FP6_E2M3.encode(Double.NaN));
    }

    @Test
    void tinyValuesUnderflowGraduallyAndKeepTheirSign() {
        assertEquals(0x0000, FloatFormat.FP16.encode(Math.scalb(1.0, -25)));
        assertEquals(0x0001, FloatFormat.FP16.encode(Math.nextUp(Math.scalb(1.0, -25))));
        assertEquals(0x8000, FloatFormat.FP16.encode(-1e-30));
        assertEquals(0x8, FloatFormat.FP4_E2M1.encode(-0.25));
        assertEquals(0x9, FloatFormat.FP4_E2M1.encode(-0.2500001));
    }

    @Test
    void wideExactValuesRoundWithAStickyBit() {
        // (2^70 + 2^46 + 1) * 2^-70 = 1 + 2^-24 + 2^-70: just above the fp32 midpoint, so it rounds up;
        // without the trailing 1 it is an exact tie and goes to the even neighbour 1.0.
        BigInteger v = BigInteger.ONE.shiftLeft(70).add(BigInteger.ONE.shiftLeft(46)).add(BigInteger.ONE);
        int code = FloatFormat.FP32.roundExact(v, -70, Rounding.NEAREST_EVEN, Overflow.INFINITY);
        assertEquals(Float.floatToIntBits(Math.nextUp(1.0f)), code);
        BigInteger tie = BigInteger.ONE.shiftLeft(70).add(BigInteger.ONE.shiftLeft(46));
        assertEquals(Float.floatToIntBits(1.0f), FloatFormat.FP32.roundExact(tie, -70, Rounding.NEAREST_EVEN, Overflow.INFINITY));
    }

    @Test
    void fp32RoundingAgreesWithTheJavaFloatCastOnRandomDoubles() {
        java.util.Random rnd = new java.util.Random(7);
        for (int i = 0; i < 200_000; i++) {
            double x = Double.longBitsToDouble(rnd.nextLong());
            if (Double.isNaN(x)) {
                continue;
            }
            assertEquals(Float.floatToRawIntBits((float) x), FloatFormat.FP32.encode(x), "x=" + x);
        }
    }

    @Test
    void invalidParametersAreRejectedWithTheirName() {
        var e = assertThrows(IllegalArgumentException.class, () -> new FloatFormat("x", 0, 2, 1, FloatFormat.Specials.NONE));
        assertTrue(e.getMessage().contains("exponentBits"));
    }
}
