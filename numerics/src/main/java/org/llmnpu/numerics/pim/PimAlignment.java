package org.llmnpu.numerics.pim;

/**
 * Where the FP mode of the PiM macro aligns exponents.
 *
 * <ul>
 *   <li>{@link #PRE}: before the array. Every element of an input vector (one row group) is shifted
 *       to the group's largest exponent, and every weight to its column's largest exponent over the
 *       row group, keeping {@code alignBits} magnitude bits; the bits shifted out are dropped
 *       (truncation toward zero). The array then multiplies integers; the periphery shifts each
 *       column's integer sum by the two group exponents into a fixed-point accumulator.</li>
 *   <li>{@link #POST}: after the multiplication. Every product of significands is shifted by its own
 *       exponent sum before the column adder tree, so nothing is dropped: the result is exact.</li>
 * </ul>
 */
public enum PimAlignment {
    PRE, POST;

    /** Lower-case name as the CLI writes it. */
    public String cliName() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
