package org.llmnpu.sw.graph;

import java.util.Arrays;

/**
 * A graph tensor: name, shape, element type, and whether it lives off-chip by nature (weights, the
 * KV cache, graph inputs and outputs) rather than being an intermediate a fused kernel can keep on chip.
 */
public record Tensor(String name, long[] shape, DType dtype, boolean resident) {

    public long elements() {
        long n = 1;
        for (long s : shape) {
            n *= s;
        }
        return n;
    }

    public long bytes() {
        return dtype.bytes(elements());
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Tensor t && t.name.equals(name);
    }

    @Override
    public int hashCode() {
        return name.hashCode();
    }

    @Override
    public String toString() {
        return name + Arrays.toString(shape) + ":" + dtype;
    }
}
