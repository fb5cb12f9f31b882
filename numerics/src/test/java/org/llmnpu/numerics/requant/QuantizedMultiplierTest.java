package org.llmnpu.numerics.requant;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@link QuantizedMultiplier#fromScale} at the ends of its range, where the rounding carry moves the
 * shift, and on many scales against an exact computation with big decimals.
 */
class QuantizedMultiplierTest {
    private static final BigInteger TWO_TO_31 = BigInteger.ONE.shiftLeft(31);

    @Test
    void theCarryAtTheTopOfTheRangeGivesShift31() {
        assertEquals(new QuantizedMultiplier(1 << 30, 31), QuantizedMultiplier.fromScale(0x1.fffffffffffffp+29));
        assertEquals(new QuantizedMultiplier(1 << 30, 31), QuantizedMultiplier.fromScale(0x1p30 - 0.25));
        assertEquals(new QuantizedMultiplier(Integer.MAX_VALUE, 30), QuantizedMultiplier.fromScale(Math.nextDown(0x1p30 - 0.25)));
        assertEquals(new QuantizedMultiplier(1 << 30, 31), QuantizedMultiplier.fromScale(0x1p30));
        assertEquals(new QuantizedMultiplier(Integer.MAX_VALUE, 31),
                QuantizedMultiplier.fromScale(Math.nextDown(QuantizedMultiplier.SCALE_LIMIT)));
    }

    @Test
    void aScaleThatWouldNeedShift32IsRefusedWithItsValue() {
        for (double scale : new double[] {QuantizedMultiplier.SCALE_LIMIT, 0x1p31, 1e12, Double.POSITIVE_INFINITY,
                Double.NaN, -1e-9}) {
            var e = assertThrows(IllegalArgumentException.class, () -> QuantizedMultiplier.fromScale(scale));
            assertTrue(e.getMessage().startsWith("scale must be finite and in [0, 2^31 - 0.5)"), e.getMessage());
            assertTrue(e.getMessage().endsWith("got " + scale), e.getMessage());
        }
    }

    @Test
    void theCarryAtTheBottomGivesShiftMinus31AndSmallerScalesFlushToZero() {
        assertEquals(new QuantizedMultiplier(1 << 30, -31), QuantizedMultiplier.fromScale(Math.nextDown(0x1p-32)));
        assertEquals(new QuantizedMultiplier(1 << 30, -31), QuantizedMultiplier.fromScale(0x1p-32));
        assertEquals(new QuantizedMultiplier(0, 0), QuantizedMultiplier.fromScale(0x1.8p-33));
        assertEquals(new QuantizedMultiplier(0, 0), QuantizedMultiplier.fromScale(Double.MIN_VALUE));
        assertEquals(new QuantizedMultiplier(0, 0), QuantizedMultiplier.fromScale(0));
    }

    @Test
    void shift31RequantizesAsALeftShiftBy31() {
        QuantizedMultiplier top = QuantizedMultiplier.fromScale(0x1p30);
        assertEquals(1 << 30, FixedPoint.multiplyByQuantizedMultiplier(1, top.multiplier(), top.shift()));
        assertEquals(-(1 << 30), FixedPoint.multiplyByQuantizedMultiplier(-1, top.multiplier(), top.shift()));
        assertEquals(0, FixedPoint.multiplyByQuantizedMultiplier(0, top.multiplier(), top.shift()));
        // 3·2^31 saturates to 2^31 − 1 before the multiplier (2^31 − 1)/2^31: 2^31 − 2 after rounding
        assertEquals(Integer.MAX_VALUE - 1, FixedPoint.multiplyByQuantizedMultiplier(3, Integer.MAX_VALUE, 31));
        assertEquals(0x1p30, top.realValue());
    }

    @Test
    void everyScaleEqualsTheExactRoundedEncoding() {
        Random rnd = new Random(33);
        int refused = 0;
        int carried = 0;
        for (int i = 0; i < 40_000; i++) {
            double scale = randomScale(rnd);
            QuantizedMultiplier expected = exactEncoding(scale);
            if (expected == null) {
                refused++;
                assertThrows(IllegalArgumentException.class, () -> QuantizedMultiplier.fromScale(scale), "scale " + scale);
                continue;
            }
            carried += expected.multiplier() == 1 << 30 && scale != expected.realValue() ? 1 : 0;
            assertEquals(expected, QuantizedMultiplier.fromScale(scale), "scale " + scale);
        }
        // the sample reaches the carry and the refused top, not just the easy middle
        assertTrue(carried > 1_000 && refused > 100, "carried " + carried + ", refused " + refused);
    }

    /**
     * A scale from one of four families: log-uniform over [2^-42, 2^31), a few ulps around a carry
     * ({@code 2^k·(1 − 2^-32)}, where {@code q·2^31} is {@code 2^31 − 1/2}), a few ulps around a
     * rounding tie of the multiplier, or around a power of two.
     */
    private static double randomScale(Random rnd) {
        int k = rnd.nextInt(74) - 42;
        double base = switch (rnd.nextInt(4)) {
            case 0 -> Math.scalb(1 + rnd.nextDouble(), k);
            case 1 -> Math.scalb(1 - 0x1p-32, k + 1);
            case 2 -> Math.scalb((1L << 30) + rnd.nextInt(1 << 30) + 0.5, k - 30);
            default -> Math.scalb(1.0, k);
        };
        int ulps = rnd.nextInt(7) - 3;
        for (int u = 0; u < Math.abs(ulps); u++) {
            base = ulps > 0 ? Math.nextUp(base) : Math.nextDown(base);
        }
        return base;
    }

    /**
     * The encoding computed exactly: the exponent e with 2^(e−1) ≤ scale &lt; 2^e found by comparing
     * big decimals, the multiplier {@code scale·2^(31−e)} rounded half up, a multiplier of 2^31
     * renormalised to (2^30, e + 1), e &lt; −31 flushed to (0, 0); null for an e above 31.
     */
    private static QuantizedMultiplier exactEncoding(double scale) {
        BigDecimal s = new BigDecimal(scale);
        int e = 0;
        while (s.compareTo(powerOfTwo(e)) >= 0) {
            e++;
        }
        while (e > -45 && s.compareTo(powerOfTwo(e - 1)) < 0) {
            e--;
        }
        if (e == -45) {
            return new QuantizedMultiplier(0, 0); // scale < 2^-46: far below the flush bound 2^-32
        }
        BigInteger m = s.multiply(powerOfTwo(31 - e)).setScale(0, RoundingMode.HALF_UP).toBigIntegerExact();
        if (m.equals(TWO_TO_31)) {
            m = m.shiftRight(1);
            e++;
        }
        if (e < -31) {
            return new QuantizedMultiplier(0, 0);
        }
        return e > 31 ? null : new QuantizedMultiplier(m.intValueExact(), e);
    }

    private static BigDecimal powerOfTwo(int e) {
        return e >= 0 ? new BigDecimal(BigInteger.ONE.shiftLeft(e)) : new BigDecimal(BigInteger.valueOf(5).pow(-e), -e);
    }
}
