package org.llmnpu.sw.graph;

/**
 * Operator kinds of the decoder graph, with their compiler class (what may fuse with what) and the
 * NPU unit that runs them: the Load unit dequantizes weights on the fly, the MAC array runs GEMMs,
 * the PPM post-processes GEMM outputs elementwise (bias, scale, activation, requantization, residual
 * add), the Vector DSP runs reductions and data movement (RMSNorm, SoftMax, RoPE), the host feeds
 * tokens and owns the KV cache.
 */
public enum OpKind {
    EMBED(OpClass.INJECTIVE, Unit.HOST),
    DEQUANT(OpClass.ELEMENTWISE, Unit.LOAD),
    GEMM(OpClass.GEMM, Unit.MAC_ARRAY),
    REQUANT(OpClass.ELEMENTWISE, Unit.PPM),
    SILU(OpClass.ELEMENTWISE, Unit.PPM),
    MUL(OpClass.ELEMENTWISE, Unit.PPM),
    ADD(OpClass.ELEMENTWISE, Unit.PPM),
    RMSNORM(OpClass.REDUCTION, Unit.VECTOR_DSP),
    ROPE(OpClass.ELEMENTWISE, Unit.VECTOR_DSP),
    KV_WRITE(OpClass.INJECTIVE, Unit.HOST),
    QK_MATMUL(OpClass.GEMM, Unit.MAC_ARRAY),
    SCALE_MASK(OpClass.ELEMENTWISE, Unit.PPM),
    SOFTMAX(OpClass.REDUCTION, Unit.VECTOR_DSP),
    PV_MATMUL(OpClass.GEMM, Unit.MAC_ARRAY);

    /** How compilers classify ops for fusion. */
    public enum OpClass { ELEMENTWISE, BROADCAST, INJECTIVE, REDUCTION, GEMM }

    /** NPU units. */
    public enum Unit { HOST, LOAD, MAC_ARRAY, PPM, VECTOR_DSP }

    private final OpClass opClass;
    private final Unit unit;

    OpKind(OpClass opClass, Unit unit) {
        this.opClass = opClass;
        this.unit = unit;
    }

    public OpClass opClass() {
        return opClass;
    }

    public Unit unit() {
        return unit;
    }
}
