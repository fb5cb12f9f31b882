package org.llmnpu.numerics.vector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.llmnpu.numerics.fp16.Fp16;

/** The lane-then-tree reduction order that the DSP must reproduce bit for bit. */
class ReductionTest {

    @Test
    void lanesFoldStridedElementsInIndexOrderThenATreeHalvesThem() {
        // Records the order of additions as a string expression.
        String[] v = {"a", "b", "c", "d", "e", "f"};
        String four = Reduction.reduce(v, "0", (x, y) -> "(" + x + "+" + y + ")", new VectorConfig(4));
        assertEquals("((((0+a)+e)+(0+c))+(((0+b)+f)+(0+d)))", four);
        String one = Reduction.reduce(v, "0", (x, y) -> "(" + x + "+" + y + ")", new VectorConfig(1));
        assertEquals("((((((0+a)+b)+c)+d)+e)+f)", one);
    }

    @Test
    void fp32SumsRoundAtEveryAdditionInThatOrder() {
        float big = 1 << 24;
        float[] v = {big, 1, -big, 1};
        assertEquals(1.0f, Reduction.sum(v, new VectorConfig(1)), "(2^24 + 1) rounds to 2^24, then -2^24 + 1");
        assertEquals(2.0f, Reduction.sum(v, new VectorConfig(2)), "lane 0 holds 2^24 and -2^24, lane 1 holds 1 and 1: exact");
    }

    @Test
    void sumOfSquaresIsExactPerElementInFp32() {
        short x = Fp16.fromDouble(2047);
        assertEquals(2047f * 2047f, Reduction.sumOfSquares(new short[] {x}, VectorConfig.DEFAULT));
        short max = Fp16.MAX_VALUE;
        assertEquals(65504f * 65504f, Reduction.sumOfSquares(new short[] {max}, VectorConfig.DEFAULT));
    }

    @Test
    void maxIgnoresNaNAndAnEmptyVectorGivesMinusInfinity() {
        short[] v = {Fp16.fromDouble(-3), Fp16.NaN, Fp16.fromDouble(2), Fp16.NEGATIVE_ZERO};
        assertEquals(Fp16.fromDouble(2), Reduction.max(v, VectorConfig.DEFAULT));
        assertEquals(Fp16.NEGATIVE_INFINITY, Reduction.max(new short[0], VectorConfig.DEFAULT));
        assertEquals(Fp16.NEGATIVE_INFINITY, Reduction.max(new short[] {Fp16.NaN}, VectorConfig.DEFAULT));
        assertEquals(0.0f, Reduction.sum(new short[0], VectorConfig.DEFAULT));
    }

    @Test
    void laneCountMustBeAPowerOfTwo() {
        var e = assertThrows(IllegalArgumentException.class, () -> new VectorConfig(6));
        assertTrue(e.getMessage().startsWith("lanes"));
    }
}
