package org.llmnpu.numerics.quant;

/**
 * Round-to-nearest weight quantization of a matrix [out][in] under a {@link QuantScheme}.
 * Scales are stored in FP16 (rounded with {@link Fp16Rounding}) and codes are computed from the
 * stored scale; rounding is half-to-even ({@link Math#rint}); codes saturate to the scheme's range.
 * A clip ratio {@code c} in (0, 1] shrinks each group's range before the scale is computed
 * (the calibrated variant, see {@link ClipCalibrator}); values beyond it saturate.
 * A group size that does not divide the row gives a last group padded with zeros
 * (see {@link QuantizedMatrix}): its scale comes from the real elements, exactly as if the padding
 * zeros were present.
 */
public final class WeightQuantizer {

    private WeightQuantizer() {
    }

    public static QuantizedMatrix quantize(float[][] weights, QuantScheme scheme) {
        float[] ones = new float[weights.length];
        java.util.Arrays.fill(ones, 1f);
        return quantize(weights, scheme, ones);
    }

    /** Quantizes with one clip ratio per row, applied to every group of that row. */
    public static QuantizedMatrix quantize(float[][] weights, QuantScheme scheme, float[] clipPerRow) {
        int rows = weights.length;
        int cols = weights[0].length;
        int group = scheme.effectiveGroup(cols);
        int groupsPerRow = (cols + group - 1) / group;
        byte[] codes = new byte[rows * cols];
        float[] scales = new float[rows * groupsPerRow];
        int[] zeros = new int[rows * groupsPerRow];
        for (int r = 0; r < rows; r++) {
            float clip = clipPerRow[r];
            if (!(clip > 0f && clip <= 1f)) {
                throw new IllegalArgumentException("clip ratio must be in (0, 1], got " + clip + " for row " + r);
            }
            for (int g = 0; g < groupsPerRow; g++) {
                int gi = r * groupsPerRow + g;
                int from = g * group;
                quantizeGroup(weights[r], from, Math.min(group, cols - from), scheme, clip, codes, r * cols, scales, zeros, gi);
            }
        }
        return new QuantizedMatrix(rows, cols, scheme, codes, scales, zeros);
    }

    /** Scale (FP16-rounded) and integer zero point of one group. */
    public record GroupParams(float scale, int zero) {
    }

    /**
     * The scale and zero point of the {@code len} elements of {@code row} from {@code from}: symmetric
     * {@code scale = fp16(clip · max|w| / maxCode)}, zero 0; asymmetric over {@code [min(0, min), max(0, max)]}
     * scaled by {@code clip}, {@code scale = fp16(range / maxCode)}, {@code zero = clamp(rint(-lo / scale))}.
     */
    public static GroupParams params(float[] row, int from, int len, QuantScheme scheme, float clip) {
        float min = Float.POSITIVE_INFINITY;
        float max = Float.NEGATIVE_INFINITY;
        for (int i = from; i < from + len; i++) {
            min = Math.min(min, row[i]);
            max = Math.max(max, row[i]);
        }
        if (scheme.symmetric()) {
            float absMax = Math.max(Math.abs(min), Math.abs(max)) * clip;
            return new GroupParams(Fp16Rounding.round(absMax / scheme.maxCode()), 0);
        }
        float lo = Math.min(0f, min) * clip;
        float hi = Math.max(0f, max) * clip;
        float scale = Fp16Rounding.round((hi - lo) / scheme.maxCode());
        int zero = scale == 0f ? 0 : (int) Math.max(0, Math.min(scheme.maxCode(), Math.rint(-lo / scale)));
        return new GroupParams(scale, zero);
    }

    /** The saturated code of {@code x}: {@code clamp(rint(x / scale) + zero)} (the zero point for scale 0). */
    public static int code(float x, GroupParams p, QuantScheme scheme) {
        int q = p.scale() == 0f ? p.zero() : (int) Math.rint(x / p.scale()) + p.zero();
        return Math.max(scheme.minCode(), Math.min(scheme.maxCode(), q));
    }

    /** Quantizes one group of {@code len} elements of {@code row} starting at {@code from}. */
    static void quantizeGroup(float[] row, int from, int len, QuantScheme scheme, float clip,
                              byte[] codes, int codeBase, float[] scales, int[] zeros, int gi) {
        GroupParams p = params(row, from, len, scheme, clip);
        scales[gi] = p.scale();
        zeros[gi] = p.zero();
        for (int i = from; i < from + len; i++) {
            codes[codeBase + i] = (byte) code(row[i], p, scheme);
        }
    }
}
