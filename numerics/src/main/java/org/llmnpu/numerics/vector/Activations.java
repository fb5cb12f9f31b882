package org.llmnpu.numerics.vector;

import org.llmnpu.numerics.fp16.Fp16;

/**
 * Element-wise activations in FP16 on the Vector DSP (all steps correctly rounded FP16 operations
 * and the {@link Fp16Math} functions):
 * <ul>
 *   <li>{@code sigmoid(v)}: with {@code t = exp(−|v|)} (never overflows) and
 *       {@code q = reciprocal(1 + t)}: {@code q} for v ≥ 0 and {@code t · q} for v &lt; 0 (a sign
 *       mux; the naive 1/(1 + e^−v) would overflow for v &lt; −11.1 and return 0);</li>
 *   <li>{@code silu(x) = timesSigmoid(x, x)}, see {@link #timesSigmoid};</li>
 *   <li>{@code gelu(x)}: the tanh form 0.5·x·(1 + tanh(√(2/π)(x + 0.044715x³))), computed as
 *       {@code timesSigmoid(x, C2 · fma(C3, (x·x)·x, x))} (the inner sum one fused multiply-add) with FP16 constants C2 = 2√(2/π),
 *       C3 = 0.044715 (using 0.5(1 + tanh z) = sigmoid(2z));</li>
 *   <li>{@code swiglu(g, u) = silu(g) · u}.</li>
 * </ul>
 * Error bounds vs the double-precision functions on the same FP16 inputs (ULP of the reference):
 * SiLU ≤ {@value #SILU_ULP_BOUND} and GeLU (vs its tanh form) ≤ {@value #GELU_ULP_BOUND}, both held
 * exhaustively over every FP16 input (measured 3.9 and 15.5 with the fused steps; 3.3 and 14.9 without). SwiGLU ≤ {@value #SWIGLU_ULP_BOUND}
 * whenever silu(g) is a normal FP16 value (SiLU's 4 ULP are at most 2^-8 relative, 8 units of
 * 2^-11, plus 1 for the product); when silu(g) is subnormal (g &lt; −12.3) its absolute error of a
 * few 2^-24 is multiplied by |u|. The large GeLU bound comes from the negative tail (x ≈ −4), where
 * the output is x·e^(2z) and the rounding of the FP16 argument 2z (|2z| ≈ 11, ULP 2^-7) is
 * amplified.
 */
public final class Activations {
    public static final double SILU_ULP_BOUND = 4.0;
    public static final double GELU_ULP_BOUND = 16.0;
    public static final double SWIGLU_ULP_BOUND = 9.0;

    /** FP16(2·√(2/π)). */
    public static final short GELU_C2 = Fp16.fromDouble(2 * StrictMath.sqrt(2 / Math.PI));
    /** FP16(0.044715). */
    public static final short GELU_C3 = Fp16.fromDouble(0.044715);

    private Activations() {
    }

    /** Logistic sigmoid of one FP16 value (see class comment). */
    public static short sigmoid(short v) {
        if (Fp16.isNaN(v)) {
            return Fp16.NaN;
        }
        short t = Fp16Math.exp(Fp16.neg(Fp16.abs(v)));
        short q = Fp16Math.reciprocal(Fp16.add(Fp16.ONE, t));
        return Fp16.signBit(v) ? Fp16.mul(t, q) : q;
    }

    /** SiLU of one FP16 value. */
    public static short silu(short x) {
        return timesSigmoid(x, x);
    }

    /**
     * {@code x · sigmoid(v)}. For v ≥ 0 (or NaN) it is {@code Fp16.mul(x, sigmoid(v))}. For v &lt; 0,
     * with {@code (p, k) = Fp16Math.expParts(v)} and {@code q = reciprocal(1 + scalb(p, k))}, it is
     * {@code Fp16.scalb(Fp16.mul(Fp16.mul(x, p), q), k)}: the power of two goes last so that a tiny
     * sigmoid multiplied by a large x keeps its bits.
     */
    public static short timesSigmoid(short x, short v) {
        if (Fp16.isNaN(v) || !Fp16.signBit(v)) {
            return Fp16.mul(x, sigmoid(v));
        }
        Fp16Math.Scaled parts = Fp16Math.expParts(v);
        short q = Fp16Math.reciprocal(Fp16.add(Fp16.ONE, Fp16.scalb(parts.significand(), parts.exponent())));
        return Fp16.scalb(Fp16.mul(Fp16.mul(x, parts.significand()), q), parts.exponent());
    }

    /** GeLU (tanh form) of one FP16 value. */
    public static short gelu(short x) {
        short cube = Fp16.mul(Fp16.mul(x, x), x);
        short inner = Fp16.fma(GELU_C3, cube, x);
        short twoZ = Fp16.mul(GELU_C2, inner);
        return timesSigmoid(x, twoZ);
    }

    /** Double reference of the tanh-form GeLU. */
    public static double geluTanhReference(double x) {
        return 0.5 * x * (1 + Math.tanh(Math.sqrt(2 / Math.PI) * (x + 0.044715 * x * x * x)));
    }

    /** SiLU over a vector. */
    public static short[] silu(short[] x) {
        short[] y = new short[x.length];
        for (int i = 0; i < x.length; i++) {
            y[i] = silu(x[i]);
        }
        return y;
    }

    /** GeLU over a vector. */
    public static short[] gelu(short[] x) {
        short[] y = new short[x.length];
        for (int i = 0; i < x.length; i++) {
            y[i] = gelu(x[i]);
        }
        return y;
    }

    /** SwiGLU gating: {@code silu(gate_i) · up_i}. */
    public static short[] swiglu(short[] gate, short[] up) {
        if (gate.length != up.length) {
            throw new IllegalArgumentException("up must have the length of gate (" + gate.length + "), got " + up.length);
        }
        short[] y = new short[gate.length];
        for (int i = 0; i < y.length; i++) {
            y[i] = Fp16.mul(silu(gate[i]), up[i]);
        }
        return y;
    }
}
