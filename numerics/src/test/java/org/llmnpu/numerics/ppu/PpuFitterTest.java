package org.llmnpu.numerics.ppu;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Fitted tables of the shipped functions: measured error, shape and determinism. */
class PpuFitterTest {

    @Test
    void everyShippedFunctionIsWithinOneInt8LsbOfItsDoubleReferenceOnEveryInput() {
        for (PpuFunction f : PpuFunction.values()) {
            PpuTable table = PpuFitter.fit(f, PpuFormat.DEFAULT);
            PpuError e = PpuError.measure(table, f);
            assertTrue(e.maxCodeError() <= 1, f + " max code error " + e.maxCodeError());
            assertTrue(e.maxRealError() < 0.6, f + " max real error " + e.maxRealError());
            assertTrue(e.exactCodes() >= 250, f + " exact codes " + e.exactCodes());
        }
    }

    @Test
    void monotoneFunctionsGiveMonotoneTables() {
        for (PpuFunction f : new PpuFunction[] {PpuFunction.SIGMOID, PpuFunction.TANH, PpuFunction.EXP}) {
            int[] out = PpuEvaluator.evaluateAll(PpuFitter.fit(f, PpuFormat.DEFAULT));
            for (int i = 1; i < out.length; i++) {
                assertTrue(out[i] >= out[i - 1], f + " at input " + (i - 128));
            }
        }
    }

    @Test
    void knownValuesComeOutRight() {
        PpuTable sigmoid = PpuFitter.fit(PpuFunction.SIGMOID, PpuFormat.DEFAULT);
        assertEquals(0, PpuEvaluator.evaluate(sigmoid, 0), "sigmoid(0) = 0.5 -> code 0 with zp -128, scale 1/256");
        PpuTable exp = PpuFitter.fit(PpuFunction.EXP, PpuFormat.DEFAULT);
        assertEquals(127, PpuEvaluator.evaluate(exp, 127), "exp(0) = 1 -> top code");
        assertEquals(-128, PpuEvaluator.evaluate(exp, -128), "exp(-15.9) ~ 0");
        PpuTable tanh = PpuFitter.fit(PpuFunction.TANH, PpuFormat.DEFAULT);
        assertEquals(0, PpuEvaluator.evaluate(tanh, 0));
    }

    @Test
    void curvedRegionsGetShorterSegments() {
        PpuTable exp = PpuFitter.fit(PpuFunction.EXP, PpuFormat.DEFAULT);
        int segments = exp.format().segments();
        int firstLength = exp.last(0) - exp.base(0) + 1;
        int lastLength = exp.last(segments - 1) - exp.base(segments - 1) + 1;
        assertTrue(lastLength < firstLength, "exp is flat near -16 and curved near 0: " + firstLength + " vs " + lastLength);
    }

    @Test
    void aCoarseTableReportsItsLargerErrorRatherThanHidingIt() {
        PpuError coarse = PpuError.measure(PpuFitter.fit(PpuFunction.SIGMOID, new PpuFormat(2, 1, 16)), PpuFunction.SIGMOID);
        assertTrue(coarse.maxCodeError() > 5, "2 linear segments cannot follow a sigmoid: " + coarse);
        PpuError narrow = PpuError.measure(PpuFitter.fit(PpuFunction.GELU, new PpuFormat(16, 2, 8)), PpuFunction.GELU);
        PpuError wide = PpuError.measure(PpuFitter.fit(PpuFunction.GELU, PpuFormat.DEFAULT), PpuFunction.GELU);
        assertTrue(narrow.maxRealError() >= wide.maxRealError(), "8-bit coefficients are no better than 16-bit ones");
    }

    @Test
    void fittingIsDeterministic() {
        PpuTable a = PpuFitter.fit(PpuFunction.GELU, PpuFormat.DEFAULT);
        PpuTable b = PpuFitter.fit(PpuFunction.GELU, PpuFormat.DEFAULT);
        assertArrayEquals(a.boundaries(), b.boundaries());
        assertArrayEquals(a.coefficients(), b.coefficients());
        assertArrayEquals(a.fracBits(), b.fracBits());
    }
}
