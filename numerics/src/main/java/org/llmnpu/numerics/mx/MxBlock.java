package org.llmnpu.numerics.mx;

import org.llmnpu.numerics.fp.FloatFormat;
import org.llmnpu.numerics.fp.Overflow;
import org.llmnpu.numerics.fp.Rounding;

/**
 * One MX block: an E8M0 shared scale and element codes of one type. Element i represents
 * {@code decode(elements[i]) · 2^(scaleCode − 127)}; a NaN scale (0xFF) makes every element NaN
 * regardless of its code (OCP MX v1.0).
 *
 * @param type element type
 * @param scaleCode E8M0 code, 0..255
 * @param elements element codes, 1..{@value #MAX_SIZE} of them, each in [0, 2^bits)
 */
public record MxBlock(MxElementType type, int scaleCode, int[] elements) {

    /** The OCP block size. */
    public static final int SIZE = 32;
    /** Largest block this model accepts (the spec fixes 32; other sizes are for experiments). */
    public static final int MAX_SIZE = 1024;

    public MxBlock {
        if (type == null) {
            throw new IllegalArgumentException("type must not be null");
        }
        if (scaleCode < 0 || scaleCode > 255) {
            throw new IllegalArgumentException("scaleCode must be in [0, 255], got " + scaleCode);
        }
        if (elements == null || elements.length < 1 || elements.length > MAX_SIZE) {
            throw new IllegalArgumentException("elements must hold 1.." + MAX_SIZE + " codes, got "
                    + (elements == null ? "null" : elements.length));
        }
        elements = elements.clone();
        for (int i = 0; i < elements.length; i++) {
            if (elements[i] < 0 || elements[i] >= type.codeCount()) {
                throw new IllegalArgumentException("elements[" + i + "] must be a " + type + " code in [0, "
                        + (type.codeCount() - 1) + "], got " + elements[i]);
            }
        }
    }

    /** Element codes (a copy). */
    @Override
    public int[] elements() {
        return elements.clone();
    }

    /** Value equality: same type, scale code and element codes. */
    @Override
    public boolean equals(Object o) {
        return o instanceof MxBlock b && b.type == type && b.scaleCode == scaleCode
                && java.util.Arrays.equals(b.elements, elements);
    }

    @Override
    public int hashCode() {
        return 31 * (31 * type.hashCode() + scaleCode) + java.util.Arrays.hashCode(elements);
    }

    @Override
    public String toString() {
        return "MxBlock[" + type + ", scale=0x" + Integer.toHexString(scaleCode) + ", elements="
                + java.util.Arrays.toString(elements) + "]";
    }

    /** Number of elements. */
    public int size() {
        return elements.length;
    }

    /** Element code i. */
    public int element(int i) {
        return elements[i];
    }

    /** Whether the shared scale is NaN. */
    public boolean scaleIsNaN() {
        return E8M0.isNaN(scaleCode);
    }

    /** Exact value of element i (NaN if the scale is NaN; ±infinity only for E5M2 infinity codes). */
    public double value(int i) {
        if (scaleIsNaN()) {
            return Double.NaN;
        }
        return Math.scalb(type.decode(elements[i]), E8M0.exponent(scaleCode));
    }

    /** Exact values of all elements (every MX value is exact in binary64). */
    public double[] dequantize() {
        double[] out = new double[elements.length];
        for (int i = 0; i < out.length; i++) {
            out[i] = value(i);
        }
        return out;
    }

    /** Dequantized to FP32: each exact value rounded once (RNE, overflow to ±infinity, subnormals kept). */
    public float[] dequantizeToFp32() {
        float[] out = new float[elements.length];
        for (int i = 0; i < out.length; i++) {
            out[i] = Float.intBitsToFloat(FloatFormat.FP32.encode(value(i), Rounding.NEAREST_EVEN, Overflow.INFINITY));
        }
        return out;
    }

    /** Dequantized to FP16 bit patterns: each exact value rounded once (RNE, overflow to ±infinity). */
    public short[] dequantizeToFp16() {
        short[] out = new short[elements.length];
        for (int i = 0; i < out.length; i++) {
            out[i] = (short) FloatFormat.FP16.encode(value(i), Rounding.NEAREST_EVEN, Overflow.INFINITY);
        }
        return out;
    }
}
