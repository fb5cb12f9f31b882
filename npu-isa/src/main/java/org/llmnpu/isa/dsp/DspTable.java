package org.llmnpu.isa.dsp;

/**
 * A segmented-polynomial table the DSP loads at run time ({@link DspOp#TSEG}, {@link DspOp#TSTART},
 * {@link DspOp#TCOEF}): up to {@value #MAX_SEGMENTS} segments, each with an FP16 start and FP16
 * coefficients c0..c{degree} (degree ≤ 3) of the polynomial in {@code u = v − start}. Unused
 * segment slots hold the start NaN (never selected). Same layout as
 * {@code org.llmnpu.numerics.vector.SegmentedPolynomial}.
 *
 * @param starts FP16 codes of the segment starts, increasing
 * @param coefficients FP16 codes, [segment][k]
 */
public record DspTable(int[] starts, int[][] coefficients) {
  /** Segment slots per table. */
  public static final int MAX_SEGMENTS = 16;
  /** Coefficient slots per segment (degree ≤ 3). */
  public static final int MAX_COEFFICIENTS = 4;

  public DspTable {
    if (starts.length == 0 || starts.length > MAX_SEGMENTS || coefficients.length != starts.length) {
      throw new IllegalArgumentException("a table needs 1.." + MAX_SEGMENTS + " segments with one coefficient row each, got "
          + starts.length + " starts and " + coefficients.length + " rows");
    }
    int degree = coefficients[0].length - 1;
    for (int[] row : coefficients) {
      if (row.length != degree + 1 || row.length > MAX_COEFFICIENTS) {
        throw new IllegalArgumentException("every segment needs the same 1.." + MAX_COEFFICIENTS + " coefficients");
      }
    }
    starts = starts.clone();
    coefficients = coefficients.clone();
  }

  /** Polynomial degree. */
  public int degree() {
    return coefficients[0].length - 1;
  }

  /** Number of segments. */
  public int segments() {
    return starts.length;
  }
}
