package org.llmnpu.numerics.mx;

import org.llmnpu.numerics.fp.Rounding;

/**
 * Pre-alignment of an MX block into signed integers plus one block exponent, so that the INT MAC
 * array (or the INT mode of the PiM macro) can consume it: {@code value_i ≈ ints[i] · 2^exponent}.
 *
 * <p><b>{@link #exact}</b>: every element becomes {@code value_i · 2^-q} with q the type's quantum
 * exponent, so the result is exact. Integer widths (sign + magnitude): FP4 E2M1 ±12 (5 bits),
 * INT8 −128..127 (the codes themselves), FP6 E2M3 ±60, FP6 E3M2 ±448, FP8 E4M3 ±229376 (19 bits).
 * E5M2 would need 33 bits and is rejected: use {@link #aligned}.
 *
 * <p><b>{@link #aligned}</b> (the lossy hardware path for FP8/FP6): let {@code b} be the largest
 * element exponent {@code floor(log2|e_i|)} over the non-zero elements (element values without
 * the shared scale). Each magnitude is shifted so that 2^b lands on bit {@code w−1}
 * ({@code w = magnitudeBits}): {@code m_i = round(|e_i| · 2^(w−1−b))}, with the given rounding of the
 * shifted-out bits (TOWARD_ZERO is a plain truncating shifter; NEAREST_EVEN/AWAY add the round
 * bit), then saturated to {@code 2^w − 1}; the sign is reapplied. The block exponent is
 * {@code b − (w−1) + E}. It is exact whenever every element is a multiple of 2^(b−w+1) — e.g. for
 * FP4 with {@code w ≥ 4}.
 *
 * <p>A NaN scale or a NaN/infinite element yields {@code nan = true} and zero integers.
 */
public final class MxPrealign {
    private MxPrealign() {
    }

    /** Integers {@code ints[i]} with {@code value_i = ints[i] · 2^exponent}, or a NaN block. */
    public record Prealigned(int[] ints, int exponent, boolean nan) {
        public Prealigned {
            ints = ints.clone();
        }

        @Override
        public int[] ints() {
            return ints.clone();
        }

        /** The represented values, exactly. */
        public double[] values() {
            double[] out = new double[ints.length];
            for (int i = 0; i < out.length; i++) {
                out[i] = nan ? Double.NaN : Math.scalb((double) ints[i], exponent);
            }
            return out;
        }
    }

    /** Exact pre-alignment at the type's quantum (see class comment); not for E5M2. */
    public static Prealigned exact(MxBlock block) {
        MxElementType type = block.type();
        if (type == MxElementType.FP8_E5M2) {
            throw new IllegalArgumentException("type FP8_E5M2 needs 33-bit integers for exact pre-alignment; use aligned()");
        }
        int[] ints = new int[block.size()];
        if (isNaN(block)) {
            return new Prealigned(ints, 0, true);
        }
        for (int i = 0; i < ints.length; i++) {
            ints[i] = (int) MxDot.elementInteger(type, block.element(i));
        }
        return new Prealigned(ints, type.quantumExponent() + E8M0.exponent(block.scaleCode()), false);
    }

    /** Block-maximum alignment to {@code magnitudeBits} (1..30) magnitude bits (see class comment). */
    public static Prealigned aligned(MxBlock block, int magnitudeBits, Rounding rounding) {
        if (magnitudeBits < 1 || magnitudeBits > 30) {
            throw new IllegalArgumentException("magnitudeBits must be in [1, 30], got " + magnitudeBits);
        }
        MxElementType type = block.type();
        int[] ints = new int[block.size()];
        if (isNaN(block)) {
            return new Prealigned(ints, 0, true);
        }
        int q = type.quantumExponent();
        long[] mags = new long[ints.length];
        int maxExp = Integer.MIN_VALUE;
        for (int i = 0; i < ints.length; i++) {
            mags[i] = Math.abs(MxDot.elementInteger(type, block.element(i)));
            if (mags[i] != 0) {
                maxExp = Math.max(maxExp, 63 - Long.numberOfLeadingZeros(mags[i]) + q);
            }
        }
        int scaleExp = E8M0.exponent(block.scaleCode());
        if (maxExp == Integer.MIN_VALUE) {
            return new Prealigned(ints, q + scaleExp, false);
        }
        int shift = magnitudeBits - 1 - maxExp + q;
        long limit = (1L << magnitudeBits) - 1;
        for (int i = 0; i < ints.length; i++) {
            long m = shiftRound(mags[i], shift, rounding);
            m = Math.min(m, limit);
            ints[i] = (int) (type.decode(block.element(i)) < 0 ? -m : m);
        }
        return new Prealigned(ints, maxExp - (magnitudeBits - 1) + scaleExp, false);
    }

    /** {@code round(m · 2^shift)} for m &ge; 0 with the given rounding of discarded bits. */
    static long shiftRound(long m, int shift, Rounding rounding) {
        if (shift >= 0) {
            return m << shift;
        }
        int s = -shift;
        if (s >= 63) {
            return rounding.roundsUp(false, false, m != 0) ? 1 : 0;
        }
        long kept = m >>> s;
        boolean half = ((m >>> (s - 1)) & 1) != 0;
        boolean sticky = (m & ((1L << (s - 1)) - 1)) != 0;
        return kept + (rounding.roundsUp((kept & 1) != 0, half, sticky) ? 1 : 0);
    }

    private static boolean isNaN(MxBlock block) {
        if (block.scaleIsNaN()) {
            return true;
        }
        for (int i = 0; i < block.size(); i++) {
            if (!Double.isFinite(block.type().decode(block.element(i)))) {
                return true;
            }
        }
        return false;
    }
}
