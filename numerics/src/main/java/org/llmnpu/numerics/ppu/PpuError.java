package org.llmnpu.numerics.ppu;

/**
 * Error of a PPU table against its double-precision reference over every INT8 input, in output
 * LSBs (codes). With {@code y*(q) = clamp(idealCode(q), −128, 127)} the real-valued ideal output:
 * <ul>
 *   <li>{@code maxCodeError = max_q |ppu(q) − round(y*(q))|}: integer LSBs from the correctly
 *       rounded INT8 result (0 means every code is the best possible one);</li>
 *   <li>{@code maxRealError = max_q |ppu(q) − y*(q)|}: LSBs from the exact value (at least the
 *       0.5 LSB of output rounding, in general);</li>
 *   <li>{@code exactCodes}: inputs whose output equals round(y*).</li>
 * </ul>
 */
public record PpuError(int maxCodeError, double maxRealError, int exactCodes) {

    /** Measures a table against the ideal output codes {@code ideal[q + 128]} (unclamped reals). */
    public static PpuError measure(PpuTable table, double[] ideal) {
        if (ideal.length != 256) {
            throw new IllegalArgumentException("ideal must hold 256 values, got " + ideal.length);
        }
        int maxCode = 0;
        double maxReal = 0;
        int exact = 0;
        for (int q = -128; q <= 127; q++) {
            double target = Math.max(-128, Math.min(127, ideal[q + 128]));
            int got = PpuEvaluator.evaluate(table, q);
            int best = (int) Math.round(target);
            maxCode = Math.max(maxCode, Math.abs(got - best));
            maxReal = Math.max(maxReal, Math.abs(got - target));
            exact += got == best ? 1 : 0;
        }
        return new PpuError(maxCode, maxReal, exact);
    }

    /** Measures a shipped function's table against its reference. */
    public static PpuError measure(PpuTable table, PpuFunction function) {
        double[] ideal = new double[256];
        for (int q = -128; q <= 127; q++) {
            ideal[q + 128] = function.idealCode(q);
        }
        return measure(table, ideal);
    }
}
