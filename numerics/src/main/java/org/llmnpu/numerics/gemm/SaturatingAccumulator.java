package org.llmnpu.numerics.gemm;

/**
 * A signed {@code accWidth}-bit accumulator register that saturates and raises a sticky
 * overflow flag — the overflow policy of the periphery accumulators of the MAC array.
 *
 * <p>Semantics of one {@link #add(long)}: the exact sum {@code value + addend} is formed
 * (no wrap-around), then clamped to [−2^(accWidth−1), 2^(accWidth−1) − 1]. If clamping changed
 * the sum the sticky flag is set; it is cleared only by {@link #reset()}. The accumulator never
 * wraps, so after a saturation later additions start from the clamped value.
 */
public final class SaturatingAccumulator {
    private final int accWidth;
    private long value;
    private boolean overflow;

    /** @param accWidth register width in bits, 2..32 */
    public SaturatingAccumulator(int accWidth) {
        checkWidth(accWidth);
        this.accWidth = accWidth;
    }

    static void checkWidth(int accWidth) {
        if (accWidth < 2 || accWidth > 32) {
            throw new IllegalArgumentException("accWidth must be in [2, 32], got " + accWidth);
        }
    }

    /** Largest value of a signed {@code accWidth}-bit register. */
    public static long maxValue(int accWidth) {
        checkWidth(accWidth);
        return (1L << (accWidth - 1)) - 1;
    }

    /** Smallest value of a signed {@code accWidth}-bit register. */
    public static long minValue(int accWidth) {
        checkWidth(accWidth);
        return -(1L << (accWidth - 1));
    }

    /** Pure form of one accumulation step: clamp(acc + addend) to the signed {@code accWidth}-bit range. */
    public static long saturatingAdd(long acc, long addend, int accWidth) {
        long sum = acc + addend;
        return Math.max(minValue(accWidth), Math.min(maxValue(accWidth), sum));
    }

    /** Pure form of the flag: whether {@code acc + addend} lies outside the signed {@code accWidth}-bit range. */
    public static boolean overflows(long acc, long addend, int accWidth) {
        long sum = acc + addend;
        return sum > maxValue(accWidth) || sum < minValue(accWidth);
    }

    /** Adds with saturation; sets the sticky flag if the exact sum was out of range. */
    public void add(long addend) {
        overflow |= overflows(value, addend, accWidth);
        value = saturatingAdd(value, addend, accWidth);
    }

    /** Loads a value (e.g. a read-back partial sum); it must already be in range. */
    public void load(long v) {
        if (v > maxValue(accWidth) || v < minValue(accWidth)) {
            throw new IllegalArgumentException("loaded value " + v + " does not fit accWidth " + accWidth);
        }
        value = v;
    }

    /** Current register value. */
    public int value() {
        return (int) value;
    }

    /** Sticky overflow flag. */
    public boolean overflow() {
        return overflow;
    }

    /** Clears the value and the sticky flag. */
    public void reset() {
        value = 0;
        overflow = false;
    }
}
