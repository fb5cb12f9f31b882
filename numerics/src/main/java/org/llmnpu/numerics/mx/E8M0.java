package org.llmnpu.numerics.mx;

/**
 * The OCP MX shared scale: an 8-bit unsigned biased exponent, value 2^(code − 127) for codes
 * 0..254 (2^-127 .. 2^127) and NaN for 0xFF. No sign, no zero, no infinity.
 */
public final class E8M0 {
    public static final int BIAS = 127;
    public static final int NaN = 0xFF;
    public static final int MIN_EXPONENT = -127;
    public static final int MAX_EXPONENT = 127;

    private E8M0() {
    }

    /** Whether the code is the NaN scale. */
    public static boolean isNaN(int code) {
        check(code);
        return code == NaN;
    }

    /** Unbiased exponent of a non-NaN code. */
    public static int exponent(int code) {
        check(code);
        if (code == NaN) {
            throw new IllegalArgumentException("E8M0 code 0xFF is NaN and has no exponent");
        }
        return code - BIAS;
    }

    /** Exact value 2^(code − 127), or NaN for 0xFF. */
    public static double decode(int code) {
        return isNaN(code) ? Double.NaN : Math.scalb(1.0, code - BIAS);
    }

    /** Code of 2^exponent with the exponent clamped to [−127, 127]. */
    public static int encodeClamped(int exponent) {
        return Math.max(MIN_EXPONENT, Math.min(MAX_EXPONENT, exponent)) + BIAS;
    }

    private static void check(int code) {
        if (code < 0 || code > 255) {
            throw new IllegalArgumentException("E8M0 code must be in [0, 255], got " + code);
        }
    }
}
