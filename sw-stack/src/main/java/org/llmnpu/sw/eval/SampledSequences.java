package org.llmnpu.sw.eval;

import java.util.Arrays;
import org.llmnpu.sw.model.Transformer;
import org.llmnpu.sw.runtime.Generators;
import org.llmnpu.sw.sample.Sampler;
import org.llmnpu.sw.sample.SamplerConfig;

/**
 * Token sequences sampled from a model itself (temperature 1, no top-k/top-p), each starting with BOS
 * (id 1): a calibration set for compression, or a held-out evaluation set, that needs no text corpus
 * and follows the model's own distribution. Sequence i uses the sampler seed {@code seed + i}; the
 * calibration and evaluation sets use different seed ranges ({@link #CALIBRATION_SEED},
 * {@link #EVALUATION_SEED}), and {@link #disjoint} checks that no sequence occurs in both.
 */
public final class SampledSequences {

    /** First seed of calibration sequences. */
    public static final long CALIBRATION_SEED = 1_000;
    /** First seed of held-out evaluation sequences. */
    public static final long EVALUATION_SEED = 2_000_000;
    /** The llama2.c BOS token. */
    public static final int BOS = 1;

    private SampledSequences() {
    }

    /** {@code count} sequences of {@code length} tokens (BOS plus {@code length − 1} sampled). */
    public static int[][] sample(Transformer model, int count, int length, long seed) {
        if (count < 1) {
            throw new IllegalArgumentException("need at least one sequence, got " + count);
        }
        if (length < 2 || length > model.config().maxSeqLen()) {
            throw new IllegalArgumentException("sequence length must be in 2.." + model.config().maxSeqLen() + ", got " + length);
        }
        int[][] out = new int[count][];
        for (int i = 0; i < count; i++) {
            Sampler sampler = new Sampler(new SamplerConfig(1f, 0, 1f, seed + i));
            int[] gen = Generators.dynamic(model, new int[] {BOS}, length - 1, sampler).tokens();
            out[i] = new int[length];
            out[i][0] = BOS;
            System.arraycopy(gen, 0, out[i], 1, length - 1);
        }
        return out;
    }

    /** True if no sequence of {@code a} equals one of {@code b}. */
    public static boolean disjoint(int[][] a, int[][] b) {
        for (int[] x : a) {
            for (int[] y : b) {
                if (Arrays.equals(x, y)) {
                    return false;
                }
            }
        }
        return true;
    }
}
