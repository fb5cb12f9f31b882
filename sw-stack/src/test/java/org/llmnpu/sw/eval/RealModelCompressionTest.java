package org.llmnpu.sw.eval;

import static org.junit.jupiter.api.Assertions.*;

import java.io.IOException;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.llmnpu.numerics.sparse.NmPattern;
import org.llmnpu.numerics.sparse.NmPruner;
import org.llmnpu.sw.compress.CompressedModel;
import org.llmnpu.sw.compress.CompressionSpec;
import org.llmnpu.sw.compress.ModelCompressor;
import org.llmnpu.sw.io.ModelCatalog;
import org.llmnpu.sw.model.ModelWeights;
import org.llmnpu.sw.model.Transformer;
import org.llmnpu.sw.run.EvalOptions;
import org.llmnpu.sw.run.EvalRow;
import org.llmnpu.sw.run.SwEval;

/**
 * Every compression on the real stories260K (hidden 172: no group divides it) with a short calibration
 * and held-out set (the README table uses 1,024 and 2,048 tokens; {@code RealModelFigures}).
 */
class RealModelCompressionTest {

    static ModelWeights model;
    static List<EvalRow> rows;

    @BeforeAll
    static void evaluate() throws IOException {
        model = ModelCatalog.load("stories260K", 0);
        List<CompressionSpec> specs = List.of("fp32", "int4-g32", "int4-g32@gptq", "int4-g32@awq", "4:8", "4:8@wanda", "4:8@sparsegpt",
                "mxfp4+2:4", "int8-asym+2:4@sparsegpt").stream().map(s -> CompressionSpec.parse(s, false)).toList();
        rows = SwEval.run(model, new EvalOptions("stories260K", Optional.empty(), specs, 4, 64, 4, 65, 0));
    }

    private EvalRow row(String spec) {
        return rows.stream().filter(r -> r.compression().equals(spec)).findFirst().orElseThrow();
    }

    @Test
    void noPassRefusesTheRaggedShapeAndPatternsHold() {
        assertEquals(9, rows.size());
        CompressedModel m = ModelCompressor.compress(model, CompressionSpec.parse("int4-g32+4:8", false), new int[] {1, 5, 9});
        assertTrue(NmPruner.satisfies(m.effectiveWeights().layers()[0].w2(), NmPattern.FOUR_EIGHT));
        assertEquals(172, m.effectiveWeights().layers()[0].w2()[0].length);
    }

    @Test
    void fp32IsExactAndPerplexityIsMeasuredOnHeldOutTokens() {
        EvalRow fp32 = row("fp32");
        assertEquals(256, fp32.positions());
        assertEquals(0, fp32.klDivergence(), 1e-12);
        assertEquals(1.0, fp32.top1Agreement());
        assertEquals(fp32.fp32Perplexity(), fp32.perplexity(), 1e-9);
        assertTrue(fp32.perplexity() > 1 && fp32.perplexity() < 100, "perplexity " + fp32.perplexity());
    }

    @Test
    void activationAwareMethodsBeatTheirBaselinesOnTheRealModel() {
        assertTrue(row("int4-g32@gptq").klDivergence() < row("int4-g32").klDivergence());
        assertTrue(row("int4-g32@awq").klDivergence() < row("int4-g32").klDivergence());
        assertTrue(row("4:8@sparsegpt").klDivergence() < row("4:8").klDivergence());
        assertTrue(row("4:8@sparsegpt").perplexity() < row("4:8").perplexity());
        assertTrue(row("4:8@wanda").klDivergence() < row("4:8").klDivergence());
    }

    @Test
    void calibrationAndHeldOutSetsAreDisjointSamplesOfTheModel() {
        Transformer t = new Transformer(model);
        int[][] cal = SampledSequences.sample(t, 3, 32, SampledSequences.CALIBRATION_SEED);
        int[][] held = SampledSequences.sample(t, 3, 32, SampledSequences.EVALUATION_SEED);
        assertTrue(SampledSequences.disjoint(cal, held));
        assertArrayEquals(cal[1], SampledSequences.sample(t, 3, 32, SampledSequences.CALIBRATION_SEED)[1], "seeded");
        assertEquals(SampledSequences.BOS, cal[0][0]);
    }
}
