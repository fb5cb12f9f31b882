package org.llmnpu.sw.graph;

import java.util.Optional;
import org.llmnpu.numerics.sparse.NmPattern;
import org.llmnpu.sw.model.ModelConfig;

/**
 * What one static graph processes: {@code tokens} new tokens (the prefill length, or 1 for decode)
 * attending over {@code kvLength} cached positions (new tokens included), with weights stored as
 * {@code weightType} and the KV cache as {@code kvType}; with {@code sparsity} the weights are stored
 * in the N:M compressed layout (kept values plus position indices) and the MAC array skips the zeros.
 */
public record GraphShape(ModelConfig model, int tokens, int kvLength, DType weightType, DType kvType,
                         Optional<NmPattern> sparsity) {

    public GraphShape(ModelConfig model, int tokens, int kvLength, DType weightType, DType kvType) {
        this(model, tokens, kvLength, weightType, kvType, Optional.empty());
    }

    public GraphShape {
        if (tokens < 1) {
            throw new IllegalArgumentException("tokens must be >= 1, got " + tokens);
        }
        if (kvLength < tokens) {
            throw new IllegalArgumentException("kvLength must be >= tokens " + tokens + ", got " + kvLength);
        }
    }

    public static GraphShape prefill(ModelConfig c, int length, DType weights) {
        return new GraphShape(c, length, length, weights, DType.FP16);
    }

    public static GraphShape decode(ModelConfig c, int context, DType weights) {
        return new GraphShape(c, 1, context, weights, DType.FP16);
    }

    public GraphShape withSparsity(NmPattern pattern) {
        return new GraphShape(model, tokens, kvLength, weightType, kvType, Optional.of(pattern));
    }

    /** Share of weights stored and multiplied: N/M with sparsity, else 1. */
    public double weightDensity() {
        return sparsity.map(p -> p.n() / (double) p.m()).orElse(1.0);
    }
}
