package org.llmnpu.numerics.ppu;

import java.util.function.DoubleUnaryOperator;
import org.apache.commons.math3.special.Erf;

/**
 * The activation functions the toolkit ships PPU tables for, each with its double-precision
 * reference (StrictMath / Commons Math, identical on every JVM, so fitted tables are reproducible) and the INT8 quantization of its input and output (TFLite-like conventions).
 *
 * <table>
 *   <caption>shipped functions</caption>
 *   <tr><th>function</th><th>reference</th><th>input real range</th><th>output real range</th></tr>
 *   <tr><td>GELU</td><td>x·Φ(x) = x/2·(1 + erf(x/√2))</td><td>[−8, 7.94], scale 1/16</td><td>[−0.25, 7.72], scale 1/32, zp −120</td></tr>
 *   <tr><td>SILU</td><td>x / (1 + e^−x)</td><td>[−8, 7.94], scale 1/16</td><td>[−0.28, 7.69], scale 1/32, zp −119</td></tr>
 *   <tr><td>SIGMOID</td><td>1 / (1 + e^−x)</td><td>[−8, 7.94], scale 1/16</td><td>[0, 0.996], scale 1/256, zp −128</td></tr>
 *   <tr><td>TANH</td><td>tanh x</td><td>[−4, 3.97], scale 1/32</td><td>[−1, 0.992], scale 1/128, zp 0</td></tr>
 *   <tr><td>EXP</td><td>e^x (SoftMax numerators, x ≤ 0)</td><td>[−15.9, 0], scale 1/16, zp 127</td><td>[0, 1], scale 1/255, zp −128</td></tr>
 * </table>
 */
public enum PpuFunction {
    GELU(x -> 0.5 * x * (1 + Erf.erf(x / StrictMath.sqrt(2))), new QuantSpec(1.0 / 16, 0), new QuantSpec(1.0 / 32, -120)),
    SILU(x -> x / (1 + StrictMath.exp(-x)), new QuantSpec(1.0 / 16, 0), new QuantSpec(1.0 / 32, -119)),
    SIGMOID(x -> 1 / (1 + StrictMath.exp(-x)), new QuantSpec(1.0 / 16, 0), new QuantSpec(1.0 / 256, -128)),
    TANH(StrictMath::tanh, new QuantSpec(1.0 / 32, 0), new QuantSpec(1.0 / 128, 0)),
    EXP(StrictMath::exp, new QuantSpec(1.0 / 16, 127), new QuantSpec(1.0 / 255, -128));

    private final DoubleUnaryOperator reference;
    private final QuantSpec input;
    private final QuantSpec output;

    PpuFunction(DoubleUnaryOperator reference, QuantSpec input, QuantSpec output) {
        this.reference = reference;
        this.input = input;
        this.output = output;
    }

    /** Double-precision reference f(x). */
    public DoubleUnaryOperator reference() {
        return reference;
    }

    /** Quantization of the input codes. */
    public QuantSpec input() {
        return input;
    }

    /** Quantization of the output codes. */
    public QuantSpec output() {
        return output;
    }

    /** Ideal real-valued output code for input code q: {@code f(input.toReal(q)) / sy + zy}, unclamped. */
    public double idealCode(int q) {
        return output.toCode(reference.applyAsDouble(input.toReal(q)));
    }
}
