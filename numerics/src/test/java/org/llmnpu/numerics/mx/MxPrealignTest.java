package org.llmnpu.numerics.mx;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.llmnpu.numerics.fp.Rounding;
import org.junit.jupiter.api.Test;

/** Pre-alignment of MX blocks into integers for the INT array. */
class MxPrealignTest {

    private static MxBlock random(Random rnd, MxElementType t) {
        int[] codes = new int[32];
        for (int i = 0; i < 32; i++) {
            do {
                codes[i] = rnd.nextInt(t.codeCount());
            } while (!Double.isFinite(t.decode(codes[i])));
        }
        return new MxBlock(t, 100 + rnd.nextInt(50), codes);
    }

    /** Numeric equality: integers have no signed zero, so −0 and +0 compare equal here. */
    private static void assertSameValues(double[] expected, double[] actual) {
        assertEquals(expected.length, actual.length);
        for (int i = 0; i < expected.length; i++) {
            assertTrue(expected[i] == actual[i], "element " + i + ": " + expected[i] + " vs " + actual[i]);
        }
    }

    @Test
    void exactPrealignmentReproducesEveryValueAndInt8IsItsOwnCode() {
        Random rnd = new Random(41);
        for (MxElementType t : MxElementType.values()) {
            if (t == MxElementType.FP8_E5M2) {
                continue;
            }
            for (int n = 0; n < 200; n++) {
                MxBlock b = random(rnd, t);
                assertSameValues(b.dequantize(), MxPrealign.exact(b).values());
            }
        }
        MxBlock int8 = random(rnd, MxElementType.INT8);
        int[] codes = int8.elements();
        int[] ints = MxPrealign.exact(int8).ints();
        for (int i = 0; i < 32; i++) {
            assertEquals((byte) codes[i], ints[i]);
        }
        assertThrows(IllegalArgumentException.class, () -> MxPrealign.exact(random(rnd, MxElementType.FP8_E5M2)));
    }

    @Test
    void fp4AlignedToItsBlockMaximumIsExactWithFourMagnitudeBits() {
        Random rnd = new Random(42);
        for (int n = 0; n < 2000; n++) {
            MxBlock b = random(rnd, MxElementType.FP4_E2M1);
            MxPrealign.Prealigned p = MxPrealign.aligned(b, 4, Rounding.TOWARD_ZERO);
            assertSameValues(b.dequantize(), p.values());
            for (int v : p.ints()) {
                assertTrue(Math.abs(v) <= 15);
            }
        }
    }

    @Test
    void lossyAlignmentErrorIsBelowOneLsbTruncatingAndHalfAnLsbRounding() {
        Random rnd = new Random(43);
        for (MxElementType t : new MxElementType[] {MxElementType.FP8_E4M3, MxElementType.FP8_E5M2,
                MxElementType.FP6_E3M2, MxElementType.FP6_E2M3}) {
            for (int w : new int[] {4, 6, 8, 12}) {
                for (int n = 0; n < 200; n++) {
                    MxBlock b = random(rnd, t);
                    double[] exact = b.dequantize();
                    MxPrealign.Prealigned tr = MxPrealign.aligned(b, w, Rounding.TOWARD_ZERO);
                    MxPrealign.Prealigned rn = MxPrealign.aligned(b, w, Rounding.NEAREST_EVEN);
                    double lsb = Math.scalb(1.0, tr.exponent());
                    assertEquals(tr.exponent(), rn.exponent());
                    for (int i = 0; i < 32; i++) {
                        assertTrue(Math.abs(tr.ints()[i]) < (1 << w));
                        assertTrue(Math.abs(tr.values()[i]) <= Math.abs(exact[i]), "truncation never grows a magnitude");
                        assertTrue(Math.abs(exact[i] - tr.values()[i]) < lsb);
                        boolean saturated = Math.abs(rn.ints()[i]) == (1 << w) - 1;
                        assertTrue(saturated || Math.abs(exact[i] - rn.values()[i]) <= lsb / 2, t + " w=" + w);
                    }
                }
            }
        }
    }

    @Test
    void theLargestElementOccupiesTheTopMagnitudeBit() {
        int[] codes = new int[32];
        codes[0] = MxElementType.FP8_E4M3.encode(-448, Rounding.NEAREST_EVEN); // 1.75 * 2^8
        codes[1] = MxElementType.FP8_E4M3.encode(3, Rounding.NEAREST_EVEN);
        MxBlock b = new MxBlock(MxElementType.FP8_E4M3, 127, codes);
        MxPrealign.Prealigned p = MxPrealign.aligned(b, 8, Rounding.TOWARD_ZERO);
        assertEquals(8 - 7, p.exponent());
        assertEquals(-224, p.ints()[0]);
        assertEquals(1, p.ints()[1], "3 / 2 truncates to 1");
        assertEquals(2, MxPrealign.aligned(b, 8, Rounding.NEAREST_EVEN).ints()[1], "1.5 ties to even 2");
    }

    @Test
    void nanBlocksAreFlaggedAndZeroBlocksStayZero() {
        int[] codes = new int[32];
        assertTrue(MxPrealign.aligned(new MxBlock(MxElementType.FP4_E2M1, E8M0.NaN, codes), 4, Rounding.TOWARD_ZERO).nan());
        codes[2] = 0x7F;
        assertTrue(MxPrealign.exact(new MxBlock(MxElementType.FP8_E4M3, 127, codes)).nan());
        MxPrealign.Prealigned zero = MxPrealign.aligned(new MxBlock(MxElementType.FP6_E2M3, 127, new int[32]), 6, Rounding.TOWARD_ZERO);
        assertArrayEquals(new int[32], zero.ints());
        assertThrows(IllegalArgumentException.class, () -> MxPrealign.aligned(new MxBlock(MxElementType.FP4_E2M1, 127, new int[32]), 0, Rounding.TOWARD_ZERO));
    }
}
