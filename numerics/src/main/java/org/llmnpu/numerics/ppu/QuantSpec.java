package org.llmnpu.numerics.ppu;

/**
 * Affine INT8 quantization of a real value: {@code real = scale · (code − zeroPoint)}.
 *
 * @param scale real step per code, &gt; 0
 * @param zeroPoint code of real 0, −128..127
 */
public record QuantSpec(double scale, int zeroPoint) {
    public QuantSpec {
        if (!(scale > 0) || Double.isInfinite(scale)) {
            throw new IllegalArgumentException("scale must be finite and > 0, got " + scale);
        }
        if (zeroPoint < -128 || zeroPoint > 127) {
            throw new IllegalArgumentException("zeroPoint must be in [-128, 127], got " + zeroPoint);
        }
    }

    /** Real value of an INT8 code. */
    public double toReal(int code) {
        return scale * (code - zeroPoint);
    }

    /** Unrounded, unclamped code of a real value: {@code real / scale + zeroPoint}. */
    public double toCode(double real) {
        return real / scale + zeroPoint;
    }
}
