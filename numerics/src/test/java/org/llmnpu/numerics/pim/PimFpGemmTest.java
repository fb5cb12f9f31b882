package org.llmnpu.numerics.pim;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.Test;
import org.llmnpu.numerics.fp.FloatFormat;
import org.llmnpu.numerics.fp.Overflow;
import org.llmnpu.numerics.fp.Rounding;

class PimFpGemmTest {
    private static final FloatFormat E4M3 = FloatFormat.FP8_E4M3;

    @Test
    void postAlignmentIsExactForFiniteE4m3Codes() {
        Random r = new Random(5);
        int[][] x = randomCodes(r, 3, 37);
        int[][] w = randomCodes(r, 37, 5);
        PimFpGemm.Result res = PimFpGemm.run(new PimFpConfig(E4M3, PimAlignment.POST, 0, 16, 1), x, w);
        double[][] ref = PimFpGemm.reference(E4M3, x, w);
        for (int i = 0; i < 3; i++) {
            for (int j = 0; j < 5; j++) {
                assertEquals(ref[i][j], res.value(i, j), 0.0, "y[" + i + "][" + j + "]");
            }
        }
        assertFalse(res.special());
        assertEquals(2L * 3 * 5, res.psumWritebacks());
    }

    @Test
    void preAlignmentDropsTheLowBitsOfSmallerElements() {
        int one = E4M3.encode(1.0, Rounding.NEAREST_EVEN, Overflow.SATURATE);
        int small = E4M3.encode(1.125 / 16, Rounding.NEAREST_EVEN, Overflow.SATURATE);
        PimPrealign.Aligned a = PimPrealign.align(E4M3, new int[] {one, small}, 4);
        // 1.0 → 0b1000; 1.125/16 = 0b1001 shifted right by 4 → 0 (all bits dropped)
        assertArrayEquals(new int[] {8, 0}, a.ints());
        PimPrealign.Aligned wide = PimPrealign.align(E4M3, new int[] {one, small}, 8);
        // with 8 bits: 1.0 → 128, 1.125/16 → 0b10010000 >> 4 = 9
        assertArrayEquals(new int[] {128, 9}, wide.ints());
    }

    @Test
    void preEqualsPostWhenEveryExponentIsEqual() {
        int[][] x = {{0x38, 0xBA, 0x3C}};  // 1.0, -1.25, 1.5 (same exponent)
        int[][] w = {{0x39}, {0x3F}, {0xB8}};
        PimFpGemm.Result pre = PimFpGemm.run(new PimFpConfig(E4M3, PimAlignment.PRE, 4, 4, 1), x, w);
        PimFpGemm.Result post = PimFpGemm.run(new PimFpConfig(E4M3, PimAlignment.POST, 0, 4, 1), x, w);
        assertEquals(post.value(0, 0), pre.value(0, 0), 0.0);
    }

    @Test
    void specialCodesEnterAsZeroAndRaiseTheFlag() {
        int[][] x = {{0x7F, 0x38}};
        int[][] w = {{0x38}, {0x38}};
        PimFpGemm.Result res = PimFpGemm.run(new PimFpConfig(E4M3, PimAlignment.POST, 0, 2, 1), x, w);
        assertTrue(res.special());
        assertEquals(1.0, Math.scalb(res.acc()[0][0].doubleValue(), res.accExponent()), 0.0);
    }

    @Test
    void badParametersNameThemselves() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> new PimFpConfig(E4M3, PimAlignment.PRE, 3, 8, 1));
        assertTrue(e.getMessage().contains("alignBits"), e.getMessage());
    }

    private static int[][] randomCodes(Random r, int a, int b) {
        int[][] c = new int[a][b];
        for (int i = 0; i < a; i++) {
            for (int j = 0; j < b; j++) {
                int code;
                do {
                    code = r.nextInt(256);
                } while (E4M3.isNaN(code));
                c[i][j] = code;
            }
        }
        return c;
    }
}
