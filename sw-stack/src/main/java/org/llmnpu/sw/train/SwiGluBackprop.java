package org.llmnpu.sw.train;

/**
 * The SwiGLU gate of the FFN, {@code h = silu(g) · u} with {@code silu(g) = g·σ(g)}, and its backward pass:
 * {@code du = dh · silu(g)}, {@code dg = dh · u · σ(g)·(1 + g·(1 − σ(g)))}.
 */
public final class SwiGluBackprop {

    private SwiGluBackprop() {
    }

    public static double[][] forward(double[][] gate, double[][] up) {
        double[][] h = new double[gate.length][gate[0].length];
        for (int t = 0; t < gate.length; t++) {
            for (int i = 0; i < gate[t].length; i++) {
                h[t][i] = silu(gate[t][i]) * up[t][i];
            }
        }
        return h;
    }

    /** Writes the gradients of gate and up into {@code dGate} and {@code dUp}. */
    public static void backward(double[][] dh, double[][] gate, double[][] up, double[][] dGate, double[][] dUp) {
        for (int t = 0; t < gate.length; t++) {
            for (int i = 0; i < gate[t].length; i++) {
                double g = gate[t][i];
                double sigma = 1.0 / (1.0 + Math.exp(-g));
                dUp[t][i] = dh[t][i] * g * sigma;
                dGate[t][i] = dh[t][i] * up[t][i] * sigma * (1 + g * (1 - sigma));
            }
        }
    }

    static double silu(double g) {
        return g / (1.0 + Math.exp(-g));
    }
}
