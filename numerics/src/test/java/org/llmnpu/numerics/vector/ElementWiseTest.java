package org.llmnpu.numerics.vector;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.Test;
import org.llmnpu.numerics.fp16.Fp16;

/** Residual add and RoPE in FP16. */
class ElementWiseTest {

    @Test
    void residualAddIsTheCorrectlyRoundedFp16Sum() {
        Random rnd = new Random(81);
        short[] a = KernelSweep.gaussian(rnd, 5000, 0, 100);
        short[] b = KernelSweep.gaussian(rnd, 5000, 0, 1);
        short[] y = ElementWise.residualAdd(a, b);
        for (int i = 0; i < y.length; i++) {
            assertTrue(Fp16.ulpError(y[i], Fp16.toDouble(a[i]) + Fp16.toDouble(b[i])) <= 0.5);
        }
    }

    @Test
    void ropeIsWithinItsBoundIncludingCancellation() {
        Random rnd = new Random(82);
        double worst = 0;
        for (int pos : new int[] {0, 1, 17, 500, 4095}) {
            short[][] t = ElementWise.ropeTables(pos, 128, 10000);
            for (int trial = 0; trial < 40; trial++) {
                short[] x = KernelSweep.gaussian(rnd, 128, 0, trial % 2 == 0 ? 1 : 50);
                short[] y = ElementWise.rope(x, t[0], t[1]);
                for (int i = 0; i < 64; i++) {
                    double xi = Fp16.toDouble(x[i]);
                    double xj = Fp16.toDouble(x[i + 64]);
                    double c = Fp16.toDouble(t[0][i]);
                    double s = Fp16.toDouble(t[1][i]);
                    worst = Math.max(worst, Fp16.ulpError(y[i], xi * c - xj * s));
                    worst = Math.max(worst, Fp16.ulpError(y[i + 64], xj * c + xi * s));
                }
            }
        }
        assertTrue(worst <= ElementWise.ROPE_ULP_BOUND, "rope max error " + worst + " ULP");
    }

    @Test
    void ropeAtPositionZeroIsTheIdentityAndRotatesPairsByTheAngle() {
        short[][] t0 = ElementWise.ropeTables(0, 4, 10000);
        short[] x = {Fp16.ONE, Fp16.fromDouble(2), Fp16.fromDouble(3), Fp16.fromDouble(4)};
        assertArrayEquals(x, ElementWise.rope(x, t0[0], t0[1]));
        short[] quarterTurn = {Fp16.POSITIVE_ZERO, Fp16.ONE};
        short[] cos = {Fp16.POSITIVE_ZERO};
        short[] sin = {Fp16.ONE};
        short[] rotated = ElementWise.rope(new short[] {Fp16.ONE, Fp16.POSITIVE_ZERO}, cos, sin);
        assertEquals(Fp16.toDouble(quarterTurn[0]), Fp16.toDouble(rotated[0]));
        assertEquals(Fp16.ONE, rotated[1]);
        assertThrows(IllegalArgumentException.class, () -> ElementWise.rope(new short[3], new short[1], new short[1]));
    }
}
