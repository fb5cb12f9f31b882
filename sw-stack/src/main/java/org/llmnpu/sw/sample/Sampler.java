package org.llmnpu.sw.sample;

import java.util.Arrays;
import java.util.Random;
import org.llmnpu.sw.model.Ops;

/**
 * Turns logits into the sampling distribution defined by a {@link SamplerConfig} and draws tokens
 * from it with a seeded generator (same seed, same tokens).
 */
public final class Sampler {

    private final SamplerConfig config;
    private final Random random;

    public Sampler(SamplerConfig config) {
        this.config = config;
        this.random = new Random(mix(config.seed()));
    }

    /**
     * SplitMix64 finalizer: java.util.Random's first outputs for neighbouring seeds (1, 2, 3...) are
     * strongly correlated, so user seeds are scrambled first.
     */
    static long mix(long seed) {
        long z = seed + 0x9E3779B97F4A7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    public SamplerConfig config() {
        return config;
    }

    public Random random() {
        return random;
    }

    /** The distribution tokens are drawn from (one-hot at the argmax when greedy). */
    public double[] distribution(float[] logits) {
        double[] p = new double[logits.length];
        if (config.isGreedy()) {
            p[Ops.argmax(logits)] = 1.0;
            return p;
        }
        double max = Double.NEGATIVE_INFINITY;
        for (float l : logits) {
            max = Math.max(max, l / (double) config.temperature());
        }
        double sum = 0;
        for (int i = 0; i < p.length; i++) {
            p[i] = Math.exp(logits[i] / (double) config.temperature() - max);
            sum += p[i];
        }
        for (int i = 0; i < p.length; i++) {
            p[i] /= sum;
        }
        if (config.topK() > 0 && config.topK() < p.length) {
            keepMostLikely(p, config.topK());
        }
        if (config.topP() < 1f) {
            keepNucleus(p, config.topP());
        }
        return p;
    }

    public int sample(float[] logits) {
        return draw(distribution(logits), random);
    }

    /** Inverse-CDF draw from a normalized distribution. */
    public static int draw(double[] p, Random random) {
        double u = random.nextDouble();
        double cdf = 0;
        int last = 0;
        for (int i = 0; i < p.length; i++) {
            if (p[i] > 0) {
                cdf += p[i];
                last = i;
                if (u < cdf) {
                    return i;
                }
            }
        }
        return last;
    }

    private static Integer[] byDescendingProbability(double[] p) {
        Integer[] order = new Integer[p.length];
        for (int i = 0; i < p.length; i++) {
            order[i] = i;
        }
        Arrays.sort(order, (a, b) -> p[b] != p[a] ? Double.compare(p[b], p[a]) : Integer.compare(a, b));
        return order;
    }

    private static void keepMostLikely(double[] p, int k) {
        Integer[] order = byDescendingProbability(p);
        for (int i = k; i < order.length; i++) {
            p[order[i]] = 0;
        }
        normalize(p);
    }

    private static void keepNucleus(double[] p, double topP) {
        Integer[] order = byDescendingProbability(p);
        double cumulative = 0;
        int keep = 0;
        while (keep < order.length && cumulative < topP) {
            cumulative += p[order[keep]];
            keep++;
        }
        for (int i = keep; i < order.length; i++) {
            p[order[i]] = 0;
        }
        normalize(p);
    }

    static void normalize(double[] p) {
        double sum = 0;
        for (double v : p) {
            sum += v;
        }
        for (int i = 0; i < p.length; i++) {
            p[i] /= sum;
        }
    }
}
