package org.llmnpu.numerics.pim;

import org.llmnpu.numerics.gemm.Sparsity;
import org.llmnpu.numerics.gemm.TiledGemm;
import org.llmnpu.numerics.gemm.TiledGemmConfig;

/**
 * Golden model of the PiM macro's INT GEMM: exact products of {@code inBits}-bit signed inputs and
 * {@code weightBits}-bit signed weights (INT8 or INT4), summed exactly per row group by the column
 * adder tree and shift-and-add accumulator, then one saturating addition per row group into the
 * periphery-latched {@code accWidth}-bit psum with a sticky overflow flag. These are exactly the
 * numerics and traffic of the MAC array's {@link TiledGemm} with {@code rows} K per tile, so this
 * class checks the operand ranges and delegates to it; bit-serial input order changes nothing
 * (the shift-and-add is exact).
 */
public final class PimIntGemm {
    private PimIntGemm() {
    }

    /** Runs the GEMM; {@code x} must fit {@code inBits}, {@code w} must fit {@code weightBits} (checked). */
    public static TiledGemm.Result run(int rows, int accWidth, int icAccumDepth, int inBits, int weightBits,
                                       byte[][] x, byte[][] w) {
        checkRange("x", x, inBits);
        checkRange("w", w, weightBits);
        TiledGemmConfig c = new TiledGemmConfig(rows, 1, 1, accWidth, icAccumDepth, Sparsity.NONE);
        return TiledGemm.run(c, x, w);
    }

    private static void checkRange(String name, byte[][] a, int bits) {
        if (bits < 1 || bits > 8) {
            throw new IllegalArgumentException(name + " bits must be in [1, 8], got " + bits);
        }
        int lo = -(1 << (bits - 1));
        int hi = (1 << (bits - 1)) - 1;
        for (int i = 0; i < a.length; i++) {
            for (int j = 0; j < a[i].length; j++) {
                if (a[i][j] < lo || a[i][j] > hi) {
                    throw new IllegalArgumentException(name + "[" + i + "][" + j + "] = " + a[i][j]
                        + " does not fit " + bits + "-bit signed [" + lo + ", " + hi + "]");
                }
            }
        }
    }
}
