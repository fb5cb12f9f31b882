package org.llmnpu.sw.spec;

import java.util.Arrays;
import java.util.Random;
import org.llmnpu.sw.model.KvStore;
import org.llmnpu.sw.model.Ops;
import org.llmnpu.sw.model.Transformer;
import org.llmnpu.sw.sample.Sampler;
import org.llmnpu.sw.sample.SamplerConfig;

/**
 * Draft/verify speculative decoding. Each step the draft proposes γ tokens from its sampling
 * distributions q; the target scores the last committed token and the γ drafts in one pass (γ+1
 * distributions p); drafts are accepted by {@link SpeculativeSampling} (sampled mode) or while they
 * equal the target's argmax (greedy mode, temperature 0); the first rejection emits a corrected token,
 * and a full acceptance emits a bonus token from {@code p_{γ+1}}. Rejected positions are rolled back
 * from both KV caches. In greedy mode the output equals greedy decoding of the target alone; in
 * sampled mode it follows the target's sampling distribution.
 */
public final class SpeculativeDecoder {

    private final Transformer target;
    private final Transformer draft;
    private final int gamma;
    private final SamplerConfig samplerConfig;

    public SpeculativeDecoder(Transformer target, Transformer draft, int gamma, SamplerConfig samplerConfig) {
        if (gamma < 1) {
            throw new IllegalArgumentException("gamma must be >= 1 draft token, got " + gamma);
        }
        if (target.config().vocabSize() != draft.config().vocabSize()) {
            throw new IllegalArgumentException("draft vocabulary " + draft.config().vocabSize()
                    + " must equal the target's " + target.config().vocabSize());
        }
        this.target = target;
        this.draft = draft;
        this.gamma = gamma;
        this.samplerConfig = samplerConfig;
    }

    public SpeculativeResult generate(int[] prompt, int maxNew) {
        if (maxNew < 1) {
            throw new IllegalArgumentException("max-new must be >= 1, got " + maxNew);
        }
        long t0 = System.nanoTime();
        Sampler sampler = new Sampler(samplerConfig);
        Random random = sampler.random();
        int capacity = prompt.length + maxNew + gamma + 2;
        KvStore targetKv = target.newCache(capacity);
        KvStore draftKv = draft.newCache(capacity);
        int[] seq = Arrays.copyOf(prompt, capacity);
        int len = prompt.length;
        int draftFed = 0;
        for (int i = 0; i < len - 1; i++) {
            target.forward(seq[i], i, targetKv);
        }
        int passes = 0;
        long drafted = 0;
        long accepted = 0;
        while (len - prompt.length < maxNew) {
            // Draft: catch up on committed tokens, then propose gamma tokens.
            float[] draftLogits = null;
            for (; draftFed < len; draftFed++) {
                draftLogits = draft.forward(seq[draftFed], draftFed, draftKv);
            }
            int[] x = new int[gamma];
            double[][] q = new double[gamma][];
            for (int i = 0; i < gamma; i++) {
                q[i] = sampler.distribution(draftLogits);
                x[i] = samplerConfig.isGreedy() ? Ops.argmax(draftLogits) : Sampler.draw(q[i], random);
                if (i + 1 < gamma) {
                    draftLogits = draft.forward(x[i], len + i, draftKv);
                }
            }
            // Verify: one target pass over the pending token and the drafts.
            float[][] targetLogits = new float[gamma + 1][];
            targetLogits[0] = target.forward(seq[len - 1], len - 1, targetKv);
            for (int i = 0; i < gamma; i++) {
                targetLogits[i + 1] = target.forward(x[i], len + i, targetKv);
            }
            passes++;
            drafted += gamma;
            int kept = 0;
            int next = -1;
            for (int i = 0; i < gamma && next < 0; i++) {
                double[] p = sampler.distribution(targetLogits[i]);
                boolean ok = samplerConfig.isGreedy() ? x[i] == Ops.argmax(targetLogits[i])
                        : SpeculativeSampling.accept(p, q[i], x[i], random);
                if (ok) {
                    kept++;
                } else {
                    next = samplerConfig.isGreedy() ? Ops.argmax(targetLogits[i]) : SpeculativeSampling.resample(p, q[i], random);
                }
            }
            if (next < 0) {
                next = samplerConfig.isGreedy() ? Ops.argmax(targetLogits[gamma])
                        : Sampler.draw(sampler.distribution(targetLogits[gamma]), random);
            }
            accepted += kept;
            System.arraycopy(x, 0, seq, len, kept);
            len += kept;
            seq[len++] = next;
            targetKv.truncate(len - 1);
            draftFed += Math.min(kept, gamma - 1);
            draftKv.truncate(draftFed);
        }
        int[] out = Arrays.copyOfRange(seq, prompt.length, prompt.length + maxNew);
        return new SpeculativeResult(out, gamma, passes, drafted, accepted, (System.nanoTime() - t0) / 1e9);
    }
}
