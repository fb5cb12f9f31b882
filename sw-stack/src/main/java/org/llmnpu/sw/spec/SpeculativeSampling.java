package org.llmnpu.sw.spec;

import java.util.Random;
import org.llmnpu.sw.sample.Sampler;

/**
 * The verification rule of speculative sampling for one drafted token {@code x ~ q}: accept with
 * probability {@code min(1, p(x)/q(x))}; on rejection draw a replacement from
 * {@code norm(max(0, p - q))}. The emitted token is then distributed exactly as {@code p}.
 */
public final class SpeculativeSampling {

    private SpeculativeSampling() {
    }

    public static boolean accept(double[] p, double[] q, int x, Random random) {
        if (q[x] <= 0) {
            throw new IllegalArgumentException("draft token " + x + " has zero draft probability");
        }
        double ratio = p[x] / q[x];
        return ratio >= 1 || random.nextDouble() < ratio;
    }

    /** A token from norm(max(0, p - q)); from p itself when p ≤ q everywhere (then p = q). */
    public static int resample(double[] p, double[] q, Random random) {
        double[] residual = new double[p.length];
        double sum = 0;
        for (int i = 0; i < p.length; i++) {
            residual[i] = Math.max(0, p[i] - q[i]);
            sum += residual[i];
        }
        if (sum <= 0) {
            return Sampler.draw(p, random);
        }
        for (int i = 0; i < p.length; i++) {
            residual[i] /= sum;
        }
        return Sampler.draw(residual, random);
    }

    /** One draft–verify decision: the drafted token if accepted, otherwise the resampled one, with the flag. */
    public record Decision(int token, boolean accepted) {
    }

    public static Decision verify(double[] p, double[] q, int x, Random random) {
        return accept(p, q, x, random) ? new Decision(x, true) : new Decision(resample(p, q, random), false);
    }
}
