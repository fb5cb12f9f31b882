package org.llmnpu.sw.compress;

import org.llmnpu.sw.model.ModelWeights;

/**
 * A compressed model: the effective FP32 weights the executor computes with (dequantized, pruned)
 * and the bytes the compressed projection matrices occupy in memory — what a bandwidth-bound decode
 * step must read.
 */
public record CompressedModel(CompressionSpec spec, ModelWeights effectiveWeights, long projectionBytes,
                              long fp32ProjectionBytes) {

    /** Compressed size relative to FP32 (e.g. 0.14 for INT4-g32). */
    public double sizeRatio() {
        return projectionBytes / (double) fp32ProjectionBytes;
    }
}
