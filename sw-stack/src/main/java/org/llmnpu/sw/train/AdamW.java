package org.llmnpu.sw.train;

import java.util.List;

/**
 * AdamW (Loshchilov and Hutter): per element, {@code m = β1·m + (1−β1)·g}, {@code v = β2·v + (1−β2)·g²},
 * bias-corrected {@code m̂ = m/(1−β1^t)}, {@code v̂ = v/(1−β2^t)}, then
 * {@code p −= lr·(m̂/(√v̂ + ε) + λ·p)} — the weight decay λ is decoupled from the gradient (it is not fed through
 * m and v). β1 = 0.9, β2 = 0.999, ε = 1e-8. A parameter whose gradient is always zero and that starts at zero
 * (a pruned weight) stays exactly zero.
 */
public final class AdamW {

    public static final double BETA1 = 0.9;
    public static final double BETA2 = 0.999;
    public static final double EPSILON = 1e-8;

    private final List<double[]> params;
    private final double[][] m;
    private final double[][] v;
    private final double weightDecay;
    private int step;

    /** Optimizes the rows {@code params} in place; gradients are given per step in the same order and shapes. */
    public AdamW(List<double[]> params, double weightDecay) {
        if (!(weightDecay >= 0)) {
            throw new IllegalArgumentException("weight decay must be >= 0, got " + weightDecay);
        }
        this.params = params;
        this.weightDecay = weightDecay;
        this.m = new double[params.size()][];
        this.v = new double[params.size()][];
        for (int i = 0; i < params.size(); i++) {
            m[i] = new double[params.get(i).length];
            v[i] = new double[params.get(i).length];
        }
    }

    /** One update with learning rate {@code lr}. */
    public void step(List<double[]> grads, double lr) {
        if (grads.size() != params.size()) {
            throw new IllegalArgumentException("expected " + params.size() + " gradient rows, got " + grads.size());
        }
        step++;
        double c1 = 1 - Math.pow(BETA1, step);
        double c2 = 1 - Math.pow(BETA2, step);
        for (int r = 0; r < params.size(); r++) {
            double[] p = params.get(r);
            double[] g = grads.get(r);
            double[] mr = m[r];
            double[] vr = v[r];
            for (int i = 0; i < p.length; i++) {
                mr[i] = BETA1 * mr[i] + (1 - BETA1) * g[i];
                vr[i] = BETA2 * vr[i] + (1 - BETA2) * g[i] * g[i];
                p[i] -= lr * (mr[i] / c1 / (Math.sqrt(vr[i] / c2) + EPSILON) + weightDecay * p[i]);
            }
        }
    }

    public int steps() {
        return step;
    }
}
