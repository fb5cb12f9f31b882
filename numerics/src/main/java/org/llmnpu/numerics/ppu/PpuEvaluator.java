package org.llmnpu.numerics.ppu;

import org.llmnpu.numerics.requant.FixedPoint;

/**
 * Bit-exact evaluation of a PPU table on an INT8 input code q — what the RTL computes.
 *
 * <ol>
 *   <li><b>Segment search:</b> {@code s} = number of boundaries {@code b} with {@code b ≤ q}
 *       (a bank of comparators and a population count); {@code t = q − base(s)}, 0..255 unsigned.</li>
 *   <li><b>Horner</b>, degree d down to 0, all intermediate values signed INT32:
 *       {@code acc = c[s][d]}; then for k = d−1 … 0:
 *       {@code acc = sat32( rshift(acc · t, fracBits[k+1] − fracBits[k]) + c[s][k] )}, where the
 *       product is exact (≤ 41 bits), {@code rshift} is {@link FixedPoint#roundingDivideByPOT}'s
 *       rounding (to nearest, ties away from zero) applied to the exact product and saturated to
 *       INT32 before the addition.</li>
 *   <li><b>Output:</b> {@code y = clamp(rshift(acc, fracBits[0]), −128, 127)} with the same rounding.</li>
 * </ol>
 */
public final class PpuEvaluator {
    private PpuEvaluator() {
    }

    /** Segment index of input code q (see class comment). */
    public static int segmentOf(PpuTable table, int q) {
        checkInput(q);
        int[] b = table.boundaries();
        int s = 0;
        for (int boundary : b) {
            if (boundary <= q) {
                s++;
            }
        }
        return s;
    }

    /** Output INT8 code for input INT8 code q. */
    public static int evaluate(PpuTable table, int q) {
        int s = segmentOf(table, q);
        long t = q - table.base(s);
        int d = table.format().degree();
        int acc = table.coefficient(s, d);
        for (int k = d - 1; k >= 0; k--) {
            long product = acc * t;
            int shifted = FixedPoint.saturateInt32(roundingShiftRight(product, table.fracBits(k + 1) - table.fracBits(k)));
            acc = FixedPoint.saturatingAdd(shifted, table.coefficient(s, k));
        }
        long y = roundingShiftRight(acc, table.fracBits(0));
        return (int) Math.max(-128, Math.min(127, y));
    }

    /** Output codes for all 256 inputs, indexed by {@code q + 128}. */
    public static int[] evaluateAll(PpuTable table) {
        int[] out = new int[256];
        for (int q = -128; q <= 127; q++) {
            out[q + 128] = evaluate(table, q);
        }
        return out;
    }

    /** {@code x / 2^shift} rounded to nearest, ties away from zero (gemmlowp's rule) on a 64-bit value; shift 0..62. */
    public static long roundingShiftRight(long x, int shift) {
        if (shift < 0 || shift > 62) {
            throw new IllegalArgumentException("shift must be in [0, 62], got " + shift);
        }
        if (shift == 0) {
            return x;
        }
        long mask = (1L << shift) - 1;
        long remainder = x & mask;
        long threshold = (mask >> 1) + (x < 0 ? 1 : 0);
        return (x >> shift) + (remainder > threshold ? 1 : 0);
    }

    private static void checkInput(int q) {
        if (q < -128 || q > 127) {
            throw new IllegalArgumentException("input code must be in [-128, 127], got " + q);
        }
    }
}
