package org.llmnpu.numerics.vector;

import java.util.Arrays;
import java.util.function.DoubleUnaryOperator;
import java.util.function.UnaryOperator;
import org.llmnpu.numerics.fp16.Fp16;

/**
 * The Vector DSP kernels as one catalogue: for each, the golden FP16 kernel, its double-precision
 * reference ({@link KernelReference}) in the metric its bound is stated in, and that bound.
 * Operands are FP16 vectors in a fixed order: softmax, silu, gelu, exp, reciprocal, rsqrt, max,
 * sum take {x}; rmsnorm {x, γ}; layernorm {x, γ, β}; swiglu {gate, up}; residual {a, b}; rope
 * {x_lo, x_hi, cos, sin} (the two halves of a head) and returns {y_lo, y_hi}; max and sum return
 * one element (sum rounded once from FP32 to FP16).
 */
public enum VectorKernel {
    SOFTMAX, RMSNORM, LAYERNORM, SILU, GELU, SWIGLU, RESIDUAL, ROPE, EXP, RECIPROCAL, RSQRT, MAX, SUM;

    /** Lower-case name, as the command line spells it. */
    public String cliName() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }

    /** The kernel with this name. */
    public static VectorKernel byName(String name) {
        return Arrays.stream(values()).filter(k -> k.cliName().equals(name)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("kernel must be one of "
                        + Arrays.stream(values()).map(VectorKernel::cliName).toList() + ", got '" + name + "'"));
    }

    /** The golden kernel's outputs. */
    public short[][] golden(short[][] in, float eps, VectorConfig c) {
        return switch (this) {
            case SOFTMAX -> new short[][] {Softmax.softmax(in[0], c)};
            case RMSNORM -> new short[][] {Norms.rmsNorm(in[0], in[1], eps, c)};
            case LAYERNORM -> new short[][] {Norms.layerNorm(in[0], in[1], in[2], eps, c)};
            case SILU -> new short[][] {Activations.silu(in[0])};
            case GELU -> new short[][] {Activations.gelu(in[0])};
            case SWIGLU -> new short[][] {Activations.swiglu(in[0], in[1])};
            case RESIDUAL -> new short[][] {ElementWise.residualAdd(in[0], in[1])};
            case ROPE -> halves(ElementWise.rope(concat(in[0], in[1]), in[2], in[3]));
            case EXP -> new short[][] {map(in[0], Fp16Math::exp)};
            case RECIPROCAL -> new short[][] {map(in[0], Fp16Math::reciprocal)};
            case RSQRT -> new short[][] {map(in[0], Fp16Math::rsqrt)};
            case MAX -> new short[][] {{Reduction.max(in[0], c)}};
            case SUM -> new short[][] {{Fp16.fromFloat(Reduction.sum(in[0], c))}};
        };
    }

    /**
     * Largest error of {@code out} against double precision in FP16 ULPs ({@link KernelReference#maxUlp};
     * layernorm in {@link KernelReference#maxUlpWithRowFloor}).
     */
    public double maxUlpError(short[][] in, short[][] out, float eps) {
        double[][] x = new double[in.length][];
        for (int op = 0; op < in.length; op++) {
            x[op] = KernelReference.toDouble(in[op]);
        }
        return switch (this) {
            case SOFTMAX -> KernelReference.maxUlp(out[0], KernelReference.softmax(x[0]));
            case RMSNORM -> KernelReference.maxUlp(out[0], KernelReference.rmsNorm(x[0], x[1], eps));
            case LAYERNORM -> KernelReference.maxUlpWithRowFloor(out[0], KernelReference.layerNorm(x[0], x[1], x[2], eps));
            case SILU -> KernelReference.maxUlp(out[0], map(x[0], KernelReference::silu));
            case GELU -> KernelReference.maxUlp(out[0], map(x[0], Activations::geluTanhReference));
            case SWIGLU -> KernelReference.maxUlp(out[0], zip(x[0], x[1], (g, u) -> KernelReference.silu(g) * u));
            case RESIDUAL -> KernelReference.maxUlp(out[0], zip(x[0], x[1], Double::sum));
            case ROPE -> KernelReference.maxUlp(concat(out[0], out[1]),
                    KernelReference.rope(concat(x[0], x[1]), x[2], x[3]));
            case EXP -> KernelReference.maxUlp(out[0], map(x[0], Math::exp));
            case RECIPROCAL -> KernelReference.maxUlp(out[0], map(x[0], v -> 1 / v));
            case RSQRT -> KernelReference.maxUlp(out[0], map(x[0], v -> 1 / Math.sqrt(v)));
            case MAX -> KernelReference.maxUlp(out[0], new double[] {Arrays.stream(x[0]).max().orElseThrow()});
            case SUM -> KernelReference.maxUlp(out[0], new double[] {Arrays.stream(x[0]).sum()});
        };
    }

    /**
     * The ULP bound stated in the golden kernel's Javadoc; LayerNorm's is stated for β = 0 and
     * grows by the 0.5 ULP of adding β; NaN for the sum, whose relative error depends on
     * cancellation.
     */
    public double ulpBound() {
        return switch (this) {
            case SOFTMAX -> Softmax.ULP_BOUND;
            case RMSNORM -> Norms.RMS_ULP_BOUND;
            case LAYERNORM -> Norms.LAYER_ULP_BOUND + 0.5;
            case SILU -> Activations.SILU_ULP_BOUND;
            case GELU -> Activations.GELU_ULP_BOUND;
            case SWIGLU -> Activations.SWIGLU_ULP_BOUND;
            case RESIDUAL -> 0.5;
            case ROPE -> ElementWise.ROPE_ULP_BOUND;
            case EXP -> Fp16Math.EXP_ULP_BOUND;
            case RECIPROCAL -> Fp16Math.RECIPROCAL_ULP_BOUND;
            case RSQRT -> Fp16Math.RSQRT_ULP_BOUND;
            case MAX -> 0;
            case SUM -> Double.NaN;
        };
    }

    private static short[] map(short[] x, UnaryOperator<Short> f) {
        short[] y = new short[x.length];
        for (int i = 0; i < x.length; i++) {
            y[i] = f.apply(x[i]);
        }
        return y;
    }

    private static double[] map(double[] x, DoubleUnaryOperator f) {
        return Arrays.stream(x).map(f).toArray();
    }

    private static double[] zip(double[] a, double[] b, java.util.function.DoubleBinaryOperator f) {
        double[] y = new double[a.length];
        for (int i = 0; i < y.length; i++) {
            y[i] = f.applyAsDouble(a[i], b[i]);
        }
        return y;
    }

    private static short[] concat(short[] a, short[] b) {
        short[] c = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, c, a.length, b.length);
        return c;
    }

    private static double[] concat(double[] a, double[] b) {
        double[] c = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, c, a.length, b.length);
        return c;
    }

    private static short[][] halves(short[] y) {
        int half = y.length / 2;
        return new short[][] {Arrays.copyOf(y, half), Arrays.copyOfRange(y, half, y.length)};
    }
}
