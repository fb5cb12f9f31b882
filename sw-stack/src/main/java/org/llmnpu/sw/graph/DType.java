package org.llmnpu.sw.graph;

/** Element types of graph tensors and their storage size in bits (INT2/INT3: N:M position indices). */
public enum DType {
    INT2(2), INT3(3), INT4(4), INT8(8), FP16(16), INT32(32), FP32(32);

    private final int bits;

    DType(int bits) {
        this.bits = bits;
    }

    public int bits() {
        return bits;
    }

    public long bytes(long elements) {
        return (elements * bits + 7) / 8;
    }
}
