package org.llmnpu.numerics.pim;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.Test;
import org.llmnpu.numerics.fp.FloatFormat;

class PimInputFormatTest {
    private static final FloatFormat E4M3 = FloatFormat.FP8_E4M3;
    private static final FloatFormat E5M2 = FloatFormat.FP8_E5M2;

    @Test
    void elementFieldsFoldTheBlockScaleIntoTheExponent() {
        PimInputFormat mx = PimInputFormat.mxfp8(E4M3);
        assertEquals(1.0 * Math.scalb(1.0, 3), mx.value(0x38, 130), 0.0);
        assertEquals(0x38 >> 3, mx.fields(0x38, 130).biasedExponent() - 130);
        assertEquals(-64.0 * Math.scalb(1.0, -6) * Math.scalb(1.0, -127), PimInputFormat.MXINT8.value(0xC0, 0), 0.0);
        assertEquals(-2.0 * Math.scalb(1.0, 127), PimInputFormat.MXINT8.value(0x80, 254), 0.0);
        assertEquals(1.0, PimInputFormat.BF16.value(0x3F80, 0), 0.0);
        assertEquals(Math.scalb(1.0, -133), PimInputFormat.BF16.value(0x0001, 0), 0.0);
        assertTrue(PimInputFormat.BF16.fields(0x7F80, 0).special(), "+Inf");
        assertTrue(mx.fields(0x38, 0xFF).special(), "NaN scale");
        assertEquals(9, PimInputFormat.mxfp8(E5M2).exponentFieldBits());
    }

    @Test
    void postAlignmentIsExactForBf16AndMxInputs() {
        Random r = new Random(3);
        for (PimInputFormat in : new PimInputFormat[] {PimInputFormat.BF16, PimInputFormat.mxfp8(E4M3),
            PimInputFormat.mxfp8(E5M2), PimInputFormat.MXINT8}) {
            int m = 3;
            int k = 70;
            int n = 4;
            int[][] x = randomInputs(r, in, m, k);
            int[][] s = randomScales(r, in, m, k, 100, 154);
            int[][] w = randomWeights(r, E4M3, k, n);
            PimFpConfig c = new PimFpConfig(E4M3, in, PimAlignment.POST, 0, 16, 2);
            PimFpGemm.Result res = PimFpGemm.run(c, x, s, w);
            double[][] ref = PimFpGemm.reference(in, E4M3, x, s, w);
            for (int i = 0; i < m; i++) {
                for (int j = 0; j < n; j++) {
                    assertEquals(ref[i][j], res.value(i, j), Math.abs(ref[i][j]) * 1e-15, in.name() + " y" + i + j);
                }
            }
            assertFalse(res.special() || res.overflow(), in.name());
        }
    }

    @Test
    void preAlignmentOfAnMxRowGroupTruncatesTheLowerScaledBlock() {
        PimInputFormat mx = PimInputFormat.mxfp8(E4M3);
        // rows 0..31 (block 0, scale 2^0) hold 1.0, row 32 (block 1, scale 2^-4) holds 1.125 -> 1.125/16
        int[] row = new int[33];
        java.util.Arrays.fill(row, 0x38);
        row[32] = 0x39;
        PimFpFields[] f = new PimFpFields[33];
        for (int i = 0; i < 33; i++) {
            f[i] = mx.fields(row[i], i < 32 ? 127 : 123);
        }
        PimPrealign.Aligned a = PimPrealign.align(f, 3, 8);
        assertEquals(128, a.ints()[0]);
        assertEquals(0b10010000 >> 4, a.ints()[32], "the scaled-down element keeps its top 4 bits");
        PimFpConfig pre = new PimFpConfig(E4M3, mx, PimAlignment.PRE, 8, 64, 1);
        int[][] w = new int[33][1];
        for (int[] wr : w) {
            wr[0] = 0x38;
        }
        PimFpGemm.Result res = PimFpGemm.run(pre, new int[][] {row}, new int[][] {{127, 123}}, w);
        assertEquals(32 + 9.0 / 128, res.value(0, 0), 0.0, "1.125/16 truncated to 9/128");
    }

    @Test
    void bf16PreAlignmentDropsExactlyTheShiftedOutBits() {
        // 1.0 and 1 + 2^-7 (the last mantissa bit) scaled by 2^-3: with 8 bits the last bit is gone
        int[][] x = {{0x3F80, 0x3E01}};
        int[][] w = {{0x38}, {0x38}};
        PimFpConfig c8 = new PimFpConfig(E4M3, PimInputFormat.BF16, PimAlignment.PRE, 8, 2, 1);
        PimFpConfig c11 = new PimFpConfig(E4M3, PimInputFormat.BF16, PimAlignment.PRE, 11, 2, 1);
        assertEquals(1.125, PimFpGemm.run(c8, x, w).value(0, 0), 0.0);
        assertEquals(1.125 + Math.scalb(1.0, -10), PimFpGemm.run(c11, x, w).value(0, 0), 0.0);
    }

    @Test
    void mxNeedsItsScalesAndBf16NeedsEightAlignBits() {
        PimFpConfig c = new PimFpConfig(E4M3, PimInputFormat.MXINT8, PimAlignment.POST, 0, 4, 1);
        assertThrows(IllegalArgumentException.class, () -> PimFpGemm.run(c, new int[][] {{1}}, new int[][] {{0x38}}));
        assertThrows(IllegalArgumentException.class,
            () -> new PimFpConfig(E4M3, PimInputFormat.BF16, PimAlignment.PRE, 7, 4, 1));
        assertArrayEquals(new int[] {2}, new int[] {PimInputFormat.MXINT8.scalesPerRow(33)});
    }

    static int[][] randomInputs(Random r, PimInputFormat in, int m, int k) {
        int[][] x = new int[m][k];
        for (int i = 0; i < m; i++) {
            for (int j = 0; j < k; j++) {
                int code;
                do {
                    code = r.nextInt(1 << in.codeBits());
                } while (in.element() != null && in.fields(code, 127).special());
                x[i][j] = code;
            }
        }
        return x;
    }

    static int[][] randomScales(Random r, PimInputFormat in, int m, int k, int lo, int hi) {
        int[][] s = new int[m][in.scalesPerRow(k)];
        for (int[] row : s) {
            for (int b = 0; b < row.length; b++) {
                row[b] = lo + r.nextInt(hi - lo + 1);
            }
        }
        return in.blockScaled() ? s : null;
    }

    static int[][] randomWeights(Random r, FloatFormat f, int k, int n) {
        int[][] w = new int[k][n];
        for (int i = 0; i < k; i++) {
            for (int j = 0; j < n; j++) {
                int code;
                do {
                    code = r.nextInt(f.codeCount());
                } while (f.isNaN(code) || f.isInfinite(code));
                w[i][j] = code;
            }
        }
        return w;
    }
}
