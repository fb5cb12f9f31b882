package org.llmnpu.numerics.fp;

import java.math.BigInteger;

/**
 * Fused multiply-add {@code a·b + c} of IEEE 754 binary16 and binary32 operands, rounded
 * <em>once</em> to nearest, ties to even — the golden model of the Vector DSP's {@code FMA16} and
 * {@code FMA32} units.
 *
 * <p><b>Numerics (the spec).</b> Every finite value of a format with {@code m} mantissa bits and
 * minimum exponent {@code emin} is an integer {@code n} times the quantum {@code 2^(emin − m)}
 * (binary16: 2^−24, binary32: 2^−149). The product is then {@code na·nb} quanta² and the addend
 * {@code nc·2^(m − emin)} quanta², so {@code a·b + c} is an exact integer (a {@link BigInteger})
 * times {@code 2^(2·(emin − m))}, which {@link FloatFormat#roundExact} rounds once (gradual
 * underflow, overflow to ±∞). No intermediate is rounded: this is IEEE 754-2019
 * fusedMultiplyAdd.
 *
 * <p><b>Specials.</b> Any NaN operand, ∞·0, and ∞ − ∞ between the product and the addend give the
 * canonical quiet NaN (binary16 0x7E00, binary32 0x7FC00000); otherwise an infinite product or
 * addend gives that infinity. An exact zero result is −0 only when the product and the addend are
 * both zeros of negative sign (−0 + −0); every other exact zero, including exact cancellation, is
 * +0 (roundTiesToEven).
 */
public final class Fma {
    private Fma() {
    }

    /** binary16 {@code a·b + c} on bit patterns, rounded once (see class comment). */
    public static short fp16(short a, short b, short c) {
        return (short) fma(FloatFormat.FP16, a & 0xFFFF, b & 0xFFFF, c & 0xFFFF);
    }

    /** binary32 {@code a·b + c} on bit patterns, rounded once; NaN results are 0x7FC00000. */
    public static int fp32Bits(int a, int b, int c) {
        return fma(FloatFormat.FP32, a, b, c);
    }

    /** binary32 {@code a·b + c} rounded once; a NaN result is the canonical 0x7FC00000. */
    public static float fp32(float a, float b, float c) {
        return Float.intBitsToFloat(fp32Bits(Float.floatToRawIntBits(a), Float.floatToRawIntBits(b),
                Float.floatToRawIntBits(c)));
    }

    private static int fma(FloatFormat f, int a, int b, int c) {
        int signBit = f.totalBits() - 1;
        boolean signA = ((a >>> signBit) & 1) != 0;
        boolean signB = ((b >>> signBit) & 1) != 0;
        boolean signC = ((c >>> signBit) & 1) != 0;
        boolean signP = signA ^ signB;
        if (isNaN(f, a) || isNaN(f, b) || isNaN(f, c)) {
            return f.nanCode();
        }
        boolean infP = isInfinite(f, a) || isInfinite(f, b);
        boolean zeroA = isZero(f, a);
        boolean zeroB = isZero(f, b);
        if (infP && (zeroA || zeroB)) {
            return f.nanCode();
        }
        boolean infC = isInfinite(f, c);
        if (infP && infC && signP != signC) {
            return f.nanCode();
        }
        if (infP) {
            return f.infinityCode(signP);
        }
        if (infC) {
            return f.infinityCode(signC);
        }
        BigInteger product = quanta(f, a).multiply(quanta(f, b));
        int quantumExp = f.emin() - f.mantissaBits();
        BigInteger sum = product.add(quanta(f, c).shiftLeft(-quantumExp));
        if (sum.signum() == 0) {
            boolean negativeZero = (zeroA || zeroB) && isZero(f, c) && signP && signC;
            return negativeZero ? 1 << signBit : 0;
        }
        return f.roundExact(sum, 2 * quantumExp, Rounding.NEAREST_EVEN, Overflow.INFINITY);
    }

    private static int field(FloatFormat f, int code) {
        return (code >>> f.mantissaBits()) & ((1 << f.exponentBits()) - 1);
    }

    private static boolean isNaN(FloatFormat f, int code) {
        return field(f, code) == (1 << f.exponentBits()) - 1 && (code & ((1 << f.mantissaBits()) - 1)) != 0;
    }

    private static boolean isInfinite(FloatFormat f, int code) {
        return field(f, code) == (1 << f.exponentBits()) - 1 && (code & ((1 << f.mantissaBits()) - 1)) == 0;
    }

    private static boolean isZero(FloatFormat f, int code) {
        return (code & ((1 << (f.totalBits() - 1)) - 1)) == 0;
    }

    /** Signed value of a finite code in quanta of 2^(emin − mantissaBits). */
    private static BigInteger quanta(FloatFormat f, int code) {
        int m = f.mantissaBits();
        int field = field(f, code);
        long fraction = code & ((1L << m) - 1);
        BigInteger magnitude = field == 0 ? BigInteger.valueOf(fraction)
                : BigInteger.valueOf(fraction | (1L << m)).shiftLeft(field - 1);
        boolean negative = ((code >>> (f.totalBits() - 1)) & 1) != 0;
        return negative ? magnitude.negate() : magnitude;
    }
}
