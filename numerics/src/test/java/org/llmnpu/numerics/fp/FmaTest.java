package org.llmnpu.numerics.fp;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.math.BigDecimal;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.llmnpu.numerics.fp16.Fp16;

/** {@link Fma}: one rounding of the exact a·b + c, against independent references. */
class FmaTest {

    /** Nearest binary16 to an exact value by comparing neighbours in BigDecimal (ties to even mantissa). */
    private static short referenceFp16(BigDecimal exact) {
        if (exact.signum() == 0) {
            return 0;
        }
        BigDecimal overflow = new BigDecimal(65520);
        if (exact.abs().compareTo(overflow) >= 0) {
            return exact.signum() > 0 ? Fp16.POSITIVE_INFINITY : Fp16.NEGATIVE_INFINITY;
        }
        short guess = Fp16.fromDouble(exact.doubleValue());
        short best = guess;
        BigDecimal bestDistance = null;
        for (int delta = -2; delta <= 2; delta++) {
            int code = (guess & 0xFFFF) + delta;
            short candidate = (short) code;
            if (code < 0 || code > 0xFFFF || Fp16.isNaN(candidate) || Fp16.isInfinite(candidate)
                    || Fp16.signBit(candidate) != (exact.signum() < 0) && !Fp16.isZero(candidate)) {
                continue;
            }
            BigDecimal distance = new BigDecimal(Fp16.toDouble(candidate)).subtract(exact).abs();
            int cmp = bestDistance == null ? -1 : distance.compareTo(bestDistance);
            if (cmp < 0 || cmp == 0 && (candidate & 1) == 0) {
                best = candidate;
                bestDistance = distance;
            }
        }
        return best;
    }

    private static BigDecimal exact(short a, short b, short c) {
        return new BigDecimal(Fp16.toDouble(a)).multiply(new BigDecimal(Fp16.toDouble(b)))
                .add(new BigDecimal(Fp16.toDouble(c)));
    }

    private static boolean finite(short x) {
        return !Fp16.isNaN(x) && !Fp16.isInfinite(x);
    }

    private static void checkFp16(short a, short b, short c) {
        short got = Fma.fp16(a, b, c);
        BigDecimal e = exact(a, b, c);
        if (e.signum() == 0) {
            assertEquals(0, got & 0x7FFF, "zero result");
            return;
        }
        assertEquals(referenceFp16(e), got, () -> String.format("fma(%04x, %04x, %04x)", a, b, c));
    }

    @Test
    void fp16FmaIsTheExactResultRoundedOnceOnRandomTriples() {
        Random rnd = new Random(5);
        int checked = 0;
        while (checked < 200_000) {
            short a = (short) rnd.nextInt(65536);
            short b = (short) rnd.nextInt(65536);
            short c = (short) rnd.nextInt(65536);
            if (finite(a) && finite(b) && finite(c)) {
                checkFp16(a, b, c);
                checked++;
            }
        }
    }

    @Test
    void fp16FmaRoundsOnceWhereMulThenAddWouldRoundTwice() {
        Random rnd = new Random(6);
        int differences = 0;
        for (int i = 0; i < 200_000; i++) {
            // operands near 1 and an addend that cancels most of the product: the classic double-rounding case
            short a = (short) (0x3C00 + rnd.nextInt(0x400));
            short b = (short) (0x3800 + rnd.nextInt(0x800));
            short c = Fp16.neg(Fp16.mul(a, b));
            c = (short) (c + rnd.nextInt(5) - 2);
            checkFp16(a, b, c);
            if (Fma.fp16(a, b, c) != Fp16.add(Fp16.mul(a, b), c)) {
                differences++;
            }
        }
        assertEquals(true, differences > 1000, "fused result differs from mul-then-add on " + differences + " triples");
    }

    @Test
    void fp16FmaHandlesSubnormalsOverflowAndSpecials() {
        short tiny = Fp16.MIN_SUBNORMAL;
        Random rnd = new Random(7);
        for (int i = 0; i < 100_000; i++) {
            short a = (short) rnd.nextInt(0x800);
            short b = (short) (rnd.nextInt(0x800) | (rnd.nextBoolean() ? 0x3C00 : 0x2000));
            short c = (short) (rnd.nextInt(0x400) | (rnd.nextBoolean() ? 0x8000 : 0));
            checkFp16(a, b, c);
            short big = (short) (0x7800 + rnd.nextInt(0x3FF));
            checkFp16(big, (short) (0x3C00 + rnd.nextInt(0x400)), (short) rnd.nextInt(0x7C00));
        }
        assertEquals(Fp16.POSITIVE_INFINITY, Fma.fp16(Fp16.MAX_VALUE, Fp16.fromDouble(2), Fp16.NEGATIVE_ZERO));
        assertEquals(Fp16.NaN, Fma.fp16(Fp16.POSITIVE_INFINITY, Fp16.POSITIVE_ZERO, Fp16.ONE));
        assertEquals(Fp16.NaN, Fma.fp16(Fp16.POSITIVE_INFINITY, Fp16.ONE, Fp16.NEGATIVE_INFINITY));
        assertEquals(Fp16.NaN, Fma.fp16(Fp16.ONE, Fp16.ONE, (short) 0x7C01));
        assertEquals(Fp16.NEGATIVE_INFINITY, Fma.fp16(Fp16.NEGATIVE_INFINITY, Fp16.ONE, Fp16.MAX_VALUE));
        assertEquals(Fp16.POSITIVE_INFINITY, Fma.fp16(Fp16.ONE, Fp16.ONE, Fp16.POSITIVE_INFINITY));
        assertEquals(Fp16.NEGATIVE_ZERO, Fma.fp16(Fp16.NEGATIVE_ZERO, Fp16.ONE, Fp16.NEGATIVE_ZERO));
        assertEquals(Fp16.POSITIVE_ZERO, Fma.fp16(Fp16.NEGATIVE_ZERO, Fp16.ONE, Fp16.POSITIVE_ZERO));
        assertEquals(Fp16.POSITIVE_ZERO, Fma.fp16(Fp16.ONE, Fp16.ONE, Fp16.neg(Fp16.ONE)));
        // 2^-24 · 2^-1 is below the smallest subnormal's half: the addend −0 keeps the exact value's sign
        assertEquals(Fp16.NEGATIVE_ZERO, Fma.fp16(Fp16.neg(tiny), Fp16.fromDouble(0.25), Fp16.NEGATIVE_ZERO));
    }

    private static void checkFp32(float a, float b, float c) {
        float expected = Math.fma(a, b, c);
        int want = Float.isNaN(expected) ? 0x7FC00000 : Float.floatToRawIntBits(expected);
        int got = Float.floatToRawIntBits(Fma.fp32(a, b, c));
        assertEquals(want, got, () -> String.format("fma(%a, %a, %a)", a, b, c));
    }

    @Test
    void fp32FmaEqualsJavaMathFmaOnRandomAndTargetedTriples() {
        Random rnd = new Random(8);
        for (int i = 0; i < 300_000; i++) {
            float a = Float.intBitsToFloat(rnd.nextInt());
            float b = Float.intBitsToFloat(rnd.nextInt());
            float c = Float.intBitsToFloat(rnd.nextInt());
            checkFp32(a, b, c);
            float x = 1 + rnd.nextFloat();
            float y = 1 + rnd.nextFloat();
            checkFp32(x, y, -x * y);
            checkFp32(x, y, Math.nextUp(-x * y));
            checkFp32(Float.MIN_VALUE * rnd.nextInt(1 << 20), y, -Float.MIN_NORMAL * rnd.nextFloat());
            checkFp32(Float.MAX_VALUE / y, x, -Float.MAX_VALUE * rnd.nextFloat());
        }
        float[] specials = {0f, -0f, 1f, -1f, Float.MIN_VALUE, -Float.MIN_VALUE, Float.MIN_NORMAL, Float.MAX_VALUE,
            -Float.MAX_VALUE, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, Float.NaN, 0.5f, 3f};
        for (float a : specials) {
            for (float b : specials) {
                for (float c : specials) {
                    checkFp32(a, b, c);
                }
            }
        }
    }
}
