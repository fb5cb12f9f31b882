package org.llmnpu.sw.compress;

import static org.junit.jupiter.api.Assertions.*;

import org.junit.jupiter.api.Test;
import org.llmnpu.numerics.sparse.NmPattern;
import org.llmnpu.numerics.sparse.NmPruner;
import org.llmnpu.sw.TestModels;
import org.llmnpu.sw.eval.AccuracyEvaluation;
import org.llmnpu.sw.eval.LogitComparison;
import org.llmnpu.sw.model.ModelWeights;
import org.llmnpu.sw.model.SyntheticPrompts;
import org.llmnpu.sw.model.Transformer;

class ModelCompressorTest {

    private final ModelWeights w = TestModels.micro(8);
    private final int[] tokens = SyntheticPrompts.prompt(TestModels.MICRO, 24, 9);

    private LogitComparison accuracy(String spec, boolean calibrate) {
        CompressedModel m = ModelCompressor.compress(w, CompressionSpec.parse(spec, calibrate), tokens);
        return AccuracyEvaluation.evaluate(new Transformer(w), new Transformer(m.effectiveWeights()), tokens, 1);
    }

    @Test
    void int8IsMoreAccurateThanInt4() {
        assertTrue(accuracy("int8", false).snrDb() > accuracy("int4-g32", false).snrDb() + 10);
    }

    @Test
    void uncompressedModelMatchesExactly() {
        LogitComparison c = accuracy("fp32", false);
        assertEquals(Double.POSITIVE_INFINITY, c.snrDb());
        assertEquals(0, c.klDivergence(), 1e-12);
        assertEquals(1.0, c.top1Agreement());
    }

    @Test
    void prunedWeightsFollowThePatternAndStayPrunedAfterQuantization() {
        CompressedModel m = ModelCompressor.compress(w, CompressionSpec.parse("int4-g32-asym+2:4", false), tokens);
        for (var layer : m.effectiveWeights().layers()) {
            for (float[][] p : layer.projections()) {
                assertTrue(NmPruner.satisfies(p, NmPattern.TWO_FOUR));
            }
        }
    }

    @Test
    void storageShrinksAsExpected() {
        double int8 = ModelCompressor.compress(w, CompressionSpec.parse("int8", false), tokens).sizeRatio();
        double int4 = ModelCompressor.compress(w, CompressionSpec.parse("int4-g32", false), tokens).sizeRatio();
        double int8Sparse = ModelCompressor.compress(w, CompressionSpec.parse("int8+2:4", false), tokens).sizeRatio();
        assertTrue(int8 > 0.25 && int8 < 0.27, "int8 " + int8);
        assertTrue(int4 > 0.125 && int4 < 0.16, "int4-g32 " + int4);
        assertTrue(int8Sparse > 0.125 + 1 / 64.0 && int8Sparse < int8, "int8+2:4 " + int8Sparse);
    }

    @Test
    void calibrationDoesNotHurtInt4() {
        assertTrue(accuracy("int4", true).snrDb() >= accuracy("int4", false).snrDb() - 0.5);
    }

    @Test
    void specsParse() {
        assertEquals("int4-g32+2:4", CompressionSpec.parse("int4-g32+2:4", false).toString());
        assertEquals("fp32", CompressionSpec.parse("fp32", false).toString());
        assertThrows(IllegalArgumentException.class, () -> CompressionSpec.parse("int4+3:4", false));
    }
}
