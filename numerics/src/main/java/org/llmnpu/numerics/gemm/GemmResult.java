package org.llmnpu.numerics.gemm;

/**
 * Output of a golden GEMM: {@code y[m][n]} (signed, within the accumulator width) and the
 * sticky overflow flag (OR over every accumulator of the GEMM).
 */
public record GemmResult(int[][] y, boolean overflow) {
}
