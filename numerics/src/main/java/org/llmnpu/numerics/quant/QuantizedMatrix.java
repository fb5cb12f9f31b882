package org.llmnpu.numerics.quant;

/**
 * A weight matrix [rows][cols] stored as integer codes with one scale (and, if asymmetric, one
 * integer zero point) per group of {@code scheme.effectiveGroup(cols)} consecutive elements of a row.
 * Element {@code (r, c)} dequantizes to {@code (codes[r][c] - zeroPoint(g)) * scale(g)} with
 * {@code g = r * groupsPerRow + c / group}. Codes are held in bytes: signed for symmetric
 * schemes, unsigned ({@code 0..255}) for asymmetric ones.
 *
 * <p>Ragged rows: when the group does not divide {@code cols} (e.g. a hidden width of 172 in groups of
 * 32), {@code groupsPerRow = ceil(cols / group)} and the last group of each row is padded with zeros up
 * to the group size. Padding zeros change neither a symmetric scale (max |w|) nor an asymmetric range
 * (which always includes 0), are not stored, and take no code bits; the last group still has its own
 * scale (and zero point).
 */
public record QuantizedMatrix(int rows, int cols, QuantScheme scheme, byte[] codes, float[] scales, int[] zeroPoints) {

    public QuantizedMatrix {
        int group = scheme.effectiveGroup(cols);
        int groups = rows * ((cols + group - 1) / group);
        if (codes.length != rows * cols || scales.length != groups || zeroPoints.length != groups) {
            throw new IllegalArgumentException("inconsistent array sizes for a " + rows + "x" + cols + " " + scheme + " matrix");
        }
    }

    /** Groups per row, the last one padded with zeros when the group does not divide the row. */
    public int groupsPerRow() {
        int group = scheme.effectiveGroup(cols);
        return (cols + group - 1) / group;
    }

    public int code(int row, int col) {
        byte b = codes[row * cols + col];
        return scheme.symmetric() ? b : b & 0xFF;
    }

    public float dequantize(int row, int col) {
        int g = row * groupsPerRow() + col / scheme.effectiveGroup(cols);
        return (code(row, col) - zeroPoints[g]) * scales[g];
    }

    public float[][] dequantize() {
        float[][] out = new float[rows][cols];
        for (int r = 0; r < rows; r++) {
            for (int c = 0; c < cols; c++) {
                out[r][c] = dequantize(r, c);
            }
        }
        return out;
    }

    /**
     * Bytes to store the matrix: packed codes ({@code bits} per element) plus a FP16 scale per group
     * and, when asymmetric, a {@code bits}-wide zero point per group.
     */
    public long storageBytes() {
        long groups = (long) scales.length;
        long codeBits = (long) rows * cols * scheme.bits();
        long metaBits = groups * (16 + (scheme.symmetric() ? 0 : scheme.bits()));
        return (codeBits + metaBits + 7) / 8;
    }
}
