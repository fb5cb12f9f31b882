package org.llmnpu.numerics.fp16;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** IEEE binary16 semantics of {@link Fp16}: conversions, arithmetic, comparisons, specials. */
class Fp16Test {

    private static short h(int bits) {
        return (short) bits;
    }

    @Test
    void everyCodeConvertsToFp32AndBackUnchangedExceptNaNWhichBecomesCanonical() {
        for (int c = 0; c < 65536; c++) {
            short x = h(c);
            short back = Fp16.fromFloat(Fp16.toFloat(x));
            if (Fp16.isNaN(x)) {
                assertEquals(Fp16.NaN, back);
            } else {
                assertEquals(x, back, "code " + Integer.toHexString(c));
            }
        }
    }

    @Test
    void specialValuesHaveTheirIeeeBitPatterns() {
        assertEquals(h(0x3C00), Fp16.fromDouble(1.0));
        assertEquals(h(0xC000), Fp16.fromDouble(-2.0));
        assertEquals(h(0x7BFF), Fp16.fromDouble(65504.0));
        assertEquals(h(0x7C00), Fp16.fromDouble(1e6));
        assertEquals(h(0x8000), Fp16.fromDouble(-0.0));
        assertEquals(h(0x0001), Fp16.fromDouble(Math.scalb(1.0, -24)));
        assertEquals(h(0x0400), Fp16.fromDouble(Math.scalb(1.0, -14)));
        assertEquals(h(0x3555), Fp16.fromDouble(1.0 / 3));
        assertEquals(Fp16.NaN, Fp16.fromFloat(Float.NaN));
    }

    @Test
    void fp32ToFp16RoundsOnceNotViaAnIntermediate() {
        // 1 + 2^-11 + 2^-23 is just above the fp16 midpoint between 1 and 1+2^-10; it must round up.
        float justAboveTie = 1.0f + (float) Math.scalb(1.0, -11) + (float) Math.scalb(1.0, -23);
        assertEquals(h(0x3C01), Fp16.fromFloat(justAboveTie));
        assertEquals(h(0x3C00), Fp16.fromFloat(1.0f + (float) Math.scalb(1.0, -11)));
    }

    @Test
    void addSubMulAreCorrectlyRoundedOnRandomPairs() {
        Random rnd = new Random(11);
        for (int i = 0; i < 200_000; i++) {
            short a = h(rnd.nextInt(65536));
            short b = h(rnd.nextInt(65536));
            if (Fp16.isNaN(a) || Fp16.isNaN(b) || Fp16.isInfinite(a) || Fp16.isInfinite(b)) {
                continue;
            }
            BigDecimal x = new BigDecimal(Fp16.toDouble(a));
            BigDecimal y = new BigDecimal(Fp16.toDouble(b));
            assertNearest(x.add(y), Fp16.add(a, b));
            assertNearest(x.subtract(y), Fp16.sub(a, b));
            assertNearest(x.multiply(y), Fp16.mul(a, b));
        }
    }

    /** The result is a nearest FP16 value to the exact one (or the right overflow), checked without rounding code. */
    private static void assertNearest(BigDecimal exact, short got) {
        if (Fp16.isInfinite(got)) {
            assertTrue(exact.abs().compareTo(new BigDecimal(65520)) >= 0, "overflow only at or beyond 65520: " + exact);
            return;
        }
        BigDecimal g = new BigDecimal(Fp16.toDouble(got));
        BigDecimal err = exact.subtract(g).abs();
        for (int step : new int[] {-1, 1}) {
            short neighbour = (short) (got + step);
            if ((got & 0x7FFF) == 0 && step == -1) {
                neighbour = (short) ((got ^ 0x8000) + 1);
            }
            if (Fp16.isNaN(neighbour) || Fp16.isInfinite(neighbour)) {
                continue;
            }
            BigDecimal other = exact.subtract(new BigDecimal(Fp16.toDouble(neighbour))).abs();
            assertTrue(err.compareTo(other) <= 0, "exact " + exact + " got " + g + " but neighbour closer");
            if (err.compareTo(other) == 0 && err.signum() != 0) {
                assertEquals(0, got & 1, "ties go to the even code at " + exact);
            }
        }
    }

    @Test
    void ieeeSpecialArithmetic() {
        assertEquals(Fp16.NaN, Fp16.add(Fp16.POSITIVE_INFINITY, Fp16.NEGATIVE_INFINITY));
        assertEquals(Fp16.NaN, Fp16.mul(Fp16.POSITIVE_INFINITY, Fp16.POSITIVE_ZERO));
        assertEquals(Fp16.NaN, Fp16.add(h(0x7C01), Fp16.ONE));
        assertEquals(Fp16.POSITIVE_ZERO, Fp16.add(Fp16.ONE, Fp16.neg(Fp16.ONE)));
        assertEquals(Fp16.NEGATIVE_ZERO, Fp16.add(Fp16.NEGATIVE_ZERO, Fp16.NEGATIVE_ZERO));
        assertEquals(Fp16.NEGATIVE_ZERO, Fp16.mul(Fp16.NEGATIVE_ZERO, Fp16.ONE));
        assertEquals(Fp16.POSITIVE_INFINITY, Fp16.add(Fp16.MAX_VALUE, Fp16.fromDouble(16)));
        assertEquals(Fp16.MAX_VALUE, Fp16.add(Fp16.MAX_VALUE, Fp16.fromDouble(15)));
        assertEquals(Fp16.MIN_SUBNORMAL, Fp16.mul(Fp16.MIN_NORMAL, Fp16.fromDouble(Math.scalb(1.0, -10))));
        assertEquals(Fp16.NEGATIVE_INFINITY, Fp16.div(Fp16.neg(Fp16.ONE), Fp16.POSITIVE_ZERO));
        assertEquals(Fp16.NaN, Fp16.sqrt(Fp16.neg(Fp16.ONE)));
        assertEquals(Fp16.NEGATIVE_ZERO, Fp16.sqrt(Fp16.NEGATIVE_ZERO));
    }

    @Test
    void comparisonsAreUnorderedWithNaNAndTreatSignedZerosAsEqual() {
        assertEquals(Fp16.Ordering.UNORDERED, Fp16.compare(Fp16.NaN, Fp16.NaN));
        assertFalse(Fp16.eq(Fp16.NaN, Fp16.NaN));
        assertFalse(Fp16.lt(Fp16.NaN, Fp16.ONE) || Fp16.le(Fp16.ONE, Fp16.NaN));
        assertTrue(Fp16.eq(Fp16.POSITIVE_ZERO, Fp16.NEGATIVE_ZERO));
        assertTrue(Fp16.lt(Fp16.NEGATIVE_INFINITY, Fp16.fromDouble(-65504)));
        assertTrue(Fp16.le(Fp16.ONE, Fp16.ONE));
        assertTrue(Fp16.lt(Fp16.MIN_SUBNORMAL, Fp16.MIN_NORMAL));
    }

    @Test
    void minMaxIgnoreASingleNaNAndOrderSignedZeros() {
        short two = Fp16.fromDouble(2);
        assertEquals(two, Fp16.max(Fp16.NaN, two));
        assertEquals(two, Fp16.min(two, Fp16.NaN));
        assertEquals(Fp16.NaN, Fp16.max(h(0x7D00), h(0xFE01)));
        assertEquals(Fp16.POSITIVE_ZERO, Fp16.max(Fp16.NEGATIVE_ZERO, Fp16.POSITIVE_ZERO));
        assertEquals(Fp16.POSITIVE_ZERO, Fp16.max(Fp16.POSITIVE_ZERO, Fp16.NEGATIVE_ZERO));
        assertEquals(Fp16.NEGATIVE_ZERO, Fp16.min(Fp16.POSITIVE_ZERO, Fp16.NEGATIVE_ZERO));
        assertEquals(Fp16.NEGATIVE_ZERO, Fp16.min(Fp16.NEGATIVE_ZERO, Fp16.POSITIVE_ZERO));
        assertEquals(Fp16.POSITIVE_INFINITY, Fp16.max(Fp16.POSITIVE_INFINITY, Fp16.MAX_VALUE));
        assertEquals(Fp16.neg(two), Fp16.min(Fp16.neg(two), Fp16.ONE));
    }

    @Test
    void toIntMultipliesByTheInverseScaleRoundsHalfEvenAndSaturates() {
        short inv4 = Fp16.fromDouble(4);
        assertEquals(2, Fp16.toInt(Fp16.fromDouble(0.625), inv4, IntFormat.INT8)); // 2.5 -> 2
        assertEquals(4, Fp16.toInt(Fp16.fromDouble(0.875), inv4, IntFormat.INT8)); // 3.5 -> 4
        assertEquals(-2, Fp16.toInt(Fp16.fromDouble(-0.625), inv4, IntFormat.INT8));
        assertEquals(127, Fp16.toInt(Fp16.fromDouble(1000), inv4, IntFormat.INT8));
        assertEquals(-128, Fp16.toInt(Fp16.NEGATIVE_INFINITY, inv4, IntFormat.INT8));
        assertEquals(32767, Fp16.toInt(Fp16.MAX_VALUE, Fp16.ONE, IntFormat.INT16));
        assertEquals(65504 * 4, Fp16.toInt(Fp16.MAX_VALUE, inv4, IntFormat.INT32));
        assertEquals(Integer.MAX_VALUE, Fp16.toInt(Fp16.MAX_VALUE, Fp16.MAX_VALUE, IntFormat.INT32));
        assertEquals(0, Fp16.toInt(Fp16.NaN, inv4, IntFormat.INT32));
    }

    @Test
    void fromIntScalesAndRoundsOnce() {
        short quarter = Fp16.fromDouble(0.25);
        assertEquals(Fp16.fromDouble(-32), Fp16.fromInt(-128, quarter));
        assertEquals(Fp16.fromDouble(2049), Fp16.fromInt(2049, Fp16.ONE)); // tie 2049 -> 2048 (even)
        assertEquals(Fp16.fromDouble(2048), Fp16.fromInt(2049, Fp16.ONE));
        assertEquals(h(0x6802), Fp16.fromInt(2051, Fp16.ONE)); // tie 2051 -> 2052
        assertEquals(Fp16.POSITIVE_INFINITY, Fp16.fromInt(Integer.MAX_VALUE, Fp16.ONE));
        for (int q = -128; q <= 127; q++) {
            assertEquals(q / 64.0, Fp16.toDouble(Fp16.fromInt(q, Fp16.fromDouble(1.0 / 64))), "INT8 is exact in FP16");
        }
    }

    @Test
    void ulpErrorIsMeasuredAtTheReferenceBinade() {
        assertEquals(0.0, Fp16.ulpError(Fp16.ONE, 1.0));
        assertEquals(1.0, Fp16.ulpError(h(0x3C01), 1.0));
        assertEquals(0.5, Fp16.ulpError(Fp16.ONE, 1.0 + Math.scalb(1.0, -11)));
        assertEquals(1.0, Fp16.ulpError(Fp16.MIN_SUBNORMAL, 0.0));
        assertEquals(0.0, Fp16.ulpError(Fp16.POSITIVE_INFINITY, 70000.0));
        assertEquals(Double.POSITIVE_INFINITY, Fp16.ulpError(Fp16.NaN, 1.0));
    }
}
