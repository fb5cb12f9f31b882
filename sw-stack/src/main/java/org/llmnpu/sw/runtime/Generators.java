package org.llmnpu.sw.runtime;

import java.util.function.IntFunction;
import org.llmnpu.sw.model.KvStore;
import org.llmnpu.sw.model.Transformer;
import org.llmnpu.sw.sample.Sampler;

/**
 * Autoregressive generation loops: the dynamic-shape reference (growing KV cache) and the
 * static-shape runtime (prefill graph + decode graph). Both return the first {@code maxNew} tokens
 * and the logits each token was sampled from.
 */
public final class Generators {

    private Generators() {
    }

    public static Generation dynamic(Transformer model, int[] prompt, int maxNew, Sampler sampler) {
        checkMaxNew(maxNew);
        long t0 = System.nanoTime();
        KvStore kv = model.newCache(prompt.length + maxNew);
        float[] logits = null;
        for (int token : prompt) {
            logits = model.forward(token, kv.length(), kv);
        }
        return sampled(logits, token -> model.forward(token, kv.length(), kv), maxNew, sampler, t0);
    }

    public static Generation staticShape(StaticShapeRuntime runtime, int[] prompt, int maxNew, Sampler sampler) {
        checkMaxNew(maxNew);
        if (maxNew - 1 > runtime.shape().slr()) {
            throw new IllegalArgumentException("max-new " + maxNew + " needs " + (maxNew - 1)
                    + " decode steps but the static shape allows SLR = " + runtime.shape().slr());
        }
        long t0 = System.nanoTime();
        return sampled(runtime.prefill(prompt), runtime::decode, maxNew, sampler, t0);
    }

    /**
     * {@code maxNew} tokens sampled from {@code logits} (the prompt's last) and then from what {@code decode} gives for
     * each sampled token but the last; the wall time counted from {@code t0}.
     */
    private static Generation sampled(float[] logits, IntFunction<float[]> decode, int maxNew, Sampler sampler,
            long t0) {
        int[] out = new int[maxNew];
        float[][] outLogits = new float[maxNew][];
        for (int i = 0; i < maxNew; i++) {
            outLogits[i] = logits;
            out[i] = sampler.sample(logits);
            if (i + 1 < maxNew) {
                logits = decode.apply(out[i]);
            }
        }
        return new Generation(out, outLogits, (System.nanoTime() - t0) / 1e9);
    }

    private static void checkMaxNew(int maxNew) {
        if (maxNew < 1) {
            throw new IllegalArgumentException("max-new must be >= 1, got " + maxNew);
        }
    }
}
