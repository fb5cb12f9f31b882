package org.llmnpu.numerics.vector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.Test;
import org.llmnpu.numerics.fp16.Fp16;

/** SiLU, GeLU and SwiGLU in FP16 against double precision over every FP16 input. */
class ActivationsTest {

    @Test
    void siluIsWithinItsBoundOnEveryFiniteInput() {
        double err = Fp16MathTest.maxUlpError(Activations::silu, KernelReference::silu);
        assertTrue(err <= Activations.SILU_ULP_BOUND, "silu max error " + err + " ULP");
    }

    @Test
    void geluIsWithinItsBoundOnEveryFiniteInput() {
        double err = Fp16MathTest.maxUlpError(Activations::gelu, Activations::geluTanhReference);
        assertTrue(err <= Activations.GELU_ULP_BOUND, "gelu max error " + err + " ULP");
    }

    @Test
    void swigluIsWithinItsBoundWhereSiluIsNormalAndAbsolutelySmallElsewhere() {
        Random rnd = new Random(71);
        short[] g = KernelSweep.gaussian(rnd, 20000, 0, 6);
        short[] u = KernelSweep.gaussian(rnd, 20000, 0, 2);
        short[] y = Activations.swiglu(g, u);
        double worst = 0;
        for (int i = 0; i < y.length; i++) {
            double s = KernelReference.silu(Fp16.toDouble(g[i]));
            double ref = s * Fp16.toDouble(u[i]);
            if (Math.abs(s) >= 0x1p-14) {
                worst = Math.max(worst, Fp16.ulpError(y[i], ref));
            } else {
                double ulps = Math.abs(Fp16.toDouble(y[i]) - ref) / (0x1p-24 * Math.max(1, Math.abs(Fp16.toDouble(u[i]))));
                assertTrue(ulps <= 8, "subnormal silu(g) error " + ulps + " * |u| * 2^-24");
            }
        }
        assertTrue(worst <= Activations.SWIGLU_ULP_BOUND, "swiglu max error " + worst + " ULP");
    }

    @Test
    void saturatedTailsAreExact() {
        assertEquals(Fp16.fromDouble(20), Activations.silu(Fp16.fromDouble(20)));
        assertTrue(Fp16.isZero(Activations.silu(Fp16.fromDouble(-30))));
        assertEquals(Fp16.fromDouble(50), Activations.gelu(Fp16.fromDouble(50)));
        assertTrue(Fp16.isZero(Activations.gelu(Fp16.fromDouble(-50))));
        assertEquals(Fp16.MAX_VALUE, Activations.gelu(Fp16.MAX_VALUE));
        assertTrue(Fp16.isNaN(Activations.silu(Fp16.NaN)));
    }
}
