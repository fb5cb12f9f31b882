package org.llmnpu.numerics.requant;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The gemmlowp primitives against their mathematical definitions, computed with big numbers. */
class FixedPointTest {

    @Test
    void doublingHighMulIsFloorOfProductOver2To31PlusHalf() {
        Random rnd = new Random(5);
        for (int i = 0; i < 100_000; i++) {
            int a = i < 50 ? edge(i) : rnd.nextInt();
            int b = i < 50 ? edge(i / 7) : rnd.nextInt();
            if (a == Integer.MIN_VALUE && b == Integer.MIN_VALUE) {
                continue;
            }
            BigInteger twoAb = BigInteger.valueOf(a).multiply(BigInteger.valueOf(b)).shiftLeft(1).add(BigInteger.ONE.shiftLeft(31));
            int expected = twoAb.shiftRight(32).intValueExact(); // shiftRight on BigInteger is floor division
            assertEquals(expected, FixedPoint.saturatingRoundingDoublingHighMul(a, b), a + " * " + b);
        }
    }

    private static int edge(int i) {
        int[] e = {0, 1, -1, 2, -2, Integer.MAX_VALUE, Integer.MIN_VALUE, 1 << 30, -(1 << 30), 12345};
        return e[i % e.length];
    }

    @Test
    void doublingHighMulSaturatesTheOnlyOverflowAndRoundsTiesUp() {
        assertEquals(Integer.MAX_VALUE, FixedPoint.saturatingRoundingDoublingHighMul(Integer.MIN_VALUE, Integer.MIN_VALUE));
        assertEquals(1, FixedPoint.saturatingRoundingDoublingHighMul(1, 1 << 30), "+0.5 -> 1");
        assertEquals(0, FixedPoint.saturatingRoundingDoublingHighMul(-1, 1 << 30), "-0.5 -> 0");
        assertEquals(1 << 29, FixedPoint.saturatingRoundingDoublingHighMul(1 << 30, 1 << 30));
    }

    @Test
    void roundingDivideByPowerOfTwoRoundsHalfAwayFromZero() {
        Random rnd = new Random(6);
        for (int i = 0; i < 100_000; i++) {
            int x = i < 64 ? edge(i) : rnd.nextInt() >> rnd.nextInt(31);
            int e = i % 32;
            int expected = new BigDecimal(x).divide(new BigDecimal(BigInteger.ONE.shiftLeft(e)))
                    .setScale(0, RoundingMode.HALF_UP).intValueExact();
            assertEquals(expected, FixedPoint.roundingDivideByPOT(x, e), x + " / 2^" + e);
        }
        assertEquals(2, FixedPoint.roundingDivideByPOT(3, 1));
        assertEquals(-2, FixedPoint.roundingDivideByPOT(-3, 1));
        assertEquals(-1, FixedPoint.roundingDivideByPOT(Integer.MIN_VALUE, 31));
        assertThrows(IllegalArgumentException.class, () -> FixedPoint.roundingDivideByPOT(1, 32));
    }

    @Test
    void multiplyByQuantizedMultiplierApproximatesTheRealScaleWithinOneLsb() {
        Random rnd = new Random(7);
        for (int i = 0; i < 20_000; i++) {
            double scale = Math.exp(-15 + 17 * rnd.nextDouble());
            QuantizedMultiplier qm = QuantizedMultiplier.fromScale(scale);
            int x = rnd.nextInt(1 << 20) - (1 << 19);
            double real = x * scale;
            int got = FixedPoint.multiplyByQuantizedMultiplier(x, qm.multiplier(), qm.shift());
            assertEquals(real, got, 1.0, "x=" + x + " scale=" + scale);
        }
    }

    @Test
    void leftShiftSaturatesInsteadOfWrapping() {
        assertEquals(Integer.MAX_VALUE, FixedPoint.saturatingLeftShift(1 << 30, 2));
        assertEquals(Integer.MIN_VALUE, FixedPoint.saturatingLeftShift(-(1 << 30), 3));
        assertEquals(-12, FixedPoint.saturatingLeftShift(-3, 2));
        // 2^29 << 4 saturates to 2^31-1; times the Q0.31 multiplier 0.5 gives (2^31-1)/2 rounded up = 2^30.
        assertEquals(1 << 30, FixedPoint.multiplyByQuantizedMultiplier(1 << 29, 1 << 30, 4));
    }

    @Test
    void quantizeMultiplierFollowsTfliteFrexpAndRounding() {
        assertEquals(new QuantizedMultiplier(1 << 30, 0), QuantizedMultiplier.fromScale(0.5));
        assertEquals(new QuantizedMultiplier(1 << 30, 1), QuantizedMultiplier.fromScale(1.0));
        assertEquals(new QuantizedMultiplier(1 << 30, -9), QuantizedMultiplier.fromScale(Math.scalb(1.0, -10)));
        // 1 - 2^-33 rounds up to 2^31, which is renormalised to (2^30, shift + 1).
        assertEquals(new QuantizedMultiplier(1 << 30, 1), QuantizedMultiplier.fromScale(1 - 0x1p-33));
        assertEquals(new QuantizedMultiplier(0, 0), QuantizedMultiplier.fromScale(0x1p-40));
        QuantizedMultiplier third = QuantizedMultiplier.fromScale(1.0 / 3);
        assertEquals(Math.round(2.0 / 3 * 0x1p31), third.multiplier());
        assertEquals(-1, third.shift());
        assertEquals(1.0 / 3, third.realValue(), 0x1p-32);
        var e = assertThrows(IllegalArgumentException.class, () -> QuantizedMultiplier.fromScale(-1));
        assertEquals(0, e.getMessage().indexOf("scale"));
    }
}
