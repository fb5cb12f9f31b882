package org.llmnpu.sw.model;

/**
 * All weights of a model: token embedding [vocab][dim], the blocks, the final RMSNorm gain and the
 * LM head [vocab][dim] (may be the embedding itself when shared).
 */
public record ModelWeights(ModelConfig config, float[][] tokenEmbedding, LayerWeights[] layers,
                           float[] finalNorm, float[][] lmHead) {

    public ModelWeights {
        if (layers.length != config.layers()) {
            throw new IllegalArgumentException("expected " + config.layers() + " layers, got " + layers.length);
        }
        if (tokenEmbedding.length != config.vocabSize() || lmHead.length != config.vocabSize()) {
            throw new IllegalArgumentException("embedding and LM head must have vocabSize = " + config.vocabSize() + " rows");
        }
    }

    /** A copy whose block weights are {@code layers}; embedding, final norm and head are shared. */
    public ModelWeights withLayers(LayerWeights[] newLayers) {
        return new ModelWeights(config, tokenEmbedding, newLayers, finalNorm, lmHead);
    }

    /** Number of parameters in the projection matrices of all blocks. */
    public long projectionParameters() {
        long n = 0;
        for (LayerWeights l : layers) {
            for (float[][] m : l.projections()) {
                n += (long) m.length * m[0].length;
            }
        }
        return n;
    }
}
