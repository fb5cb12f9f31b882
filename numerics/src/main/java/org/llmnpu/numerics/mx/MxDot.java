package org.llmnpu.numerics.mx;

import java.math.BigInteger;
import org.llmnpu.numerics.fp.FloatFormat;
import org.llmnpu.numerics.fp.Overflow;
import org.llmnpu.numerics.fp.Rounding;

/**
 * MX dot products: exact element products, exact accumulation, one final rounding to FP32
 * (round to nearest even, overflow to ±infinity, subnormals kept), per OCP MX v1.0 section 6.
 *
 * <p>Exactness: element i of a block is the integer {@code a_i = value_i · 2^-q} (q = the type's
 * {@link MxElementType#quantumExponent()}), so a block dot product is the integer
 * {@code Σ a_i·b_i} times {@code 2^(qA + qB + EA + EB)}. Hardware holds it in a fixed-point
 * accumulator of {@link #accumulatorBits} bits; this model uses a {@link BigInteger}. Across blocks
 * ({@link #dot(MxBlock[], MxBlock[])}) the block sums are aligned exactly before the one rounding.
 *
 * <p>Specials: a NaN scale or NaN element anywhere gives NaN; an infinite E5M2 element times a zero
 * gives NaN; +infinity and −infinity products together give NaN; otherwise any infinite product
 * gives that infinity. An exactly zero sum gives +0.
 */
public final class MxDot {
    private MxDot() {
    }

    /** Dot product of two equally sized blocks (element types may differ), rounded once to FP32. */
    public static float dot(MxBlock a, MxBlock b) {
        return dot(new MxBlock[] {a}, new MxBlock[] {b});
    }

    /** Dot product of two vectors of blocks, pairwise, exact over all blocks, rounded once to FP32. */
    public static float dot(MxBlock[] a, MxBlock[] b) {
        if (a.length != b.length || a.length == 0) {
            throw new IllegalArgumentException("block vectors must have the same non-zero length, got "
                    + a.length + " and " + b.length);
        }
        Float special = specials(a, b);
        if (special != null) {
            return special;
        }
        int minExp = Integer.MAX_VALUE;
        for (int j = 0; j < a.length; j++) {
            minExp = Math.min(minExp, blockExponent(a[j], b[j]));
        }
        BigInteger total = BigInteger.ZERO;
        for (int j = 0; j < a.length; j++) {
            total = total.add(integerDot(a[j], b[j]).shiftLeft(blockExponent(a[j], b[j]) - minExp));
        }
        if (total.signum() == 0) {
            return 0.0f;
        }
        return Float.intBitsToFloat(FloatFormat.FP32.roundExact(total, minExp, Rounding.NEAREST_EVEN, Overflow.INFINITY));
    }

    /** Exponent of one LSB of the integer block sum: {@code qA + qB + EA + EB}. */
    public static int blockExponent(MxBlock a, MxBlock b) {
        return a.type().quantumExponent() + b.type().quantumExponent()
                + E8M0.exponent(a.scaleCode()) + E8M0.exponent(b.scaleCode());
    }

    /** Exact integer {@code Σ a_i·b_i} of the element integers (finite, non-NaN blocks only). */
    public static BigInteger integerDot(MxBlock a, MxBlock b) {
        if (a.size() != b.size()) {
            throw new IllegalArgumentException("blocks must have the same size, got " + a.size() + " and " + b.size());
        }
        BigInteger sum = BigInteger.ZERO;
        for (int i = 0; i < a.size(); i++) {
            long x = elementInteger(a.type(), a.element(i));
            long y = elementInteger(b.type(), b.element(i));
            sum = sum.add(BigInteger.valueOf(x).multiply(BigInteger.valueOf(y)));
        }
        return sum;
    }

    /** Element code as the exact integer {@code value · 2^-quantumExponent}. */
    public static long elementInteger(MxElementType type, int code) {
        double v = type.decode(code);
        if (!Double.isFinite(v)) {
            throw new IllegalArgumentException(type + " code " + code + " is not finite");
        }
        return (long) Math.scalb(v, -type.quantumExponent());
    }

    /**
     * Width of a two's-complement fixed-point accumulator that holds the exact sum of {@code n}
     * products of these types without overflow: the sum of the two element-integer magnitude widths,
     * plus ceil(log2 n), plus a sign bit (e.g. 42 bits for E4M3·E4M3 over 32 elements).
     */
    public static int accumulatorBits(MxElementType a, MxElementType b, int n) {
        int productBits = magnitudeBits(a) + magnitudeBits(b);
        return productBits + (32 - Integer.numberOfLeadingZeros(Math.max(n, 1) - 1)) + 1;
    }

    /** Bits of the largest element integer magnitude (INT8: 128, from code −128). */
    private static int magnitudeBits(MxElementType t) {
        long max = t == MxElementType.INT8 ? 128 : (long) Math.scalb(t.maxNormal(), -t.quantumExponent());
        return 64 - Long.numberOfLeadingZeros(max);
    }

    private static Float specials(MxBlock[] a, MxBlock[] b) {
        boolean posInf = false;
        boolean negInf = false;
        for (int j = 0; j < a.length; j++) {
            if (a[j].size() != b[j].size()) {
                throw new IllegalArgumentException("block " + j + " sizes differ: " + a[j].size() + " and " + b[j].size());
            }
            if (a[j].scaleIsNaN() || b[j].scaleIsNaN()) {
                return Float.NaN;
            }
            for (int i = 0; i < a[j].size(); i++) {
                double x = a[j].type().decode(a[j].element(i));
                double y = b[j].type().decode(b[j].element(i));
                if (Double.isNaN(x) || Double.isNaN(y)) {
                    return Float.NaN;
                }
                if (Double.isInfinite(x) || Double.isInfinite(y)) {
                    double p = x * y;
                    if (Double.isNaN(p)) {
                        return Float.NaN;
                    }
                    posInf |= p > 0;
                    negInf |= p < 0;
                }
            }
        }
        if (posInf && negInf) {
            return Float.NaN;
        }
        if (posInf || negInf) {
            return posInf ? Float.POSITIVE_INFINITY : Float.NEGATIVE_INFINITY;
        }
        return null;
    }
}
