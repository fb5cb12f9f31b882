package org.llmnpu.numerics.fp;

/**
 * What a conversion does with a finite value whose rounded magnitude exceeds the largest
 * finite value of the target format, and with an infinite input.
 *
 * <ul>
 *   <li>{@link #SATURATE}: the result is the largest finite value with the input's sign; an
 *       infinite input also becomes the largest finite value (OCP "saturation mode").</li>
 *   <li>{@link #INFINITY}: IEEE 754 behaviour; the result is the infinity of that sign. For a
 *       format without infinities but with a NaN (FP8 E4M3) the result is NaN (OCP
 *       "non-saturating mode"). A format with neither (FP6, FP4) cannot use this mode.</li>
 * </ul>
 */
public enum Overflow {
    SATURATE,
    INFINITY
}
