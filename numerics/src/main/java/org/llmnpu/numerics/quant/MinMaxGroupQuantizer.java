package org.llmnpu.numerics.quant;

/**
 * Asymmetric min–max quantization of one group of values, as KV-cache quantizers (KIVI) do it:
 * {@code scale = (max - min) / (2^b - 1)}, {@code q = clamp(round((x - min) / scale), 0, 2^b - 1)},
 * dequantized {@code q * scale + min}. Scale and minimum are stored in FP16 (as in the seed), and the
 * codes are computed from those stored values so that quantize→dequantize is what the hardware sees.
 * A constant group (max == min) gets scale 0 and dequantizes exactly to its FP16 minimum.
 */
public final class MinMaxGroupQuantizer {

    /** One quantized group: codes in {@code [0, 2^bits - 1]} plus FP16-rounded scale and minimum. */
    public record Group(int bits, byte[] codes, float scale, float min) {
        public float dequantize(int i) {
            return (codes[i] & 0xFF) * scale + min;
        }

        /** Storage: {@code bits} per code plus two FP16 numbers. */
        public int storageBits() {
            return codes.length * bits + 32;
        }
    }

    private MinMaxGroupQuantizer() {
    }

    /** Quantizes {@code count} values read from {@code src[offset + i * stride]}. */
    public static Group quantize(float[] src, int offset, int stride, int count, int bits) {
        if (bits < 2 || bits > 8) {
            throw new IllegalArgumentException("bits must be in 2..8, got " + bits);
        }
        float min = Float.POSITIVE_INFINITY;
        float max = Float.NEGATIVE_INFINITY;
        for (int i = 0; i < count; i++) {
            float v = src[offset + i * stride];
            min = Math.min(min, v);
            max = Math.max(max, v);
        }
        int levels = (1 << bits) - 1;
        float minH = Fp16Rounding.round(min);
        float scaleH = Fp16Rounding.round((max - min) / levels);
        byte[] codes = new byte[count];
        for (int i = 0; i < count; i++) {
            float v = src[offset + i * stride];
            int q = scaleH == 0f ? 0 : (int) Math.rint((v - minH) / scaleH);
            codes[i] = (byte) Math.max(0, Math.min(levels, q));
        }
        return new Group(bits, codes, scaleH, minH);
    }

    public static Group quantize(float[] values, int bits) {
        return quantize(values, 0, 1, values.length, bits);
    }

    /** Writes the dequantized group to {@code dst[offset + i * stride]}. */
    public static void dequantize(Group g, float[] dst, int offset, int stride) {
        for (int i = 0; i < g.codes().length; i++) {
            dst[offset + i * stride] = g.dequantize(i);
        }
    }
}
