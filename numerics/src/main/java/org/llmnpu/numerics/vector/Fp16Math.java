package org.llmnpu.numerics.vector;

import org.llmnpu.numerics.fp16.Fp16;
import org.llmnpu.numerics.fp16.IntFormat;

/**
 * exp, reciprocal and reciprocal square root of FP16 values exactly as the Vector DSP computes
 * them: every intermediate is an FP16 value produced by one correctly rounded {@link Fp16}
 * operation or one fused multiply-add ({@link Fp16#fma}, rounded once; no wider datapath), so FP16
 * hardware reproduces each result bit for bit. Table constants are computed with {@link StrictMath}, so they are the same on every
 * JVM. Seeds come from {@link SegmentedPolynomial} tables ({@link #EXP_TABLE},
 * {@link #RECIPROCAL_TABLE}, {@link #RSQRT_TABLE}) whose FP16 coefficients the RTL loads.
 *
 * <p><b>exp(x)</b>: x ≥ 12 → +∞, x ≤ −18 → +0 (both correctly rounded there), NaN → NaN.
 * Otherwise {@code k = Fp16.toInt(x, LOG2E, INT8)} (the exact product rounded half-even to an integer);
 * {@code r = (x − k·LN2_HI) − k·LN2_LO} (Cody–Waite: LN2_HI = 0.6875 has 4 significant bits, so
 * {@code k·LN2_HI} is exact); {@code p = EXP_TABLE(r)} (8 segments of width 1/8 on [−0.5, 0.5),
 * degree 2); result {@code scalb(p, k)} (exact unless subnormal or overflowing).
 * Bound: ≤ {@value #EXP_ULP_BOUND} ULP over all 65,536 inputs.
 *
 * <p><b>reciprocal(x)</b>: x = ±m·2^e with m in [1, 2) (exact, subnormals normalized);
 * {@code y0 = RECIPROCAL_TABLE(m)} (8 quadratic segments of width 1/8); one Newton step
 * {@code y1 = y0 · (2 − m·y0)}; result {@code ±scalb(y1, −e)}. ±0 → ±∞, ±∞ → ±0, NaN → NaN.
 * Bound: ≤ {@value #RECIPROCAL_ULP_BOUND} ULP over all inputs.
 *
 * <p><b>rsqrt(x)</b>: x = m·2^(2j) with m in [1, 4); {@code y0 = RSQRT_TABLE(m)} (12 quadratic
 * segments of width 1/4); one Newton step {@code y1 = y0 · fma(−0.5, (m·y0)·y0, 1.5)}; result
 * {@code scalb(y1, −j)}. +0 → +∞, −0 → −∞, +∞ → +0, x &lt; 0 or NaN → NaN.
 * Bound: ≤ {@value #RSQRT_ULP_BOUND} ULP over all inputs.
 */
public final class Fp16Math {
    /** Maximum error of {@link #exp} in FP16 ULPs, measured over every input by the tests. */
    public static final double EXP_ULP_BOUND = 1.2;
    /** Maximum error of {@link #reciprocal} in FP16 ULPs. */
    public static final double RECIPROCAL_ULP_BOUND = 1.1;
    /** Maximum error of {@link #rsqrt} in FP16 ULPs. */
    public static final double RSQRT_ULP_BOUND = 1.0;

    /** log2(e) as FP16. */
    public static final short LOG2E = Fp16.fromDouble(1 / StrictMath.log(2));
    /** High part of ln 2: 0.6875 = 11/16. */
    public static final short LN2_HI = Fp16.fromDouble(0.6875);
    /** Low part of ln 2: FP16(ln 2 − 0.6875). */
    public static final short LN2_LO = Fp16.fromDouble(StrictMath.log(2) - 0.6875);

    public static final SegmentedPolynomial EXP_TABLE = SegmentedPolynomial.interpolate(StrictMath::exp, -0.5, 0.125, 8, 2);
    public static final SegmentedPolynomial RECIPROCAL_TABLE = SegmentedPolynomial.interpolate(m -> 1 / m, 1.0, 0.125, 8, 2);
    public static final SegmentedPolynomial RSQRT_TABLE = SegmentedPolynomial.interpolate(m -> 1 / StrictMath.sqrt(m), 1.0, 0.25, 12, 2);

    private static final short TWO = Fp16.fromDouble(2);
    private static final short MINUS_HALF = Fp16.fromDouble(-0.5);
    private static final short THREE_HALVES = Fp16.fromDouble(1.5);
    private static final short TWELVE = Fp16.fromDouble(12);
    private static final short MINUS_EIGHTEEN = Fp16.fromDouble(-18);
    private static final short MINUS_FORTY = Fp16.fromDouble(-40);

    private Fp16Math() {
    }

    /** e^x in FP16 (see class comment). */
    public static short exp(short x) {
        if (Fp16.isNaN(x)) {
            return Fp16.NaN;
        }
        if (Fp16.le(TWELVE, x)) {
            return Fp16.POSITIVE_INFINITY;
        }
        if (Fp16.le(x, MINUS_EIGHTEEN)) {
            return Fp16.POSITIVE_ZERO;
        }
        Scaled parts = expParts(x);
        return Fp16.scalb(parts.significand(), parts.exponent());
    }

    /** An FP16 value times a power of two kept apart: {@code significand · 2^exponent}. */
    public record Scaled(short significand, int exponent) {
    }

    /**
     * e^x before the final scaling, for −40 &lt; x &lt; 12: {@code p = EXP_TABLE(r)} in about
     * [0.7, 1.42] and k, so that e^x ≈ p·2^k (see class comment). Kernels that multiply e^x by
     * something else apply 2^k last, so a result that is normal does not lose bits in a subnormal
     * e^x. Outside that range: NaN → (NaN, 0), x ≥ 12 → (+∞, 0), x ≤ −40 → (+0, 0).
     */
    public static Scaled expParts(short x) {
        if (Fp16.isNaN(x)) {
            return new Scaled(Fp16.NaN, 0);
        }
        if (Fp16.le(TWELVE, x)) {
            return new Scaled(Fp16.POSITIVE_INFINITY, 0);
        }
        if (Fp16.le(x, MINUS_FORTY)) {
            return new Scaled(Fp16.POSITIVE_ZERO, 0);
        }
        int k = Fp16.toInt(x, LOG2E, IntFormat.INT8);
        short r = Fp16.sub(Fp16.sub(x, Fp16.fromInt(k, LN2_HI)), Fp16.fromInt(k, LN2_LO));
        return new Scaled(EXP_TABLE.evaluate(r), k);
    }

    /** 1/x in FP16 (see class comment). */
    public static short reciprocal(short x) {
        if (Fp16.isNaN(x)) {
            return Fp16.NaN;
        }
        boolean negative = Fp16.signBit(x);
        if (Fp16.isZero(x)) {
            return negative ? Fp16.NEGATIVE_INFINITY : Fp16.POSITIVE_INFINITY;
        }
        if (Fp16.isInfinite(x)) {
            return negative ? Fp16.NEGATIVE_ZERO : Fp16.POSITIVE_ZERO;
        }
        short a = Fp16.abs(x);
        int e = exponentOf(a);
        short m = Fp16.scalb(a, -e);
        short y0 = RECIPROCAL_TABLE.evaluate(m);
        short y1 = Fp16.mul(y0, Fp16.sub(TWO, Fp16.mul(m, y0)));
        short y = Fp16.scalb(y1, -e);
        return negative ? Fp16.neg(y) : y;
    }

    /** 1/sqrt(x) in FP16 (see class comment). */
    public static short rsqrt(short x) {
        if (Fp16.isNaN(x)) {
            return Fp16.NaN;
        }
        if (Fp16.isZero(x)) {
            return Fp16.signBit(x) ? Fp16.NEGATIVE_INFINITY : Fp16.POSITIVE_INFINITY;
        }
        if (Fp16.signBit(x)) {
            return Fp16.NaN;
        }
        if (Fp16.isInfinite(x)) {
            return Fp16.POSITIVE_ZERO;
        }
        int j = Math.floorDiv(exponentOf(x), 2);
        short m = Fp16.scalb(x, -2 * j);
        short y0 = RSQRT_TABLE.evaluate(m);
        short g = Fp16.mul(Fp16.mul(m, y0), y0);
        short y1 = Fp16.mul(y0, Fp16.fma(MINUS_HALF, g, THREE_HALVES));
        return Fp16.scalb(y1, -j);
    }

    /** floor(log2 |x|) of a finite non-zero FP16 value (−24..15); subnormals by leading-zero count. */
    public static int exponentOf(short x) {
        int bits = x & 0x7FFF;
        if (bits == 0 || bits >= 0x7C00) {
            throw new IllegalArgumentException("x must be finite and non-zero, got 0x" + Integer.toHexString(x & 0xFFFF));
        }
        int field = bits >>> 10;
        if (field != 0) {
            return field - 15;
        }
        return -24 + (31 - Integer.numberOfLeadingZeros(bits));
    }
}
