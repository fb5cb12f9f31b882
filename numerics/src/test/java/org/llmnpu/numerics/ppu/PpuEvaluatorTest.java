package org.llmnpu.numerics.ppu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Bit-level semantics of the PPU: segment search, Horner with shifts, rounding and saturation. */
class PpuEvaluatorTest {

    private static final QuantSpec UNIT = new QuantSpec(1.0, 0);

    private static PpuTable table(int[] boundaries, int[][] coeffs, int[] frac, int coeffBits) {
        PpuFormat f = new PpuFormat(boundaries.length + 1, coeffs[0].length - 1, coeffBits);
        return new PpuTable("test", f, boundaries, coeffs, frac, UNIT, UNIT);
    }

    @Test
    void segmentIsTheNumberOfBoundariesAtOrBelowTheInput() {
        PpuTable t = table(new int[] {-64, 0, 64}, new int[][] {{0}, {0}, {0}, {0}}, new int[] {0}, 8);
        assertEquals(0, PpuEvaluator.segmentOf(t, -128));
        assertEquals(0, PpuEvaluator.segmentOf(t, -65));
        assertEquals(1, PpuEvaluator.segmentOf(t, -64));
        assertEquals(2, PpuEvaluator.segmentOf(t, 63));
        assertEquals(3, PpuEvaluator.segmentOf(t, 127));
        assertEquals(-64, t.base(1));
        assertEquals(127, t.last(3));
    }

    @Test
    void hornerInTheSegmentOffsetReproducesAnExactLinearTable() {
        // y = base + t = q in both segments: c1 = 1, c0 = base.
        PpuTable identity = table(new int[] {0}, new int[][] {{-128, 1, 0}, {0, 1, 0}}, new int[] {0, 0, 0}, 16);
        for (int q = -128; q <= 127; q++) {
            assertEquals(q, PpuEvaluator.evaluate(identity, q));
        }
    }

    @Test
    void quadraticWithShiftsRoundsEachStepHalfAwayFromZero() {
        // fracBits {1, 2, 4}: y = ((c2*t >> 2) + c1) * t >> 1 + c0, then >> 1.
        int[][] c = {{-3, 5, 3}};
        PpuTable t = table(new int[0], c, new int[] {1, 2, 4}, 16);
        for (int q = -128; q <= -100; q++) {
            long tt = q + 128;
            long acc = PpuEvaluator.roundingShiftRight(3 * tt, 2) + 5;
            acc = PpuEvaluator.roundingShiftRight(acc * tt, 1) - 3;
            long y = PpuEvaluator.roundingShiftRight(acc, 1);
            assertEquals(Math.max(-128, Math.min(127, y)), PpuEvaluator.evaluate(t, q));
        }
        assertEquals(-2, PpuEvaluator.evaluate(table(new int[0], new int[][] {{-3}}, new int[] {1}, 8), 0), "-1.5 -> -2");
        assertEquals(2, PpuEvaluator.evaluate(table(new int[0], new int[][] {{3}}, new int[] {1}, 8), 0), "1.5 -> 2");
        assertEquals(1, PpuEvaluator.evaluate(table(new int[0], new int[][] {{5}}, new int[] {2}, 8), 0), "1.25 -> 1");
    }

    @Test
    void intermediatesSaturateAtInt32AndTheOutputAtInt8() {
        int max = (1 << 23) - 1;
        PpuTable t = table(new int[0], new int[][] {{max, max, max, max, max}}, new int[] {0, 0, 0, 0, 0}, 24);
        assertEquals(127, PpuEvaluator.evaluate(t, 127));
        PpuTable negative = table(new int[0], new int[][] {{-max, -max, -max}}, new int[] {0, 0, 0}, 24);
        assertEquals(-128, PpuEvaluator.evaluate(negative, 100));
        // Without INT32 saturation, max*127^4 would wrap negative and the output would be -128.
        PpuTable quartic = table(new int[0], new int[][] {{0, 0, 0, 0, max}}, new int[] {0, 0, 0, 0, 0}, 24);
        assertEquals(127, PpuEvaluator.evaluate(quartic, 127));
    }

    @Test
    void tablesAreValidatedNamingTheBadField() {
        var e = assertThrows(IllegalArgumentException.class,
                () -> table(new int[] {5, 5}, new int[][] {{0}, {0}, {0}}, new int[] {0}, 8));
        assertTrue(e.getMessage().startsWith("boundaries[1]"));
        e = assertThrows(IllegalArgumentException.class, () -> table(new int[0], new int[][] {{300}}, new int[] {0}, 8));
        assertTrue(e.getMessage().startsWith("coefficients[0][0]"));
        e = assertThrows(IllegalArgumentException.class, () -> table(new int[0], new int[][] {{0, 0}}, new int[] {3, 2}, 8));
        assertTrue(e.getMessage().startsWith("fracBits[0]"));
        e = assertThrows(IllegalArgumentException.class, () -> new PpuFormat(16, 2, 30));
        assertTrue(e.getMessage().startsWith("coeffBits"));
        assertThrows(IllegalArgumentException.class, () -> PpuEvaluator.evaluate(table(new int[0], new int[][] {{0}}, new int[] {0}, 8), 128));
    }
}
