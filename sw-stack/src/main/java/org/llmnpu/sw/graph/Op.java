package org.llmnpu.sw.graph;

import java.util.List;

/** One operator: kind, inputs and its single output. {@code id} is its position in topological order. */
public record Op(int id, String name, OpKind kind, List<Tensor> inputs, Tensor output) {

    /** GEMM-like ops: (M, K, N) of the product, for the tiling search and the weight width. */
    public long[] gemmShape() {
        Tensor a = inputs.get(0);
        long m = a.shape()[0];
        long k = a.shape()[a.shape().length - 1];
        long n = output.shape()[output.shape().length - 1];
        return new long[] {m, k, n};
    }
}
