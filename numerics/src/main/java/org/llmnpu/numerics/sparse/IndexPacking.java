package org.llmnpu.numerics.sparse;

/**
 * Packs small unsigned integers ({@code bits} wide each) into a little-endian bit stream:
 * element {@code i} occupies bits {@code [i*bits, (i+1)*bits)}, bit 0 being the least significant
 * bit of byte 0. The last byte is zero-padded.
 */
public final class IndexPacking {

    private IndexPacking() {
    }

    public static byte[] pack(int[] indices, int bits) {
        checkBits(bits);
        byte[] out = new byte[(indices.length * bits + 7) / 8];
        for (int i = 0; i < indices.length; i++) {
            int v = indices[i];
            if (v < 0 || v >= (1 << bits)) {
                throw new IllegalArgumentException("index " + v + " at " + i + " does not fit in " + bits + " bits");
            }
            for (int b = 0; b < bits; b++) {
                if (((v >> b) & 1) != 0) {
                    int pos = i * bits + b;
                    out[pos >> 3] |= (byte) (1 << (pos & 7));
                }
            }
        }
        return out;
    }

    public static int[] unpack(byte[] packed, int bits, int count) {
        checkBits(bits);
        if (packed.length * 8 < count * bits) {
            throw new IllegalArgumentException(count + " indices of " + bits + " bits need "
                    + (count * bits + 7) / 8 + " bytes, got " + packed.length);
        }
        int[] out = new int[count];
        for (int i = 0; i < count; i++) {
            int v = 0;
            for (int b = 0; b < bits; b++) {
                int pos = i * bits + b;
                v |= ((packed[pos >> 3] >> (pos & 7)) & 1) << b;
            }
            out[i] = v;
        }
        return out;
    }

    private static void checkBits(int bits) {
        if (bits < 1 || bits > 8) {
            throw new IllegalArgumentException("index width must be in 1..8 bits, got " + bits);
        }
    }
}
