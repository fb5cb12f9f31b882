package org.llmnpu.numerics.mx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.llmnpu.numerics.fp.Rounding;
import org.junit.jupiter.api.Test;

/** OCP MX quantization: shared exponent, element rounding and saturation, special blocks. */
class MxQuantizerTest {

    static double[] randomBlock(Random rnd, double spread) {
        double[] v = new double[MxBlock.SIZE];
        for (int i = 0; i < v.length; i++) {
            v[i] = (float) (rnd.nextGaussian() * Math.exp(spread * rnd.nextGaussian()));
        }
        return v;
    }

    @Test
    void sharedExponentIsFloorLog2OfAmaxMinusEmax() {
        double[] v = new double[32];
        v[3] = -5.0; // floor(log2 5) = 2
        v[7] = 1.0;
        assertEquals(127 + 2 - 8, MxQuantizer.quantize(MxElementType.FP8_E4M3, v).scaleCode());
        assertEquals(127 + 2 - 15, MxQuantizer.quantize(MxElementType.FP8_E5M2, v).scaleCode());
        assertEquals(127 + 2 - 2, MxQuantizer.quantize(MxElementType.FP4_E2M1, v).scaleCode());
        assertEquals(127 + 2, MxQuantizer.quantize(MxElementType.INT8, v).scaleCode());
        assertEquals(-1074, MxQuantizer.floorLog2(Double.MIN_VALUE));
        assertEquals(-1023, MxQuantizer.floorLog2(Math.scalb(1.5, -1023)));
    }

    @Test
    void eachElementIsTheNearestGridValueOfItsScaledInputOrSaturatesToMax() {
        Random rnd = new Random(21);
        for (MxElementType t : MxElementType.values()) {
            double lo = Double.POSITIVE_INFINITY;
            double hi = Double.NEGATIVE_INFINITY;
            for (int c = 0; c < t.codeCount(); c++) {
                if (Double.isFinite(t.decode(c))) {
                    lo = Math.min(lo, t.decode(c));
                    hi = Math.max(hi, t.decode(c));
                }
            }
            for (int b = 0; b < 300; b++) {
                double[] v = randomBlock(rnd, 2.0);
                MxBlock q = MxQuantizer.quantize(t, v);
                double scale = E8M0.decode(q.scaleCode());
                for (int i = 0; i < v.length; i++) {
                    double scaled = v[i] / scale;
                    double got = t.decode(q.element(i));
                    if (scaled >= hi || scaled <= lo) {
                        assertEquals(scaled >= hi ? hi : lo, got, 0.0, t + " saturates");
                        continue;
                    }
                    for (int c = 0; c < t.codeCount(); c++) {
                        double other = t.decode(c);
                        if (Double.isFinite(other)) {
                            assertTrue(Math.abs(got - scaled) <= Math.abs(other - scaled), t + " " + scaled + " -> " + got);
                        }
                    }
                }
            }
        }
    }

    @Test
    void tiesGoToEvenByDefaultAndAwayFromZeroOnRequest() {
        double[] v = new double[32];
        v[0] = 4.0; // E = 0 for FP4, so elements are the inputs themselves
        v[1] = 2.5; // tie between 2 (code 4, even) and 3 (code 5)
        v[2] = -0.75; // tie between -0.5 (code 9) and -1 (code 10, even)
        MxBlock even = MxQuantizer.quantize(MxElementType.FP4_E2M1, v, Rounding.NEAREST_EVEN);
        MxBlock away = MxQuantizer.quantize(MxElementType.FP4_E2M1, v, Rounding.NEAREST_AWAY);
        assertEquals(127, even.scaleCode());
        assertEquals(2.0, even.value(1));
        assertEquals(3.0, away.value(1));
        assertEquals(-1.0, even.value(2));
        assertEquals(-1.0, away.value(2));
    }

    @Test
    void allZeroBlockHasTheSmallestScaleAndSignedZeros() {
        double[] v = new double[32];
        v[5] = -0.0;
        MxBlock q = MxQuantizer.quantize(MxElementType.FP6_E2M3, v);
        assertEquals(0, q.scaleCode());
        assertEquals(0x20, q.element(5));
        for (double d : q.dequantize()) {
            assertEquals(0.0, d, 0.0);
        }
    }

    @Test
    void oneHugeOutlierSaturatesAtMaxAndFlushesTheRestToZero() {
        double[] v = new double[32];
        java.util.Arrays.fill(v, 1.0);
        v[9] = 1e6; // floor(log2) = 19
        MxBlock q = MxQuantizer.quantize(MxElementType.FP4_E2M1, v);
        assertEquals(127 + 17, q.scaleCode());
        assertEquals(6.0 * Math.scalb(1.0, 17), q.value(9), "1e6 / 2^17 = 7.63 saturates to 6");
        assertEquals(0.0, q.value(0));
        MxBlock e5 = MxQuantizer.quantize(MxElementType.FP8_E5M2, v);
        assertEquals(1.0, e5.value(0), "E5M2's range keeps the small values");
    }

    @Test
    void subnormalOnlyInputsClampTheScaleAtTwoToTheMinus127() {
        double[] v = new double[32];
        v[0] = Math.scalb(1.0, -140);
        v[1] = -Math.scalb(1.0, -133);
        MxBlock q = MxQuantizer.quantize(MxElementType.FP8_E4M3, v);
        assertEquals(0, q.scaleCode(), "-133 - 8 clamps to -127");
        assertEquals(-Math.scalb(1.0, -133), q.value(1), "2^-6 is a normal E4M3 value");
        assertEquals(0.0, q.value(0), "2^-13 is below E4M3's smallest subnormal 2^-9");
    }

    @Test
    void largestFp32ValuesStayInScaleRange() {
        double[] v = new double[32];
        v[0] = Float.MAX_VALUE;
        v[1] = -Float.MAX_VALUE;
        for (MxElementType t : MxElementType.values()) {
            MxBlock q = MxQuantizer.quantize(t, v);
            assertEquals(127 + 127 - t.emax(), q.scaleCode(), t.toString());
            assertEquals(Float.MAX_VALUE, q.value(0), Float.MAX_VALUE * 0.27, t.toString());
            assertTrue(q.value(1) < 0);
        }
    }

    @Test
    void nanOrInfinityMakesTheScaleNaNAndTheBlockNaN() {
        double[] v = new double[32];
        v[4] = Double.NaN;
        MxBlock q = MxQuantizer.quantize(MxElementType.FP8_E4M3, v);
        assertEquals(E8M0.NaN, q.scaleCode());
        assertTrue(Double.isNaN(q.value(0)));
        v[4] = Double.NEGATIVE_INFINITY;
        assertEquals(E8M0.NaN, MxQuantizer.quantize(MxElementType.FP4_E2M1, v).scaleCode());
        short[] h = new short[32];
        h[0] = 0x7C00;
        assertEquals(E8M0.NaN, MxQuantizer.quantizeFp16(MxElementType.INT8, h, Rounding.NEAREST_EVEN).scaleCode());
    }

    @Test
    void fp16AndFp32InputsQuantizeLikeTheirExactValues() {
        Random rnd = new Random(4);
        short[] h = new short[32];
        double[] d = new double[32];
        float[] f = new float[32];
        for (int i = 0; i < 32; i++) {
            h[i] = org.llmnpu.numerics.fp16.Fp16.fromDouble(rnd.nextGaussian());
            d[i] = org.llmnpu.numerics.fp16.Fp16.toDouble(h[i]);
            f[i] = (float) d[i];
        }
        MxBlock a = MxQuantizer.quantizeFp16(MxElementType.FP6_E3M2, h, Rounding.NEAREST_EVEN);
        assertEquals(a, MxQuantizer.quantize(MxElementType.FP6_E3M2, f, Rounding.NEAREST_EVEN));
        assertEquals(a, MxQuantizer.quantize(MxElementType.FP6_E3M2, d));
    }
}
