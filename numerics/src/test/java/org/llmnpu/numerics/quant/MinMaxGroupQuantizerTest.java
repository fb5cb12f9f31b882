package org.llmnpu.numerics.quant;

import static org.junit.jupiter.api.Assertions.*;

import java.util.Random;
import org.junit.jupiter.api.Test;

class MinMaxGroupQuantizerTest {

    @Test
    void roundTripErrorIsBoundedByHalfAStepPlusFp16Rounding() {
        Random rnd = new Random(7);
        for (int bits : new int[] {2, 4, 8}) {
            float[] x = new float[32];
            for (int i = 0; i < x.length; i++) {
                x[i] = (float) (rnd.nextGaussian() * 3 + 1);
            }
            var g = MinMaxGroupQuantizer.quantize(x, bits);
            float range = 0;
            for (float v : x) {
                range = Math.max(range, Math.abs(v));
            }
            float bound = g.scale() / 2 + 2e-3f * range;
            for (int i = 0; i < x.length; i++) {
                assertTrue(Math.abs(x[i] - g.dequantize(i)) <= bound, bits + " bits at " + i);
            }
            assertEquals(Fp16Rounding.round(g.scale()), g.scale(), "scale is stored in FP16");
            assertEquals(Fp16Rounding.round(g.min()), g.min(), "minimum is stored in FP16");
        }
    }

    @Test
    void strideReadsAColumnAndConstantGroupsAreExact() {
        float[] matrix = {1, 9, 1, 9, 1, 9};
        var g = MinMaxGroupQuantizer.quantize(matrix, 0, 2, 3, 4);
        for (int i = 0; i < 3; i++) {
            assertEquals(1f, g.dequantize(i));
        }
        assertEquals(3 * 4 + 32, g.storageBits());
    }

    @Test
    void fp16RoundingMatchesKnownValues() {
        assertEquals(1.0009765625f, Fp16Rounding.round(1.0009f)); // 1 + 2^-10
        assertEquals(65504f, Fp16Rounding.round(65510f));
        assertEquals(Float.POSITIVE_INFINITY, Fp16Rounding.round(70000f));
        assertEquals((float) Math.scalb(1.0, -24), Fp16Rounding.round((float) Math.scalb(1.0, -24) * 1.2f));
        assertEquals(2048f, Fp16Rounding.round(2049f), "ties go to even");
    }
}
