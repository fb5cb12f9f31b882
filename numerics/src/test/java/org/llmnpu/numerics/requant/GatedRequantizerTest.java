package org.llmnpu.numerics.requant;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.math.MathContext;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.llmnpu.numerics.ppu.Ppm;

/** The gated PPM requantization: INT32 accumulator × INT8 gate code → INT8, the SwiGLU gate's golden. */
class GatedRequantizerTest {

    private static RequantParams params(int multiplier, int shift, int zeroPoint) {
        return new RequantParams(new QuantizedMultiplier(multiplier, shift), zeroPoint, OutputFormat.INT8,
                Activation.NONE, 0);
    }

    /** The exact real value {@code (acc + bias) · gate · M · 2^(shift − 38) + zp} before any rounding (no saturation). */
    private static double exact(int acc, int gate, int bias, RequantParams p) {
        BigDecimal s = BigDecimal.valueOf((long) acc + bias);
        BigDecimal scale = new BigDecimal(Math.scalb((double) p.multiplier().multiplier(), p.multiplier().shift() - 38));
        return s.multiply(BigDecimal.valueOf(gate)).multiply(scale, MathContext.DECIMAL128).doubleValue()
                + p.outputZeroPoint();
    }

    @Test
    void randomElementsAreWithinOneLsbOfTheExactProductAndClampedToInt8() {
        Random rnd = new Random(3101);
        for (int i = 0; i < 200_000; i++) {
            int shift = rnd.nextInt(24) - 20;
            RequantParams p = params((1 << 30) + rnd.nextInt(1 << 30), shift, rnd.nextInt(21) - 10);
            int acc = rnd.nextInt(1 << 22) - (1 << 21);
            int gate = rnd.nextInt(256) - 128;
            int bias = rnd.nextInt(2001) - 1000;
            int q = GatedRequantizer.requantize(acc, gate, bias, p);
            double ideal = Math.max(-128, Math.min(127, exact(acc, gate, bias, p)));
            assertTrue(Math.abs(q - ideal) <= 1.0, "acc=" + acc + " gate=" + gate + " shift=" + shift + " q=" + q
                    + " ideal=" + ideal);
            assertEquals(q, Ppm.processGated(acc, gate, bias, p));
        }
    }

    @Test
    void eachStageIsTheRequantizersStageThenTheGateProductShiftedBySevenMoreBits() {
        Random rnd = new Random(3102);
        for (int i = 0; i < 50_000; i++) {
            int shift = rnd.nextInt(40) - 31;
            int m = rnd.nextBoolean() ? 0 : (1 << 30) + rnd.nextInt(1 << 30);
            RequantParams p = params(m, Math.max(shift, QuantizedMultiplier.MIN_SHIFT), rnd.nextInt(256) - 128);
            int acc = rnd.nextInt();
            int gate = rnd.nextInt(256) - 128;
            int sh = p.multiplier().shift();
            int t = FixedPoint.saturatingRoundingDoublingHighMul(
                    FixedPoint.saturatingLeftShift(acc, Math.max(sh, 0)), m);
            long v = FixedPoint.roundingDivideByPOT((long) t * gate, Math.max(-sh, 0) + 7) + p.outputZeroPoint();
            assertEquals((int) Math.max(-128, Math.min(127, v)), GatedRequantizer.requantize(acc, gate, 0, p));
        }
    }

    @Test
    void cornerCasesGateMinus128ZeroGateSaturationAndZeroPoint() {
        // multiplier 2^30, shift 1: M·2^(shift−31) = 1, so the code is (acc · gate / 128) rounded
        RequantParams unit = params(1 << 30, 1, 0);
        assertEquals(-100, GatedRequantizer.requantize(100, -128, 0, unit));
        assertEquals(100, GatedRequantizer.requantize(-100, -128, 0, unit));
        assertEquals(-128, GatedRequantizer.requantize(128, -128, 0, unit));
        assertEquals(127, GatedRequantizer.requantize(-129, -128, 0, unit));
        // ties away from zero: 3·64/128 = 1.5 → 2, −1.5 → −2
        assertEquals(2, GatedRequantizer.requantize(3, 64, 0, unit));
        assertEquals(-2, GatedRequantizer.requantize(-3, 64, 0, unit));
        // a zero gate gives the zero point, whatever the accumulator (even saturated ones)
        RequantParams zp = params(1 << 30, 1, -7);
        assertEquals(-7, GatedRequantizer.requantize(Integer.MAX_VALUE, 0, 0, zp));
        assertEquals(-7, GatedRequantizer.requantize(Integer.MIN_VALUE, 0, 5, zp));
        assertEquals(-7 + 50, GatedRequantizer.requantize(100, 64, 0, zp));
        // saturation: the bias add and the left shift saturate at INT32 (as the requantizer), the output at INT8
        assertEquals(127, GatedRequantizer.requantize(Integer.MAX_VALUE, 127, Integer.MAX_VALUE, params(1 << 30, 30, 0)));
        assertEquals(-128, GatedRequantizer.requantize(Integer.MIN_VALUE, 127, -1, params(1 << 30, 30, 0)));
        // the widest final shift (38 bits): t = −(2^31 − 1), u = t · −128 = 2^38 − 128, rounded to 1
        assertEquals(1, GatedRequantizer.requantize(Integer.MIN_VALUE, -128, 0, params(Integer.MAX_VALUE, -31, 0)));
        // the largest product: t = 2^31 − 2 (srdhm of 2^31 − 1 by the largest multiplier), gate −128, clamped
        assertEquals(-128, GatedRequantizer.requantize(Integer.MAX_VALUE, -128, 0, params(Integer.MAX_VALUE, 0, 0)));
    }

    @Test
    void paramsStandForOneHundredTwentyEightTimesTheScaleProduct() {
        RequantParams p = GatedRequantizer.params(0.001, 0.02, 0.05, 0, OutputFormat.INT8);
        double real = Math.scalb((double) p.multiplier().multiplier(), p.multiplier().shift() - 31);
        assertEquals(128 * 0.001 * 0.02 / 0.05, real, 1e-9);
        // acc 1000 (real 1.0) × gate 50 (real 1.0) → 1.0 / 0.05 = 20
        assertEquals(20, GatedRequantizer.requantize(1000, 50, 0, p));
    }

    @Test
    void badGateOrActivationIsRefusedNamingTheParameter() {
        RequantParams p = params(1 << 30, 1, 0);
        assertTrue(assertThrows(IllegalArgumentException.class, () -> GatedRequantizer.requantize(1, 128, 0, p))
                .getMessage().contains("gate"));
        RequantParams relu = new RequantParams(new QuantizedMultiplier(1 << 30, 1), 0, OutputFormat.INT8,
                Activation.RELU, 0);
        assertTrue(assertThrows(IllegalArgumentException.class, () -> GatedRequantizer.requantize(1, 1, 0, relu))
                .getMessage().contains("activation"));
        assertThrows(IllegalArgumentException.class, () -> FixedPoint.roundingDivideByPOT(1L, 63));
    }
}
