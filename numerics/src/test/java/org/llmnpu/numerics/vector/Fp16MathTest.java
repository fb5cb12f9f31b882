package org.llmnpu.numerics.vector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.function.DoubleUnaryOperator;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.llmnpu.numerics.fp16.Fp16;

/** exp / reciprocal / rsqrt of the DSP over every FP16 input, against double precision. */
class Fp16MathTest {

    /** Largest ULP error over every non-NaN FP16 input. */
    static double maxUlpError(UnaryOperator<Short> f, DoubleUnaryOperator reference) {
        double max = 0;
        for (int c = 0; c < 65536; c++) {
            short x = (short) c;
            if (!Fp16.isNaN(x)) {
                max = Math.max(max, Fp16.ulpError(f.apply(x), reference.applyAsDouble(Fp16.toDouble(x))));
            }
        }
        return max;
    }

    @Test
    void expIsWithinItsStatedBoundOnEveryInput() {
        double err = maxUlpError(Fp16Math::exp, Math::exp);
        assertTrue(err <= Fp16Math.EXP_ULP_BOUND, "exp max error " + err + " ULP");
    }

    @Test
    void reciprocalIsWithinItsStatedBoundOnEveryInput() {
        double err = maxUlpError(Fp16Math::reciprocal, x -> 1 / x);
        assertTrue(err <= Fp16Math.RECIPROCAL_ULP_BOUND, "reciprocal max error " + err + " ULP");
    }

    @Test
    void rsqrtIsWithinItsStatedBoundOnEveryInput() {
        double err = maxUlpError(Fp16Math::rsqrt, x -> 1 / Math.sqrt(x));
        assertTrue(err <= Fp16Math.RSQRT_ULP_BOUND, "rsqrt max error " + err + " ULP");
    }

    @Test
    void specialInputsFollowIeee() {
        assertEquals(Fp16.ONE, Fp16Math.exp(Fp16.POSITIVE_ZERO));
        assertEquals(Fp16.ONE, Fp16Math.exp(Fp16.NEGATIVE_ZERO));
        assertEquals(Fp16.POSITIVE_INFINITY, Fp16Math.exp(Fp16.POSITIVE_INFINITY));
        assertEquals(Fp16.POSITIVE_ZERO, Fp16Math.exp(Fp16.NEGATIVE_INFINITY));
        assertEquals(Fp16.POSITIVE_INFINITY, Fp16Math.exp(Fp16.fromDouble(11.1)));
        assertEquals(Fp16.NaN, Fp16Math.exp(Fp16.NaN));
        assertEquals(Fp16.NEGATIVE_INFINITY, Fp16Math.reciprocal(Fp16.NEGATIVE_ZERO));
        assertEquals(Fp16.NEGATIVE_ZERO, Fp16Math.reciprocal(Fp16.NEGATIVE_INFINITY));
        assertEquals(Fp16.POSITIVE_INFINITY, Fp16Math.reciprocal(Fp16.MIN_SUBNORMAL), "2^24 overflows");
        assertEquals(Fp16.fromDouble(-0.5), Fp16Math.reciprocal(Fp16.fromDouble(-2)));
        assertEquals(Fp16.NaN, Fp16Math.rsqrt(Fp16.fromDouble(-1)));
        assertEquals(Fp16.NaN, Fp16Math.rsqrt(Fp16.NEGATIVE_INFINITY));
        assertEquals(Fp16.NEGATIVE_INFINITY, Fp16Math.rsqrt(Fp16.NEGATIVE_ZERO));
        assertEquals(Fp16.POSITIVE_ZERO, Fp16Math.rsqrt(Fp16.POSITIVE_INFINITY));
        assertEquals(Fp16.fromDouble(0.5), Fp16Math.rsqrt(Fp16.fromDouble(4)));
        assertEquals(Fp16.fromDouble(4096), Fp16Math.rsqrt(Fp16.MIN_SUBNORMAL), "2^-24 -> 2^12");
    }

    @Test
    void rangeReductionConstantsSplitLn2Exactly() {
        assertEquals(0.6875, Fp16.toDouble(Fp16Math.LN2_HI));
        assertEquals(Math.log(2) - 0.6875, Fp16.toDouble(Fp16Math.LN2_LO), 0.0056 * 0x1p-11);
        for (int k = -26; k <= 17; k++) {
            assertEquals(k * 0.6875, Fp16.toDouble(Fp16.fromInt(k, Fp16Math.LN2_HI)), "k * LN2_HI is exact");
        }
        assertEquals(-24, Fp16Math.exponentOf(Fp16.MIN_SUBNORMAL));
        assertEquals(15, Fp16Math.exponentOf(Fp16.MAX_VALUE));
        assertEquals(-15, Fp16Math.exponentOf((short) 0x03FF));
    }

    @Test
    void segmentedPolynomialEvaluatesHornerInFp16() {
        SegmentedPolynomial p = new SegmentedPolynomial(new short[] {Fp16.fromDouble(0), Fp16.fromDouble(1)},
                new short[][] {{Fp16.fromDouble(1), Fp16.fromDouble(2)}, {Fp16.fromDouble(10), Fp16.fromDouble(0.5), Fp16.fromDouble(0.25)}});
        assertEquals(0, p.segmentOf(Fp16.fromDouble(-3)));
        assertEquals(1, p.segmentOf(Fp16.fromDouble(1)));
        assertEquals(Fp16.fromDouble(1 + 2 * 0.5), p.evaluate(Fp16.fromDouble(0.5)));
        assertEquals(Fp16.fromDouble(10 + 0.5 * 2 + 0.25 * 4), p.evaluate(Fp16.fromDouble(3)));
        // u = -2049 - 0 rounds (tie) to -2048; 2u + 1 = -4095 rounds (tie) to -4096: each step rounds.
        assertEquals(Fp16.fromDouble(-4096), p.evaluate(Fp16.fromDouble(-2049)));
    }
}
