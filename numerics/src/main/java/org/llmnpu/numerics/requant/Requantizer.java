package org.llmnpu.numerics.requant;

/**
 * The PPM requantization pipeline for one element, bit exact with the RTL stages:
 * <ol>
 *   <li>{@code s = saturatingAdd(acc, bias)} — INT32 bias add, saturating;</li>
 *   <li>{@code v = multiplyByQuantizedMultiplier(s, multiplier, shift)} (see {@link FixedPoint});</li>
 *   <li>{@code v = v + outputZeroPoint}, computed without overflow (33 bits);</li>
 *   <li>{@code q = clamp(v, clampMin, clampMax)}: the INT8/INT4 range narrowed by the activation
 *       (RELU: below at the zero point; RELU6: also above at {@code sixCode}).</li>
 * </ol>
 */
public final class Requantizer {
    private Requantizer() {
    }

    /** Requantizes one INT32 accumulator value with its channel's bias and parameters. */
    public static int requantize(int acc, int bias, RequantParams p) {
        int s = FixedPoint.saturatingAdd(acc, bias);
        int v = FixedPoint.multiplyByQuantizedMultiplier(s, p.multiplier().multiplier(), p.multiplier().shift());
        long withZero = (long) v + p.outputZeroPoint();
        return (int) Math.max(p.clampMin(), Math.min(p.clampMax(), withZero));
    }

    /** Requantizes an M×N accumulator matrix with per-column (output channel) bias and parameters. */
    public static int[][] requantize(int[][] acc, int[] bias, RequantParams[] perChannel) {
        int[][] out = new int[acc.length][];
        for (int i = 0; i < acc.length; i++) {
            if (acc[i].length != bias.length || acc[i].length != perChannel.length) {
                throw new IllegalArgumentException("row " + i + " has " + acc[i].length + " channels, bias "
                        + bias.length + ", params " + perChannel.length);
            }
            out[i] = new int[acc[i].length];
            for (int j = 0; j < acc[i].length; j++) {
                out[i][j] = requantize(acc[i][j], bias[j], perChannel[j]);
            }
        }
        return out;
    }
}
