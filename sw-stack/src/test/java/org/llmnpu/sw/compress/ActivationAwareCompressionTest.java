package org.llmnpu.sw.compress;

import static org.junit.jupiter.api.Assertions.*;

import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.llmnpu.numerics.quant.QuantScheme;
import org.llmnpu.numerics.quant.QuantizedMatrix;
import org.llmnpu.numerics.quant.WeightQuantizer;
import org.llmnpu.numerics.sparse.NmPattern;
import org.llmnpu.numerics.sparse.NmPruner;

/**
 * Wanda, SparseGPT and GPTQ on one ragged matrix (K = 172, stories260K's hidden width) with calibration
 * inputs whose channels differ in scale and correlate, as real activations do: each method must lower
 * the layer's output error on those inputs against its data-free baseline, keep the N:M pattern, and
 * GPTQ's effective weights must be exactly its golden quantized matrix.
 */
class ActivationAwareCompressionTest {

    private static final int ROWS = 48;
    private static final int K = 172;

    private final float[][] w = new float[ROWS][K];
    private final float[][] x = new float[400][K];

    ActivationAwareCompressionTest() {
        Random r = new Random(3);
        for (float[] row : w) {
            for (int j = 0; j < K; j++) {
                row[j] = (float) r.nextGaussian();
            }
        }
        double[] scale = new double[K];
        for (int j = 0; j < K; j++) {
            scale[j] = Math.exp(1.5 * r.nextGaussian());
        }
        for (float[] s : x) {
            double shared = r.nextGaussian();
            for (int j = 0; j < K; j++) {
                s[j] = (float) (scale[j] * (0.6 * shared + 0.8 * r.nextGaussian()));
            }
        }
    }

    private double outputError(float[][] approx) {
        double err = 0;
        for (float[] s : x) {
            for (int i = 0; i < ROWS; i++) {
                double d = 0;
                for (int j = 0; j < K; j++) {
                    d += (double) s[j] * (w[i][j] - approx[i][j]);
                }
                err += d * d;
            }
        }
        return err;
    }

    @Test
    void wandaAndSparseGptBeatMagnitudeOnTheLayerOutputAndKeepThePattern() {
        for (NmPattern p : NmPattern.values()) {
            float[][] magnitude = NmPruner.prune(w, p);
            float[][] wanda = WandaPruner.prune(w, x, p);
            float[][] sparseGpt = ObsCompressor.run(w, Hessian.of(x), Optional.of(p), false, Optional.empty()).weights();
            assertTrue(NmPruner.satisfies(wanda, p) && NmPruner.satisfies(sparseGpt, p));
            double em = outputError(magnitude);
            double ew = outputError(wanda);
            double es = outputError(sparseGpt);
            assertTrue(ew < 0.8 * em, p + ": wanda " + ew + " vs magnitude " + em);
            assertTrue(es < 0.8 * ew, p + ": sparsegpt " + es + " vs wanda " + ew);
        }
    }

    @Test
    void gptqBeatsRoundToNearestAndIsItsOwnGoldenMatrix() {
        QuantScheme s = QuantScheme.parse("int4-g32");
        ObsCompressor.Result r = ObsCompressor.run(w, Hessian.of(x), Optional.empty(), false, Optional.of(s));
        QuantizedMatrix q = r.quantized().orElseThrow();
        assertEquals(6, q.groupsPerRow(), "172 = 5 x 32 + a padded group of 12");
        assertArrayEquals(q.dequantize(), r.weights());
        double rtn = outputError(WeightQuantizer.quantize(w, s).dequantize());
        double gptq = outputError(r.weights());
        assertTrue(gptq < 0.8 * rtn, "gptq " + gptq + " vs round-to-nearest " + rtn);
    }

    @Test
    void sparseGptWithGptqPrunesAndQuantizesInOneSweep() {
        QuantScheme s = QuantScheme.parse("int4-g32-asym");
        ObsCompressor.Result r = ObsCompressor.run(w, Hessian.of(x), Optional.of(NmPattern.FOUR_EIGHT), false, Optional.of(s));
        assertTrue(NmPruner.satisfies(r.weights(), NmPattern.FOUR_EIGHT));
        assertArrayEquals(r.quantized().orElseThrow().dequantize(), r.weights());
        float[][] baseline = WeightQuantizer.quantize(NmPruner.prune(w, NmPattern.FOUR_EIGHT), s).dequantize();
        assertTrue(outputError(r.weights()) < outputError(baseline));
    }

    @Test
    void deadInputChannelsDoNotBreakTheSolve() {
        float[][] xd = new float[x.length][];
        for (int i = 0; i < x.length; i++) {
            xd[i] = x[i].clone();
            xd[i][7] = 0;
            xd[i][171] = 0;
        }
        float[][] out = ObsCompressor.run(w, Hessian.of(xd), Optional.of(NmPattern.TWO_FOUR), false, Optional.empty()).weights();
        for (float[] row : out) {
            for (float v : row) {
                assertTrue(Float.isFinite(v));
            }
        }
    }

    @Test
    void awqFoldsItsScalesWithoutChangingTheFunctionAndNeverLosesToMinMaxOnItsInputs() throws Exception {
        var model = org.llmnpu.sw.io.ModelCatalog.load("stories260K", 0);
        var c = model.config();
        int[][] calib = {{1, 300, 17, 45, 99, 5, 310, 12, 400, 7, 8, 9}, {1, 44, 55, 66, 77, 88}};
        QuantScheme s = QuantScheme.parse("int4-g32");
        org.llmnpu.sw.model.LayerWeights[] folded = model.layers().clone();
        for (int l = 0; l < c.layers(); l++) {
            float[][][] in = ModelCompressor.recordLayerInputs(model, calib, l);
            folded[l] = AwqScaler.scale(c, model.layers()[l], in, s);
            // the chosen scales never do worse than alpha = 0 (min-max) on the recorded inputs
            double[] sq = AwqScaler.search(java.util.List.<float[][]>of(model.layers()[l].w2()), in[3], s, null);
            assertEquals(172, sq.length);
        }
        var a = new org.llmnpu.sw.model.Transformer(model);
        var b = new org.llmnpu.sw.model.Transformer(model.withLayers(folded));
        int[] tokens = {1, 300, 17, 45, 99, 5};
        float[][] la = a.forwardAll(tokens, a.newCache(tokens.length));
        float[][] lb = b.forwardAll(tokens, b.newCache(tokens.length));
        for (int p = 0; p < tokens.length; p++) {
            for (int v = 0; v < la[p].length; v++) {
                assertEquals(la[p][v], lb[p][v], 2e-3 * (1 + Math.abs(la[p][v])), "folded FP32 model, position " + p);
            }
        }
    }

    @Test
    void specsCarryTheirMethods() {
        CompressionSpec s = CompressionSpec.parse("int4-g32@gptq+2:4@sparsegpt", false);
        assertEquals(QuantMethod.GPTQ, s.quantMethod());
        assertEquals(PruneMethod.SPARSEGPT, s.pruneMethod());
        assertEquals("int4-g32@gptq+2:4@sparsegpt", s.toString());
        assertEquals("int4-g32+2:4", s.formats());
        assertEquals("4:8@wanda", CompressionSpec.parse("4:8", QuantMethod.CLIP, PruneMethod.WANDA).toString());
        var e = assertThrows(IllegalArgumentException.class, () -> CompressionSpec.parse("2:4@obs", false));
        assertTrue(e.getMessage().contains("magnitude, wanda or sparsegpt"));
        assertEquals(QuantMethod.AWQ, CompressionSpec.parse("int4-g32@awq", false).quantMethod());
        assertThrows(IllegalArgumentException.class, () -> CompressionSpec.parse("mxfp4@gptq", false));
    }
}
