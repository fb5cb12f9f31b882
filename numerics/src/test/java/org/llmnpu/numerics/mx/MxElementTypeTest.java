package org.llmnpu.numerics.mx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.llmnpu.numerics.fp.Rounding;
import org.junit.jupiter.api.Test;

/** Every code of every OCP MX element type and of the E8M0 scale. */
class MxElementTypeTest {

    @Test
    void emaxAndMaxNormalAreThoseOfTheOcpTable() {
        assertEquals(8, MxElementType.FP8_E4M3.emax());
        assertEquals(15, MxElementType.FP8_E5M2.emax());
        assertEquals(4, MxElementType.FP6_E3M2.emax());
        assertEquals(2, MxElementType.FP6_E2M3.emax());
        assertEquals(2, MxElementType.FP4_E2M1.emax());
        assertEquals(0, MxElementType.INT8.emax());
        assertEquals(448.0, MxElementType.FP8_E4M3.maxNormal());
        assertEquals(57344.0, MxElementType.FP8_E5M2.maxNormal());
        assertEquals(28.0, MxElementType.FP6_E3M2.maxNormal());
        assertEquals(7.5, MxElementType.FP6_E2M3.maxNormal());
        assertEquals(6.0, MxElementType.FP4_E2M1.maxNormal());
        assertEquals(1.984375, MxElementType.INT8.maxNormal());
    }

    @Test
    void everyFiniteCodeOfEveryTypeEncodesBackToItself() {
        for (MxElementType t : MxElementType.values()) {
            int finite = 0;
            for (int c = 0; c < t.codeCount(); c++) {
                double v = t.decode(c);
                if (Double.isFinite(v)) {
                    finite++;
                    for (Rounding r : Rounding.values()) {
                        assertEquals(c, t.encode(v, r), t + " code " + c + " value " + v);
                    }
                    assertTrue(v % Math.scalb(1.0, t.quantumExponent()) == 0, "values are multiples of the quantum");
                }
            }
            int expectedFinite = switch (t) {
                case FP8_E4M3 -> 254;
                case FP8_E5M2 -> 256 - 8;
                default -> t.codeCount();
            };
            assertEquals(expectedFinite, finite, t.toString());
        }
    }

    @Test
    void int8CodesAreTwosComplementSixtyFourths() {
        assertEquals(-2.0, MxElementType.INT8.decode(0x80));
        assertEquals(127 / 64.0, MxElementType.INT8.decode(0x7F));
        assertEquals(-1 / 64.0, MxElementType.INT8.decode(0xFF));
        assertEquals(0x7F, MxElementType.INT8.encode(5.0, Rounding.NEAREST_EVEN));
        assertEquals(0x80, MxElementType.INT8.encode(-5.0, Rounding.NEAREST_EVEN));
        assertEquals(0x02, MxElementType.INT8.encode(2.5 / 64, Rounding.NEAREST_EVEN));
        assertEquals(0x03, MxElementType.INT8.encode(2.5 / 64, Rounding.NEAREST_AWAY));
        assertEquals(0xFD, MxElementType.INT8.encode(-2.5 / 64, Rounding.NEAREST_AWAY));
    }

    @Test
    void elementEncodingSaturatesAndNeverMakesSpecials() {
        assertEquals(0x7E, MxElementType.FP8_E4M3.encode(1e9, Rounding.NEAREST_EVEN));
        assertEquals(0xFB, MxElementType.FP8_E5M2.encode(-1e9, Rounding.NEAREST_EVEN));
        assertEquals(0x1F, MxElementType.FP6_E3M2.encode(29.0, Rounding.NEAREST_AWAY));
        assertEquals(0x1F, MxElementType.FP6_E2M3.encode(8.0, Rounding.NEAREST_EVEN));
        assertEquals(0xF, MxElementType.FP4_E2M1.encode(-7.0, Rounding.NEAREST_EVEN));
        assertThrows(IllegalArgumentException.class, () -> MxElementType.FP4_E2M1.encode(Double.NaN, Rounding.NEAREST_EVEN));
    }

    @Test
    void e8m0CoversTwoToTheMinus127To127AndNaN() {
        for (int c = 0; c < 255; c++) {
            assertEquals(Math.scalb(1.0, c - 127), E8M0.decode(c));
        }
        assertTrue(Double.isNaN(E8M0.decode(0xFF)));
        assertEquals(0, E8M0.encodeClamped(-500));
        assertEquals(254, E8M0.encodeClamped(500));
        assertEquals(127, E8M0.encodeClamped(0));
        assertThrows(IllegalArgumentException.class, () -> E8M0.exponent(0xFF));
    }
}
