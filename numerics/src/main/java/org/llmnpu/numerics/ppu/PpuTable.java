package org.llmnpu.numerics.ppu;

/**
 * Contents of the PPU C-LUT: what the RTL's table registers hold.
 *
 * <p>Segments: segment 0 covers INT8 inputs [−128, boundaries[0]); segment s covers
 * [boundaries[s−1], boundaries[s]); the last covers [boundaries[segments−2], 127]. The
 * segment's base is its first input code. {@code coefficients[s][k]} is the signed
 * {@code coeffBits}-bit coefficient of t^k in segment s, with {@code fracBits[k]} fractional bits
 * (value {@code c / 2^fracBits[k]} output codes per t^k), where {@code t = q − base} is the unsigned
 * offset of the input in its segment. fracBits must not increase with k decreasing:
 * {@code fracBits[k+1] ≥ fracBits[k] ≥ 0}, at most 30. Evaluation: {@link PpuEvaluator}.
 *
 * @param name function name, for reports
 * @param format segments, degree, coefficient width
 * @param boundaries segments−1 strictly increasing INT8 codes in (−128, 127]
 * @param coefficients [segments][degree+1] coefficients within the signed coeffBits range
 * @param fracBits [degree+1] fractional bits per power of t
 * @param input quantization of the input codes (for reference and reports; not used by evaluation)
 * @param output quantization of the output codes (likewise)
 */
public record PpuTable(String name, PpuFormat format, int[] boundaries, int[][] coefficients, int[] fracBits,
                       QuantSpec input, QuantSpec output) {

    public PpuTable {
        if (format == null || input == null || output == null) {
            throw new IllegalArgumentException("format, input and output must not be null");
        }
        if (boundaries.length != format.segments() - 1) {
            throw new IllegalArgumentException("boundaries must hold segments-1 = " + (format.segments() - 1)
                    + " codes, got " + boundaries.length);
        }
        int previous = -128;
        for (int i = 0; i < boundaries.length; i++) {
            if (boundaries[i] <= previous || boundaries[i] > 127) {
                throw new IllegalArgumentException("boundaries[" + i + "] must be in (" + previous + ", 127], got " + boundaries[i]);
            }
            previous = boundaries[i];
        }
        if (fracBits.length != format.degree() + 1) {
            throw new IllegalArgumentException("fracBits must hold degree+1 = " + (format.degree() + 1) + " values");
        }
        for (int k = 0; k <= format.degree(); k++) {
            int upper = k == format.degree() ? 30 : fracBits[k + 1];
            if (fracBits[k] < 0 || fracBits[k] > upper) {
                throw new IllegalArgumentException("fracBits[" + k + "] must be in [0, " + upper + "], got " + fracBits[k]);
            }
        }
        if (coefficients.length != format.segments()) {
            throw new IllegalArgumentException("coefficients must hold " + format.segments() + " segments, got " + coefficients.length);
        }
        int[][] copy = new int[coefficients.length][];
        for (int s = 0; s < coefficients.length; s++) {
            if (coefficients[s].length != format.degree() + 1) {
                throw new IllegalArgumentException("coefficients[" + s + "] must hold degree+1 = " + (format.degree() + 1) + " values");
            }
            for (int k = 0; k <= format.degree(); k++) {
                int c = coefficients[s][k];
                if (c < format.coeffMin() || c > format.coeffMax()) {
                    throw new IllegalArgumentException("coefficients[" + s + "][" + k + "] must be in [" + format.coeffMin()
                            + ", " + format.coeffMax() + "], got " + c);
                }
            }
            copy[s] = coefficients[s].clone();
        }
        boundaries = boundaries.clone();
        coefficients = copy;
        fracBits = fracBits.clone();
    }

    @Override
    public int[] boundaries() {
        return boundaries.clone();
    }

    @Override
    public int[][] coefficients() {
        int[][] copy = new int[coefficients.length][];
        for (int s = 0; s < copy.length; s++) {
            copy[s] = coefficients[s].clone();
        }
        return copy;
    }

    @Override
    public int[] fracBits() {
        return fracBits.clone();
    }

    /** Coefficient of t^k in segment s. */
    public int coefficient(int segment, int k) {
        return coefficients[segment][k];
    }

    /** Fractional bits of the coefficients of t^k. */
    public int fracBits(int k) {
        return fracBits[k];
    }

    /** First input code of segment s. */
    public int base(int segment) {
        return segment == 0 ? -128 : boundaries[segment - 1];
    }

    /** Last input code of segment s. */
    public int last(int segment) {
        return segment == boundaries.length ? 127 : boundaries[segment] - 1;
    }
}
