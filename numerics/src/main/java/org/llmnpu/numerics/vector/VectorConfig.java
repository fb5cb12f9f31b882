package org.llmnpu.numerics.vector;

/**
 * Vector DSP shape that the golden kernels depend on bit for bit: the lane count fixes the
 * reduction order (see {@link Reduction}).
 *
 * @param lanes SIMD lanes, a power of two in [1, 64] [8]
 */
public record VectorConfig(int lanes) {

    /** NPU-SPEC default: 8 lanes. */
    public static final VectorConfig DEFAULT = new VectorConfig(8);

    public VectorConfig {
        if (lanes < 1 || lanes > 64 || Integer.bitCount(lanes) != 1) {
            throw new IllegalArgumentException("lanes must be a power of two in [1, 64], got " + lanes);
        }
    }
}
