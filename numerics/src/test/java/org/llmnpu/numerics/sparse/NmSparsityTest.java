package org.llmnpu.numerics.sparse;

import static org.junit.jupiter.api.Assertions.*;

import java.util.Random;
import org.junit.jupiter.api.Test;

class NmSparsityTest {

    @Test
    void pruningKeepsTheLargestMagnitudesInEveryGroup() {
        float[] row = {0.1f, -3f, 2f, 0.5f, 1f, 1f, -1f, 0f}; // ties keep the lower index
        assertArrayEquals(new float[] {0, -3f, 2f, 0, 1f, 1f, 0, 0}, NmPruner.pruneRow(row, NmPattern.TWO_FOUR));
        assertArrayEquals(new float[] {0, -3f, 2f, 0, 1f, 1f, 0, 0}, NmPruner.pruneRow(row, NmPattern.FOUR_EIGHT));
    }

    @Test
    void fourEightKeepsAtLeastAsMuchMagnitudeAsTwoFour() {
        Random rnd = new Random(3);
        float[][] w = new float[16][64];
        for (float[] r : w) {
            for (int c = 0; c < 64; c++) {
                r[c] = (float) rnd.nextGaussian();
            }
        }
        float[][] p24 = NmPruner.prune(w, NmPattern.TWO_FOUR);
        float[][] p48 = NmPruner.prune(w, NmPattern.FOUR_EIGHT);
        assertTrue(NmPruner.satisfies(p24, NmPattern.TWO_FOUR));
        assertTrue(NmPruner.satisfies(p48, NmPattern.FOUR_EIGHT));
        assertTrue(energy(p48) >= energy(p24));
    }

    @Test
    void compressedTwoFourUnpacksToTheZeroFilledDenseMatrix() {
        roundTrip(NmPattern.TWO_FOUR, 9);
    }

    @Test
    void compressedFourEightUnpacksToTheZeroFilledDenseMatrix() {
        roundTrip(NmPattern.FOUR_EIGHT, 10);
    }

    @Test
    void twoFourIndicesOfOneGroupFillOneNibble() {
        byte[][] dense = {{0, 5, 0, -7, 9, 0, 0, 0}};
        NmCompressedMatrix c = NmCompressedMatrix.compress(dense, NmPattern.TWO_FOUR);
        assertArrayEquals(new byte[] {5, -7, 9, 0}, c.values()); // group 1 pads a zero at the lowest free slot
        // group 0 indices (1, 3) -> 0b11_01, group 1 indices (0, 1) -> 0b01_00
        assertArrayEquals(new byte[] {(byte) 0b0100_1101}, c.packedIndices());
        assertEquals(4 + 1, c.storageBytes());
    }

    @Test
    void fourEightUsesThreeBitIndicesTwoGroupsInThreeBytes() {
        assertEquals(3, NmCompressedMatrix.rowIndexBytes(16, NmPattern.FOUR_EIGHT));
        int[] idx = {0, 3, 5, 7, 1, 2, 4, 6};
        assertArrayEquals(idx, IndexPacking.unpack(IndexPacking.pack(idx, 3), 3, 8));
    }

    @Test
    void denseGroupsAreRejectedWithTheirPosition() {
        byte[][] dense = {{1, 2, 3, 0}};
        var e = assertThrows(IllegalArgumentException.class, () -> NmCompressedMatrix.compress(dense, NmPattern.TWO_FOUR));
        assertTrue(e.getMessage().contains("row 0 group 0"), e.getMessage());
        float[] ragged = NmPruner.pruneRow(new float[] {1, 2, 3, 4, 5, 6}, NmPattern.TWO_FOUR);
        assertArrayEquals(new float[] {0, 0, 3, 4, 5, 6}, ragged, "a last group of 2 <= N keeps both");
    }

    private static void roundTrip(NmPattern p, long seed) {
        Random rnd = new Random(seed);
        int k = 32;
        float[][] w = new float[5][k];
        for (float[] r : w) {
            for (int c = 0; c < k; c++) {
                r[c] = rnd.nextInt(255) - 127;
            }
        }
        float[][] pruned = NmPruner.prune(w, p);
        byte[][] dense = new byte[5][k];
        for (int r = 0; r < 5; r++) {
            for (int c = 0; c < k; c++) {
                dense[r][c] = (byte) pruned[r][c];
            }
        }
        NmCompressedMatrix c = NmCompressedMatrix.compress(dense, p);
        byte[][] back = c.toZeroFilledDense();
        for (int r = 0; r < 5; r++) {
            assertArrayEquals(dense[r], back[r]);
        }
        assertEquals(5L * k / 2 + 5L * NmCompressedMatrix.rowIndexBytes(k, p), c.storageBytes());
    }

    private static double energy(float[][] w) {
        double s = 0;
        for (float[] r : w) {
            for (float v : r) {
                s += v * v;
            }
        }
        return s;
    }
}
