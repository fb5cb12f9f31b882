package org.llmnpu.sw.kv;

import java.util.Arrays;
import org.llmnpu.sw.eval.LogitComparison;
import org.llmnpu.sw.model.DenseKvCache;
import org.llmnpu.sw.model.ModelConfig;
import org.llmnpu.sw.model.RecordingKvStore;
import org.llmnpu.sw.model.Transformer;

/**
 * Measures KV-cache settings on one model: a context is prefilled once with the FP32 cache (queries
 * recorded for eviction); each setting then builds its cache from that prefill (evicting, then
 * quantizing as a stream, as a runtime would) and decodes the same continuation tokens teacher-forced.
 * The reference decodes with the full FP32 cache. Decode time is measured on a second, identical run
 * (the first warms up the JIT).
 */
public final class KvStudy {

    private final Transformer model;
    private final int[] continuation;
    private final RecordingKvStore prefill;
    private final float[][] reference;
    private final long fullFp16Bytes;

    public KvStudy(Transformer model, int[] context, int[] continuation) {
        if (context.length < 2 || continuation.length < 1) {
            throw new IllegalArgumentException("need a context of >= 2 tokens and >= 1 continuation token");
        }
        this.model = model;
        this.continuation = continuation.clone();
        ModelConfig c = model.config();
        this.prefill = new RecordingKvStore(c, context.length);
        model.forwardAll(context, prefill);
        DenseKvCache full = model.newCache(context.length + continuation.length);
        model.forwardAll(context, full);
        this.reference = model.forwardAll(continuation, full);
        this.fullFp16Bytes = 2L * 2 * c.layers() * c.kvDim() * context.length;
    }

    /**
     * A study on {@code weights}: synthetic models read synthetic token ids (context seeded {@code seed + 10},
     * continuation {@code seed + 11}); a real model reads one sequence of {@code context + decode} tokens
     * sampled from itself at temperature 1 (BOS first, seed {@code EVALUATION_SEED + seed}), so context and
     * continuation are text it would write.
     */
    public static KvStudy forModel(org.llmnpu.sw.model.ModelWeights weights, boolean synthetic, int context, int decode, long seed) {
        Transformer t = new Transformer(weights);
        ModelConfig c = weights.config();
        if (synthetic) {
            return new KvStudy(t, org.llmnpu.sw.model.SyntheticPrompts.prompt(c, context, seed + 10),
                    org.llmnpu.sw.model.SyntheticPrompts.prompt(c, decode, seed + 11));
        }
        int[] seq = org.llmnpu.sw.eval.SampledSequences.sample(t, 1, context + decode,
                org.llmnpu.sw.eval.SampledSequences.EVALUATION_SEED + seed)[0];
        return new KvStudy(t, Arrays.copyOf(seq, context), Arrays.copyOfRange(seq, context, seq.length));
    }

    public KvStudyResult measure(KvSetting setting) {
        ModelConfig c = model.config();
        int[][][] kept = setting.eviction().isPresent()
                ? SnapKvEviction.select(prefill, setting.eviction().get())
                : CompressedKvStore.keepAll(c, prefill.length());
        decode(CompressedKvStore.fromPrefill(prefill.cache(), kept, setting.quant()));
        CompressedKvStore store = CompressedKvStore.fromPrefill(prefill.cache(), kept, setting.quant());
        long bytes = store.bytesPerDecodeStep();
        double rows = 0;
        for (int l = 0; l < c.layers(); l++) {
            for (int h = 0; h < c.kvHeads(); h++) {
                rows += store.rows(l, h);
            }
        }
        rows /= c.layers() * c.kvHeads();
        long t0 = System.nanoTime();
        float[][] logits = decode(store);
        double ms = (System.nanoTime() - t0) / 1e6 / continuation.length;
        LogitComparison cmp = LogitComparison.compare(reference, logits);
        return new KvStudyResult(setting.toString(), cmp.klDivergence(), cmp.top1Agreement(), cmp.snrDb(), bytes,
                bytes / (double) fullFp16Bytes, rows, ms);
    }

    private float[][] decode(CompressedKvStore store) {
        float[][] logits = new float[continuation.length][];
        for (int i = 0; i < continuation.length; i++) {
            logits[i] = model.forward(continuation[i], store.length(), store);
        }
        return logits;
    }

    /** Kept positions for a setting (for inspection and tests). */
    public int[][][] keptPositions(EvictionConfig e) {
        return SnapKvEviction.select(prefill, e);
    }

    public int contextLength() {
        return prefill.length();
    }

    public float[][] referenceLogits() {
        return Arrays.copyOf(reference, reference.length);
    }
}
