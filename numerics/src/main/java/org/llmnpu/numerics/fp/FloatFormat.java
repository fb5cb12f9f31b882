package org.llmnpu.numerics.fp;

import java.math.BigInteger;

/**
 * A binary floating-point format {sign, exponent field, mantissa field} and the one rounding
 * routine every conversion in this module goes through.
 *
 * <p>Value of a code with exponent field {@code E} and mantissa field {@code M}
 * (m = {@code mantissaBits}): if {@code E == 0}, a subnormal {@code M · 2^(1-bias-m)};
 * otherwise {@code (2^m + M) · 2^(E-bias-m)} — unless the code is special:
 * <ul>
 *   <li>{@link Specials#IEEE}: {@code E} all ones is ±infinity ({@code M == 0}) or NaN
 *       (binary16, binary32, OCP FP8 E5M2);</li>
 *   <li>{@link Specials#NAN_ALL_ONES}: only {@code S.1111.111} is NaN, no infinities, the
 *       all-ones exponent holds normal values (OCP FP8 E4M3);</li>
 *   <li>{@link Specials#NONE}: every code is finite (OCP FP6 E3M2/E2M3, FP4 E2M1).</li>
 * </ul>
 * Every format has a +0 and a −0 code.
 *
 * <p>Rounding ({@link #roundExact}): the exact input {@code ±magnitude · 2^exponent} is rounded
 * to {@code mantissaBits + 1} significant bits at its own binade, or at the quantum
 * {@code 2^(emin - m)} if it lies below the smallest normal (gradual underflow, i.e. subnormals
 * are produced, never flushed). Rounding is done once, with the given {@link Rounding}; a value
 * that rounds to zero keeps its sign. If the rounded magnitude exceeds {@link #maxFinite()} the
 * {@link Overflow} policy applies. Canonical NaN produced by a conversion: positive sign,
 * exponent all ones, mantissa MSB set and the rest 0 for IEEE formats (binary16 0x7E00,
 * binary32 0x7FC00000, E5M2 0x7E), and 0x7F for E4M3.
 *
 * @param name human name, e.g. "fp8_e4m3"
 * @param exponentBits width of the exponent field, 1..11
 * @param mantissaBits width of the mantissa field (without the implicit bit), 0..52
 * @param bias exponent bias
 * @param specials which codes are infinities / NaN
 */
public record FloatFormat(String name, int exponentBits, int mantissaBits, int bias, Specials specials) {

    /** Which codes are not ordinary finite numbers. */
    public enum Specials { IEEE, NAN_ALL_ONES, NONE }

    public static final FloatFormat FP32 = new FloatFormat("fp32", 8, 23, 127, Specials.IEEE);
    public static final FloatFormat FP16 = new FloatFormat("fp16", 5, 10, 15, Specials.IEEE);
    public static final FloatFormat FP8_E4M3 = new FloatFormat("fp8_e4m3", 4, 3, 7, Specials.NAN_ALL_ONES);
    public static final FloatFormat FP8_E5M2 = new FloatFormat("fp8_e5m2", 5, 2, 15, Specials.IEEE);
    public static final FloatFormat FP6_E3M2 = new FloatFormat("fp6_e3m2", 3, 2, 3, Specials.NONE);
    public static final FloatFormat FP6_E2M3 = new FloatFormat("fp6_e2m3", 2, 3, 1, Specials.NONE);
    public static final FloatFormat FP4_E2M1 = new FloatFormat("fp4_e2m1", 2, 1, 1, Specials.NONE);

    public FloatFormat {
        if (exponentBits < 1 || exponentBits > 11) {
            throw new IllegalArgumentException("exponentBits must be in [1, 11], got " + exponentBits);
        }
        if (mantissaBits < 0 || mantissaBits > 52) {
            throw new IllegalArgumentException("mantissaBits must be in [0, 52], got " + mantissaBits);
        }
        if (specials == null) {
            throw new IllegalArgumentException("specials must not be null");
        }
    }

    /** Total code width in bits (sign + exponent + mantissa). */
    public int totalBits() {
        return 1 + exponentBits + mantissaBits;
    }

    /** Number of distinct codes, {@code 2^totalBits}. */
    public int codeCount() {
        return 1 << totalBits();
    }

    private int maxExponentField() {
        return (1 << exponentBits) - 1;
    }

    private long mantissaMask() {
        return (1L << mantissaBits) - 1;
    }

    /** Unbiased exponent of the smallest normal value, {@code 1 - bias}. */
    public int emin() {
        return 1 - bias;
    }

    /** Unbiased exponent of the largest finite value. */
    public int emax() {
        return (specials == Specials.IEEE ? maxExponentField() - 1 : maxExponentField()) - bias;
    }

    /** Mantissa field of the largest finite value (E4M3 reserves all ones for NaN). */
    private long maxMantissaAtEmax() {
        return specials == Specials.NAN_ALL_ONES ? mantissaMask() - 1 : mantissaMask();
    }

    /** Largest finite magnitude, e.g. 65504 for fp16, 448 for E4M3, 6 for E2M1. */
    public double maxFinite() {
        return Math.scalb((double) ((1L << mantissaBits) + maxMantissaAtEmax()), emax() - mantissaBits);
    }

    /** Code of ±{@link #maxFinite()}. */
    public int maxFiniteCode(boolean negative) {
        int e = emax() + bias;
        return signBit(negative) | (e << mantissaBits) | (int) maxMantissaAtEmax();
    }

    /** Whether the format has infinities. */
    public boolean hasInfinity() {
        return specials == Specials.IEEE;
    }

    /** Whether the format has NaN codes. */
    public boolean hasNaN() {
        return specials != Specials.NONE;
    }

    /** Canonical NaN code (see class comment); throws if the format has no NaN. */
    public int nanCode() {
        return switch (specials) {
            case IEEE -> (maxExponentField() << mantissaBits) | (1 << (mantissaBits - 1));
            case NAN_ALL_ONES -> (maxExponentField() << mantissaBits) | (int) mantissaMask();
            case NONE -> throw new IllegalArgumentException(name + " has no NaN code");
        };
    }

    /** Code of ±infinity; throws if the format has none. */
    public int infinityCode(boolean negative) {
        if (!hasInfinity()) {
            throw new IllegalArgumentException(name + " has no infinity code");
        }
        return signBit(negative) | (maxExponentField() << mantissaBits);
    }

    private int signBit(boolean negative) {
        return negative ? 1 << (exponentBits + mantissaBits) : 0;
    }

    private void checkCode(int code) {
        if (code < 0 || code >= codeCount()) {
            throw new IllegalArgumentException(name + " code must be in [0, " + (codeCount() - 1) + "], got " + code);
        }
    }

    /** Whether {@code code} is a NaN. */
    public boolean isNaN(int code) {
        checkCode(code);
        int e = (code >>> mantissaBits) & maxExponentField();
        long m = code & mantissaMask();
        return switch (specials) {
            case IEEE -> e == maxExponentField() && m != 0;
            case NAN_ALL_ONES -> e == maxExponentField() && m == mantissaMask();
            case NONE -> false;
        };
    }

    /** Whether {@code code} is ±infinity. */
    public boolean isInfinite(int code) {
        checkCode(code);
        return hasInfinity() && ((code >>> mantissaBits) & maxExponentField()) == maxExponentField()
                && (code & mantissaMask()) == 0;
    }

    /** Whether the sign bit of {@code code} is set. */
    public boolean isNegative(int code) {
        checkCode(code);
        return (code >>> (exponentBits + mantissaBits)) != 0;
    }

    /** Exact value of a code as a double (every format here embeds exactly in binary64). */
    public double decode(int code) {
        checkCode(code);
        if (isNaN(code)) {
            return Double.NaN;
        }
        double sign = isNegative(code) ? -1.0 : 1.0;
        if (isInfinite(code)) {
            return sign * Double.POSITIVE_INFINITY;
        }
        int e = (code >>> mantissaBits) & maxExponentField();
        long m = code & mantissaMask();
        if (e == 0) {
            return sign * Math.scalb((double) m, emin() - mantissaBits);
        }
        return sign * Math.scalb((double) ((1L << mantissaBits) | m), e - bias - mantissaBits);
    }

    /** {@link #encode(double, Rounding, Overflow)} with round-to-nearest-even and the format's natural overflow:
     * to infinity (or NaN for E4M3) when it has specials, saturating otherwise. */
    public int encode(double x) {
        return encode(x, Rounding.NEAREST_EVEN, hasNaN() ? Overflow.INFINITY : Overflow.SATURATE);
    }

    /**
     * Rounds a double once to this format. NaN becomes the canonical NaN (an error for formats
     * without NaN); ±infinity follows {@code overflow}; ±0 keeps its sign.
     */
    public int encode(double x, Rounding rounding, Overflow overflow) {
        boolean negative = (Double.doubleToRawLongBits(x) < 0);
        if (Double.isNaN(x)) {
            return nanCode();
        }
        if (Double.isInfinite(x)) {
            return overflowCode(negative, overflow);
        }
        long bits = Double.doubleToRawLongBits(x);
        int expField = (int) ((bits >>> 52) & 0x7FF);
        long frac = bits & ((1L << 52) - 1);
        if (expField == 0) {
            return roundExact(negative, frac, -1074, rounding, overflow);
        }
        return roundExact(negative, frac | (1L << 52), expField - 1075, rounding, overflow);
    }

    /** Rounds the exact value {@code signedMagnitude · 2^exponent} once; see {@link #roundExact(boolean, long, int, Rounding, Overflow)}. */
    public int roundExact(BigInteger signedMagnitude, int exponent, Rounding rounding, Overflow overflow) {
        boolean negative = signedMagnitude.signum() < 0;
        BigInteger abs = signedMagnitude.abs();
        int excess = abs.bitLength() - 62;
        if (excess <= 0) {
            return roundExact(negative, abs.longValueExact(), exponent, rounding, overflow);
        }
        // Keep 62 bits and fold everything below into a sticky LSB; 62 > 53 + 2 so the
        // rounding decision for at most 53 significant bits is unchanged.
        long reduced = abs.shiftRight(excess).longValueExact();
        if (abs.getLowestSetBit() < excess) {
            reduced |= 1;
        }
        return roundExact(negative, reduced, exponent + excess, rounding, overflow);
    }

    /**
     * Rounds the exact value {@code ±magnitude · 2^exponent} ({@code 0 <= magnitude < 2^63})
     * once to this format, as described in the class comment, and returns its code.
     */
    public int roundExact(boolean negative, long magnitude, int exponent, Rounding rounding, Overflow overflow) {
        if (magnitude < 0) {
            throw new IllegalArgumentException("magnitude must be >= 0, got " + magnitude);
        }
        if (magnitude == 0) {
            return signBit(negative);
        }
        int length = 64 - Long.numberOfLeadingZeros(magnitude);
        int valueExp = length - 1 + exponent;
        int quantumExp = Math.max(valueExp, emin()) - mantissaBits;
        int shift = quantumExp - exponent;
        long q;
        if (shift <= 0) {
            q = magnitude << -shift;
        } else {
            q = shift >= 64 ? 0 : magnitude >>> shift;
            boolean half = shift - 1 < 64 && ((magnitude >>> (shift - 1)) & 1) != 0;
            boolean sticky = shift - 1 >= 64 ? magnitude != 0
                    : (magnitude & ((1L << (shift - 1)) - 1)) != 0;
            if (rounding.roundsUp((q & 1) != 0, half, sticky)) {
                q++;
            }
        }
        if (q == 1L << (mantissaBits + 1)) {
            q >>>= 1;
            quantumExp++;
        }
        if (q == 0) {
            return signBit(negative);
        }
        boolean normal = q >= (1L << mantissaBits);
        int unbiased = quantumExp + mantissaBits;
        if (normal && (unbiased > emax() || (unbiased == emax() && (q & mantissaMask()) > maxMantissaAtEmax()))) {
            return overflowCode(negative, overflow);
        }
        int expField = normal ? unbiased + bias : 0;
        return signBit(negative) | (expField << mantissaBits) | (int) (q & mantissaMask());
    }

    private int overflowCode(boolean negative, Overflow overflow) {
        if (overflow == Overflow.SATURATE) {
            return maxFiniteCode(negative);
        }
        return switch (specials) {
            case IEEE -> infinityCode(negative);
            case NAN_ALL_ONES -> nanCode();
            case NONE -> throw new IllegalArgumentException(
                    name + " has neither infinity nor NaN; overflow must be SATURATE");
        };
    }
}
