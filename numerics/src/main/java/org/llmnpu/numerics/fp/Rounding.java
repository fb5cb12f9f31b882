package org.llmnpu.numerics.fp;

/**
 * How an exact value that falls between two representable values is rounded.
 *
 * <ul>
 *   <li>{@link #NEAREST_EVEN}: to the nearer neighbour; a tie goes to the neighbour whose
 *       least significant kept bit is 0 (IEEE 754 roundTiesToEven, the default everywhere).</li>
 *   <li>{@link #NEAREST_AWAY}: to the nearer neighbour; a tie goes to the neighbour of larger
 *       magnitude (IEEE 754 roundTiesToAway; the OCP MX "round half away" option).</li>
 *   <li>{@link #TOWARD_ZERO}: drop the discarded bits (truncation of the magnitude).</li>
 * </ul>
 */
public enum Rounding {
    NEAREST_EVEN,
    NEAREST_AWAY,
    TOWARD_ZERO;

    /**
     * Decides whether a truncated magnitude must be incremented.
     *
     * @param truncatedOdd whether the kept magnitude (before increment) is odd
     * @param halfBit the first discarded bit
     * @param sticky whether any bit below the first discarded bit is 1
     * @return true if the magnitude is to be incremented by one unit in the last kept place
     */
    public boolean roundsUp(boolean truncatedOdd, boolean halfBit, boolean sticky) {
        return switch (this) {
            case NEAREST_EVEN -> halfBit && (sticky || truncatedOdd);
            case NEAREST_AWAY -> halfBit;
            case TOWARD_ZERO -> false;
        };
    }
}
