package org.llmnpu.numerics.ppu;

/**
 * Shape of a PPU C-LUT: how many segments, the polynomial degree and the coefficient width.
 *
 * @param segments number of segments, 1..64 [16]
 * @param degree polynomial degree, 0..4 [2]
 * @param coeffBits signed coefficient width in bits, 8..24 [16]
 */
public record PpuFormat(int segments, int degree, int coeffBits) {

    /** NPU-SPEC default: 16 segments, degree 2, 16-bit coefficients. */
    public static final PpuFormat DEFAULT = new PpuFormat(16, 2, 16);

    public PpuFormat {
        if (segments < 1 || segments > 64) {
            throw new IllegalArgumentException("segments must be in [1, 64], got " + segments);
        }
        if (degree < 0 || degree > 4) {
            throw new IllegalArgumentException("degree must be in [0, 4], got " + degree);
        }
        if (coeffBits < 8 || coeffBits > 24) {
            throw new IllegalArgumentException("coeffBits must be in [8, 24], got " + coeffBits);
        }
    }

    /** Largest coefficient value, 2^(coeffBits−1) − 1. */
    public int coeffMax() {
        return (1 << (coeffBits - 1)) - 1;
    }

    /** Smallest coefficient value, −2^(coeffBits−1). */
    public int coeffMin() {
        return -(1 << (coeffBits - 1));
    }
}
