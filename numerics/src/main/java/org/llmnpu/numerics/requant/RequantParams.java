package org.llmnpu.numerics.requant;

/**
 * Per-output-channel parameters of the PPM requantizer.
 *
 * @param multiplier quantized real scale {@code inputScale · weightScale / outputScale}
 * @param outputZeroPoint output zero point, within the output format's range
 * @param format INT8 or INT4
 * @param activation NONE, RELU or RELU6
 * @param sixCode output code of real 6 ({@code zeroPoint + round(6 / outputScale)}, saturated);
 *                only used by RELU6, must be &ge; outputZeroPoint
 */
public record RequantParams(QuantizedMultiplier multiplier, int outputZeroPoint, OutputFormat format,
                           Activation activation, int sixCode) {

    public RequantParams {
        if (multiplier == null || format == null || activation == null) {
            throw new IllegalArgumentException("multiplier, format and activation must not be null");
        }
        if (outputZeroPoint < format.min() || outputZeroPoint > format.max()) {
            throw new IllegalArgumentException("outputZeroPoint must be in [" + format.min() + ", " + format.max()
                    + "] for " + format + ", got " + outputZeroPoint);
        }
        if (activation == Activation.RELU6 && sixCode < outputZeroPoint) {
            throw new IllegalArgumentException("sixCode must be >= outputZeroPoint " + outputZeroPoint + ", got " + sixCode);
        }
    }

    /** Parameters from real scales: {@code multiplier = fromScale(accScale / outputScale)}, sixCode derived. */
    public static RequantParams of(double accScale, double outputScale, int outputZeroPoint,
                                   OutputFormat format, Activation activation) {
        if (!(accScale > 0) || !(outputScale > 0)) {
            throw new IllegalArgumentException("accScale and outputScale must be > 0, got " + accScale + ", " + outputScale);
        }
        long six = outputZeroPoint + Math.round(6.0 / outputScale);
        int sixCode = (int) Math.min(format.max(), six);
        return new RequantParams(QuantizedMultiplier.fromScale(accScale / outputScale), outputZeroPoint, format,
                activation, sixCode);
    }

    /** Lower clamp bound: the format minimum, raised to the zero point by RELU/RELU6. */
    public int clampMin() {
        return activation == Activation.NONE ? format.min() : Math.max(format.min(), outputZeroPoint);
    }

    /** Upper clamp bound: the format maximum, lowered to {@code sixCode} by RELU6. */
    public int clampMax() {
        return activation == Activation.RELU6 ? Math.min(format.max(), sixCode) : format.max();
    }
}
