package org.llmnpu.numerics.mx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** MX block dot product: exact products and sum, one rounding to FP32, IEEE specials. */
class MxDotTest {

    private static MxBlock randomCodes(Random rnd, MxElementType t, int scaleCode) {
        int[] codes = new int[32];
        for (int i = 0; i < 32; i++) {
            do {
                codes[i] = rnd.nextInt(t.codeCount());
            } while (!Double.isFinite(t.decode(codes[i])));
        }
        return new MxBlock(t, scaleCode, codes);
    }

    /** Oracle: exact sum with BigDecimal, rounded by BigDecimal.floatValue (correctly rounded in the JDK). */
    private static float oracle(MxBlock[] a, MxBlock[] b) {
        BigDecimal s = BigDecimal.ZERO;
        for (int j = 0; j < a.length; j++) {
            for (int i = 0; i < 32; i++) {
                s = s.add(new BigDecimal(a[j].value(i)).multiply(new BigDecimal(b[j].value(i))));
            }
        }
        return s.floatValue();
    }

    @Test
    void dotIsTheExactSumRoundedOnceToFp32ForEveryTypePair() {
        Random rnd = new Random(31);
        for (MxElementType ta : MxElementType.values()) {
            for (MxElementType tb : MxElementType.values()) {
                for (int n = 0; n < 60; n++) {
                    MxBlock[] a = {randomCodes(rnd, ta, 100 + rnd.nextInt(50)), randomCodes(rnd, ta, 120 + rnd.nextInt(20))};
                    MxBlock[] b = {randomCodes(rnd, tb, 100 + rnd.nextInt(50)), randomCodes(rnd, tb, 110 + rnd.nextInt(30))};
                    assertEquals(oracle(a, b), MxDot.dot(a, b), ta + " x " + tb);
                    assertEquals(oracle(new MxBlock[] {a[0]}, new MxBlock[] {b[0]}), MxDot.dot(a[0], b[0]));
                }
            }
        }
    }

    @Test
    void cancellationIsExactUnlikeSequentialFp32Accumulation() {
        int[] a = new int[32];
        int[] b = new int[32];
        a[0] = MxElementType.FP8_E5M2.encode(57344, org.llmnpu.numerics.fp.Rounding.NEAREST_EVEN);
        a[1] = MxElementType.FP8_E5M2.encode(Math.scalb(1.0, -16), org.llmnpu.numerics.fp.Rounding.NEAREST_EVEN);
        a[2] = a[0] | 0x80;
        java.util.Arrays.fill(b, MxElementType.FP8_E5M2.encode(1.0, org.llmnpu.numerics.fp.Rounding.NEAREST_EVEN));
        MxBlock x = new MxBlock(MxElementType.FP8_E5M2, 127 + 60, a);
        MxBlock y = new MxBlock(MxElementType.FP8_E5M2, 127 + 60, b);
        // 2^60·(57344 + 2^-16 − 57344)·2^60 = 2^104: exact; float accumulation would lose the 2^-16 term.
        assertEquals(Math.scalb(1.0f, 104), MxDot.dot(x, y));
    }

    @Test
    void tinyAndHugeResultsRoundToFp32SubnormalsAndInfinity() {
        var rne = org.llmnpu.numerics.fp.Rounding.NEAREST_EVEN;
        int[] e = new int[32];
        e[0] = MxElementType.FP4_E2M1.encode(1.0, rne);
        MxBlock tie = new MxBlock(MxElementType.FP4_E2M1, 127 - 75, e);
        assertEquals(0.0f, MxDot.dot(tie, tie), "2^-150 is half the smallest subnormal: ties to even 0");
        e[1] = MxElementType.FP4_E2M1.encode(0.5, rne);
        MxBlock above = new MxBlock(MxElementType.FP4_E2M1, 127 - 75, e);
        assertEquals(Float.MIN_VALUE, MxDot.dot(above, above), "1.25 * 2^-150 rounds up to 2^-149");
        int[] six = new int[32];
        java.util.Arrays.fill(six, MxElementType.FP4_E2M1.encode(6.0, rne));
        MxBlock huge = new MxBlock(MxElementType.FP4_E2M1, 254, six);
        assertEquals(Float.POSITIVE_INFINITY, MxDot.dot(huge, huge));
    }

    @Test
    void specialsFollowIeee() {
        int[] inf = new int[32];
        inf[0] = 0x7C; // +inf in E5M2
        int[] ones = new int[32];
        java.util.Arrays.fill(ones, 0x3C); // 1.0 in E5M2
        int[] zeros = new int[32];
        MxBlock infBlock = new MxBlock(MxElementType.FP8_E5M2, 127, inf);
        MxBlock oneBlock = new MxBlock(MxElementType.FP8_E5M2, 127, ones);
        MxBlock zeroBlock = new MxBlock(MxElementType.FP8_E5M2, 127, zeros);
        assertEquals(Float.POSITIVE_INFINITY, MxDot.dot(infBlock, oneBlock));
        assertTrue(Float.isNaN(MxDot.dot(infBlock, zeroBlock)), "inf * 0");
        int[] mixed = inf.clone();
        mixed[1] = 0xFC;
        assertTrue(Float.isNaN(MxDot.dot(new MxBlock(MxElementType.FP8_E5M2, 127, mixed), oneBlock)), "inf - inf");
        assertTrue(Float.isNaN(MxDot.dot(new MxBlock(MxElementType.FP8_E5M2, E8M0.NaN, ones), oneBlock)), "NaN scale");
        int[] nan = new int[32];
        nan[3] = 0x7F;
        assertTrue(Float.isNaN(MxDot.dot(new MxBlock(MxElementType.FP8_E4M3, 127, nan), new MxBlock(MxElementType.FP8_E4M3, 127, zeros))));
        assertEquals(0.0f, MxDot.dot(zeroBlock, oneBlock));
    }

    @Test
    void accumulatorWidthHoldsTheWorstCaseSum() {
        assertEquals(42, MxDot.accumulatorBits(MxElementType.FP8_E4M3, MxElementType.FP8_E4M3, 32));
        assertEquals(14, MxDot.accumulatorBits(MxElementType.FP4_E2M1, MxElementType.FP4_E2M1, 32));
        assertEquals(22, MxDot.accumulatorBits(MxElementType.INT8, MxElementType.INT8, 32));
        for (MxElementType t : MxElementType.values()) {
            long worst = 0;
            for (int c = 0; c < t.codeCount(); c++) {
                if (Double.isFinite(t.decode(c))) {
                    worst = Math.max(worst, Math.abs(MxDot.elementInteger(t, c)));
                }
            }
            java.math.BigInteger sum = java.math.BigInteger.valueOf(worst).pow(2).multiply(java.math.BigInteger.valueOf(32));
            assertTrue(sum.bitLength() + 1 <= MxDot.accumulatorBits(t, t, 32), t.toString());
        }
    }
}
