package org.llmnpu.numerics.sparse;

/**
 * The compressed N:M layout the MAC array consumes, for an INT8 matrix [rows][K].
 *
 * <p>Per row and per group of M K-elements: N INT8 values in ascending position order, and N
 * indices (position inside the group, {@code indexBits} bits each). Values of a row are contiguous:
 * {@code values[(row * groupsPerRow + group) * N + j]}. Indices are packed by {@link IndexPacking}
 * into a little-endian bit stream per row ({@code rowIndexBytes} bytes, the first index in the least
 * significant bits); for 2:4 one group's two indices fill a nibble, for 4:8 two groups fill 3 bytes.
 * A group with fewer than N non-zeros stores explicit zeros at its lowest unused positions, so every
 * group has exactly N entries and the array's schedule is static.
 *
 * <p>Ragged K: when M does not divide K the row is treated as padded with zeros to
 * {@code groupsPerRow · M} ({@code groupsPerRow = ceil(K / M)}); the last group stores N entries like
 * every other, positions in the padding hold explicit zeros, and {@link #toZeroFilledDense} returns
 * the K real columns only.
 */
public record NmCompressedMatrix(int rows, int k, NmPattern pattern, byte[] values, byte[] packedIndices) {

    public NmCompressedMatrix {
        int groups = rows * NmPruner.groupsPerRow(k, pattern);
        if (values.length != groups * pattern.n()) {
            throw new IllegalArgumentException("values must hold " + groups * pattern.n() + " entries, got " + values.length);
        }
        if (packedIndices.length != rows * rowIndexBytes(k, pattern)) {
            throw new IllegalArgumentException("packedIndices must hold " + rows * rowIndexBytes(k, pattern)
                    + " bytes, got " + packedIndices.length);
        }
    }

    /** Bytes of packed indices per row. */
    public static int rowIndexBytes(int k, NmPattern pattern) {
        int bits = NmPruner.groupsPerRow(k, pattern) * pattern.n() * pattern.indexBits();
        return (bits + 7) / 8;
    }

    /** Compresses an INT8 matrix that already satisfies the pattern (see {@link NmPruner}). */
    public static NmCompressedMatrix compress(byte[][] dense, NmPattern pattern) {
        int rows = dense.length;
        int k = dense[0].length;
        int n = pattern.n();
        int m = pattern.m();
        int groupsPerRow = NmPruner.groupsPerRow(k, pattern);
        byte[] values = new byte[rows * groupsPerRow * n];
        int rowBytes = rowIndexBytes(k, pattern);
        byte[] packed = new byte[rows * rowBytes];
        for (int r = 0; r < rows; r++) {
            int[] rowIndices = new int[groupsPerRow * n];
            for (int g = 0; g < groupsPerRow; g++) {
                int[] positions = groupPositions(dense[r], g * m, pattern, r, g);
                for (int j = 0; j < n; j++) {
                    int col = g * m + positions[j];
                    values[(r * groupsPerRow + g) * n + j] = col < k ? dense[r][col] : 0;
                    rowIndices[g * n + j] = positions[j];
                }
            }
            byte[] rowPacked = IndexPacking.pack(rowIndices, pattern.indexBits());
            System.arraycopy(rowPacked, 0, packed, r * rowBytes, rowBytes);
        }
        return new NmCompressedMatrix(rows, k, pattern, values, packed);
    }

    /** The N stored positions of a group: its non-zeros, then the lowest zero positions, ascending. */
    private static int[] groupPositions(byte[] row, int from, NmPattern pattern, int r, int g) {
        int m = pattern.m();
        boolean[] used = new boolean[m];
        int count = 0;
        for (int i = 0; i < m; i++) {
            if (from + i < row.length && row[from + i] != 0) {
                used[i] = true;
                count++;
            }
        }
        if (count > pattern.n()) {
            throw new IllegalArgumentException("row " + r + " group " + g + " has " + count + " non-zeros; "
                    + pattern + " allows at most " + pattern.n() + " (prune first)");
        }
        for (int i = 0; i < m && count < pattern.n(); i++) {
            if (!used[i]) {
                used[i] = true;
                count++;
            }
        }
        int[] positions = new int[pattern.n()];
        int j = 0;
        for (int i = 0; i < m; i++) {
            if (used[i]) {
                positions[j++] = i;
            }
        }
        return positions;
    }

    /** The unpacked indices of a row, {@code groupsPerRow * N} of them. */
    public int[] rowIndices(int row) {
        int rowBytes = rowIndexBytes(k, pattern);
        byte[] slice = java.util.Arrays.copyOfRange(packedIndices, row * rowBytes, (row + 1) * rowBytes);
        return IndexPacking.unpack(slice, pattern.indexBits(), NmPruner.groupsPerRow(k, pattern) * pattern.n());
    }

    /** The zero-filled dense matrix: every stored value at its position, zeros elsewhere. */
    public byte[][] toZeroFilledDense() {
        int n = pattern.n();
        int m = pattern.m();
        int groupsPerRow = NmPruner.groupsPerRow(k, pattern);
        byte[][] dense = new byte[rows][k];
        for (int r = 0; r < rows; r++) {
            int[] idx = rowIndices(r);
            for (int g = 0; g < groupsPerRow; g++) {
                for (int j = 0; j < n; j++) {
                    int col = g * m + idx[g * n + j];
                    if (col < k) {
                        dense[r][col] = values[(r * groupsPerRow + g) * n + j];
                    }
                }
            }
        }
        return dense;
    }

    /** Bytes of the compressed form (values plus packed indices). */
    public long storageBytes() {
        return (long) values.length + packedIndices.length;
    }
}
