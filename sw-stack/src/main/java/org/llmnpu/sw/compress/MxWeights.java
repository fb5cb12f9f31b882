package org.llmnpu.sw.compress;

import java.util.Locale;
import org.llmnpu.numerics.fp.Rounding;
import org.llmnpu.numerics.mx.MxBlock;
import org.llmnpu.numerics.mx.MxElementType;
import org.llmnpu.numerics.mx.MxQuantizer;

/**
 * OCP MX weight quantization of a matrix [out][in] with the golden {@link MxQuantizer}: every row is cut
 * into blocks of 32 consecutive input elements (the last block may be shorter), each block sharing one
 * E8M0 scale, elements rounded to nearest-even. Storage: element bits per weight plus 8 bits per block.
 */
public final class MxWeights {

    private MxWeights() {
    }

    /** {@code mxfp8} (E4M3), {@code mxfp8-e5m2}, {@code mxfp6} (E2M3), {@code mxfp6-e3m2}, {@code mxfp4}, {@code mxint8}. */
    public static MxElementType parse(String text) {
        return switch (text.toLowerCase(Locale.ROOT)) {
            case "mxfp8", "mxfp8-e4m3" -> MxElementType.FP8_E4M3;
            case "mxfp8-e5m2" -> MxElementType.FP8_E5M2;
            case "mxfp6", "mxfp6-e2m3" -> MxElementType.FP6_E2M3;
            case "mxfp6-e3m2" -> MxElementType.FP6_E3M2;
            case "mxfp4" -> MxElementType.FP4_E2M1;
            case "mxint8" -> MxElementType.INT8;
            default -> throw new IllegalArgumentException("MX format must be mxfp8, mxfp8-e5m2, mxfp6, mxfp6-e3m2, mxfp4 or mxint8, got '"
                    + text + "'");
        };
    }

    public static String name(MxElementType type) {
        return switch (type) {
            case FP8_E4M3 -> "mxfp8";
            case FP8_E5M2 -> "mxfp8-e5m2";
            case FP6_E2M3 -> "mxfp6";
            case FP6_E3M2 -> "mxfp6-e3m2";
            case FP4_E2M1 -> "mxfp4";
            case INT8 -> "mxint8";
        };
    }

    /** Quantize–dequantize of every row; returns the effective FP32 weights. */
    public static float[][] quantizeDequantize(float[][] w, MxElementType type) {
        float[][] out = new float[w.length][];
        for (int r = 0; r < w.length; r++) {
            float[] row = w[r];
            out[r] = new float[row.length];
            for (int from = 0; from < row.length; from += MxBlock.SIZE) {
                int to = Math.min(row.length, from + MxBlock.SIZE);
                MxBlock block = MxQuantizer.quantize(type, java.util.Arrays.copyOfRange(row, from, to), Rounding.NEAREST_EVEN);
                float[] back = block.dequantizeToFp32();
                System.arraycopy(back, 0, out[r], from, to - from);
            }
        }
        return out;
    }

    public static long storageBytes(int rows, int cols, MxElementType type) {
        long blocks = (long) rows * ((cols + MxBlock.SIZE - 1) / MxBlock.SIZE);
        return ((long) rows * cols * type.bits() + blocks * 8 + 7) / 8;
    }
}
