package org.llmnpu.sw.compress;

import java.util.Locale;

/**
 * How integer weight scales and codes are chosen:
 * <ul>
 *   <li>{@code minmax} — round to nearest with the min–max (or max-|w|) scale of each group;</li>
 *   <li>{@code clip} — a per-output-channel clip ratio from a grid, minimizing the output error on the
 *       calibration activations ({@link org.llmnpu.numerics.quant.ClipCalibrator});</li>
 *   <li>{@code gptq} — GPTQ (activation-aware): min–max group scales, but columns are quantized left to
 *       right and each column's rounding error is compensated on the remaining columns through the
 *       inverse Hessian of the calibration inputs ({@link ObsCompressor}).</li>
 * </ul>
 */
public enum QuantMethod {
    MINMAX, CLIP, GPTQ, AWQ;

    public static QuantMethod parse(String text) {
        return switch (text.trim().toLowerCase(Locale.ROOT)) {
            case "minmax" -> MINMAX;
            case "clip" -> CLIP;
            case "gptq" -> GPTQ;
            case "awq" -> AWQ;
            default -> throw new IllegalArgumentException("quantization method must be minmax, clip, gptq or awq, got '" + text + "'");
        };
    }

    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }
}
