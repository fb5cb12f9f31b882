package org.llmnpu.sw.model;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/** The recorded layer is the forward pass: replaying it gives the model's own intermediate values. */
class LayerActivationsTest {

    @Test
    void recordedVectorsAreThoseOfTheForwardPass() {
        ModelConfig c = ModelConfig.tiny();
        Transformer model = new Transformer(SyntheticWeights.generate(c, 3));
        int[] prompt = SyntheticPrompts.prompt(c, 24, 4);
        LayerActivations a = LayerActivations.capture(model, prompt, 2);
        assertEquals(23, a.pos());
        assertEquals(24, a.scoresHead0().length);
        assertArrayEquals(Ops.rmsNorm(a.residualIn(), a.attnNormGain(), c.normEps()), a.attnNormOut());
        float[] q = a.queryHead0().clone();
        Ops.rope(q, a.pos(), c.headDim(), c.ropeTheta());
        assertArrayEquals(q, a.queryHead0Rotated());
        float sum = 0;
        for (float p : a.probabilitiesHead0()) {
            sum += p;
        }
        assertEquals(1f, sum, 1e-5f);
        for (int i = 0; i < c.dim(); i++) {
            assertEquals(a.residualIn()[i] + a.attentionProjection()[i], a.residualMid()[i]);
        }

        // the next layer's input equals what the model computes: record layer 3 and compare its input
        LayerActivations next = LayerActivations.capture(model, prompt, 3);
        float[] x = a.residualMid().clone();
        float[] down = Ops.matvec(model.weights().layers()[2].w2(), a.swiglu());
        for (int i = 0; i < x.length; i++) {
            x[i] += down[i];
        }
        assertArrayEquals(x, next.residualIn());
    }

    @Test
    void badLayerIsRefused() {
        Transformer model = new Transformer(SyntheticWeights.generate(ModelConfig.tiny(), 3));
        assertThrows(IllegalArgumentException.class, () -> LayerActivations.capture(model, new int[] {1, 5}, 4));
    }
}
