package org.llmnpu.sw.run;

import java.io.IOException;
import java.util.Arrays;
import java.util.Optional;
import org.llmnpu.sw.compress.CompressedModel;
import org.llmnpu.sw.compress.ModelCompressor;
import org.llmnpu.sw.eval.AccuracyEvaluation;
import org.llmnpu.sw.eval.LogitComparison;
import org.llmnpu.sw.eval.SampledSequences;
import org.llmnpu.sw.io.ModelFileException;
import org.llmnpu.sw.io.TextTokenizer;
import org.llmnpu.sw.model.ModelConfig;
import org.llmnpu.sw.model.ModelWeights;
import org.llmnpu.sw.model.SyntheticPrompts;
import org.llmnpu.sw.model.Transformer;
import org.llmnpu.sw.runtime.Generation;
import org.llmnpu.sw.runtime.Generators;
import org.llmnpu.sw.runtime.StaticShapeRuntime;
import org.llmnpu.sw.sample.Sampler;
import org.llmnpu.sw.spec.DraftFactory;
import org.llmnpu.sw.spec.SpeculativeDecoder;
import org.llmnpu.sw.spec.SpeculativeResult;
import org.llmnpu.sw.train.RecoveredCompression;
import org.llmnpu.sw.train.Recovery;
import org.llmnpu.sw.train.RecoveryCache;
import org.llmnpu.sw.train.RecoveryOptions;

/**
 * Executes one {@code npu sw run}: loads or generates the model (synthetic weights use the sampler
 * seed), compresses it, generates with the chosen runtime, then measures accuracy against FP32.
 * Calibration (clip, GPTQ, Wanda, SparseGPT, compressed drafts) uses 4 sequences of 64 tokens
 * sampled from the FP32 model ({@link SampledSequences}, seeded by the run's seed), never the prompt.
 */
public final class SwRun {

    /** Calibration set of a run (smaller than {@code sw eval}'s, which measures the methods). */
    public static final int CALIBRATION_SEQUENCES = 4;
    public static final int CALIBRATION_LENGTH = 64;

    private SwRun() {
    }

    public static ModelWeights loadModel(RunOptions o) throws IOException {
        return org.llmnpu.sw.io.ModelCatalog.load(o.model(), o.weights(), o.sampler().seed());
    }

    public static RunReport run(RunOptions o) throws IOException {
        ModelWeights fp32 = loadModel(o);
        ModelConfig c = fp32.config();
        String source = o.weights().map(Object::toString).orElse(o.model());
        checkFinite(new Transformer(fp32), new int[] {SampledSequences.BOS}, source + " (FP32)");
        TextTokenizer tokenizer = org.llmnpu.sw.io.ModelCatalog.tokenizer(o.model(), o.weights(), o.tokenizer(), c).orElse(null);
        if (o.promptText().isPresent() && tokenizer == null) {
            throw new IllegalArgumentException("a text prompt needs a tokenizer: --tokenizer (llama2.c tokenizer.bin or "
                    + "tokenizer.json) or a Hugging Face model directory with tokenizer.json");
        }
        int[] prompt = o.promptText().isPresent()
                ? tokenizer.encode(o.promptText().get(), true).stream().mapToInt(Integer::intValue).toArray()
                : o.weights().isEmpty() && ModelConfig.isSynthetic(o.model())
                        ? SyntheticPrompts.prompt(c, o.promptLen(), o.sampler().seed())
                        : sampledPrompt(fp32, o.promptLen(), o.sampler().seed());
        if (o.staticShape().isPresent() && prompt.length > o.staticShape().get().slp()) {
            throw new IllegalArgumentException("the prompt has " + prompt.length + " tokens but static slp = " + o.staticShape().get().slp());
        }
        if (prompt.length + o.maxNew() > c.maxSeqLen()) {
            throw new IllegalArgumentException("prompt (" + prompt.length + " tokens) + max-new = " + (prompt.length + o.maxNew())
                    + " exceeds the model's maximum sequence length " + c.maxSeqLen());
        }
        int[][] calibrationSet = o.compression().needsCalibration() || o.speculative().isPresent() || !o.recovery().isNone()
                ? SampledSequences.sample(new Transformer(fp32), CALIBRATION_SEQUENCES,
                        Math.min(CALIBRATION_LENGTH, c.maxSeqLen()), SampledSequences.CALIBRATION_SEED + o.sampler().seed())
                : new int[][] {{SampledSequences.BOS}};
        int[] calibration = calibrationSet[0];
        CompressedModel compressed;
        String recovery = null;
        if (o.recovery().isNone()) {
            compressed = ModelCompressor.compress(fp32, o.compression(), calibrationSet);
        } else {
            RecoveredCompression.Result r = RecoveredCompression.compress(fp32, o.compression(), calibrationSet, o.recovery(),
                    Optional.ofNullable(tokenizer), Optional.of(RecoveryCache.fromEnvironment()));
            compressed = r.model();
            recovery = describe(o.recovery(), r.report());
        }
        Transformer model = new Transformer(compressed.effectiveWeights());
        Sampler sampler = new Sampler(o.sampler());
        int[] tokens;
        double seconds;
        double staticDiff = Double.NaN;
        SpeculativeResult spec = null;
        DraftFactory.Draft draft = null;
        String mode;
        if (o.speculative().isPresent()) {
            draft = DraftFactory.build(o.speculative().get(), fp32, calibration);
            spec = new SpeculativeDecoder(model, draft.model(), o.speculative().get().gamma(), o.sampler())
                    .generate(prompt, o.maxNew());
            tokens = spec.tokens();
            seconds = spec.seconds();
            mode = "speculative decoding, " + o.speculative().get() + " (" + draft.description() + ")";
        } else if (o.staticShape().isPresent()) {
            StaticShapeRuntime runtime = new StaticShapeRuntime(compressed.effectiveWeights(), o.staticShape().get());
            Generation g = Generators.staticShape(runtime, prompt, o.maxNew(), sampler);
            tokens = g.tokens();
            seconds = g.seconds();
            staticDiff = maxDiffAgainstDynamic(model, prompt, g);
            mode = "static shape slp=" + o.staticShape().get().slp() + ", slr=" + o.staticShape().get().slr();
        } else {
            Generation g = Generators.dynamic(model, prompt, o.maxNew(), sampler);
            tokens = g.tokens();
            seconds = g.seconds();
            mode = "dynamic shape";
        }
        int[] sequence = concat(prompt, tokens);
        checkFinite(new Transformer(fp32), sequence, source + " (FP32)");
        checkFinite(model, sequence, source + " (" + compressed.spec() + ")");
        LogitComparison acc = AccuracyEvaluation.evaluate(new Transformer(fp32), model, sequence, Math.min(1, sequence.length - 1));
        double alpha = spec == null ? Double.NaN : spec.acceptanceRate();
        double costRatio = draft == null ? Double.NaN : draft.costRatio();
        return new RunReport(o.weights().map(Object::toString).orElse(o.model()), compressed.spec().toString(), mode,
                prompt.length, tokens.length, tokens.length / seconds, compressed.sizeRatio(), acc.snrDb(),
                acc.klDivergence(), acc.top1Agreement(), staticDiff, alpha,
                spec == null ? Double.NaN : spec.acceptedPerPass(), spec == null ? Double.NaN : spec.tokensPerPass(),
                costRatio, spec == null ? Double.NaN : SpeculativeResult.expectedSpeedup(alpha, spec.gamma(), costRatio),
                tokens, tokenizer == null ? null : tokenizer.decode(tokens), recovery);
    }

    private static String describe(RecoveryOptions o, Recovery.Report r) {
        return String.format(java.util.Locale.ROOT, "%s (%s loss, lr %s), %d trained parameters, %d tokens in %.1f s (%.0f tokens/s), "
                        + "loss %.4f -> %.4f%s", o.label(), o.loss().label(), o.learningRate(), r.trainableParameters(), r.tokens(),
                r.seconds(), r.tokensPerSecond(), r.firstLoss(), r.lastLoss(), r.cached() ? "; weights from the cache" : "");
    }

    /**
     * A prompt for a real model without a tokenizer: BOS and {@code length − 1} tokens sampled from the
     * model itself (temperature 1, seeded apart from the calibration and evaluation sets), i.e. text it
     * would write, rather than uniformly random ids.
     */
    static int[] sampledPrompt(ModelWeights fp32, int length, long seed) {
        if (length == 1) {
            return new int[] {SampledSequences.BOS};
        }
        return SampledSequences.sample(new Transformer(fp32), 1, Math.min(length, fp32.config().maxSeqLen()),
                PROMPT_SEED + seed)[0];
    }

    /** First seed of prompts sampled for real models. */
    static final long PROMPT_SEED = 5_000_000;

    /** Non-finite logits (finite weights that overflow float32) are an error naming the model, never a result. */
    private static void checkFinite(Transformer model, int[] sequence, String name) throws ModelFileException {
        float[][] logits = model.forwardAll(sequence, model.newCache(sequence.length));
        for (int p = 0; p < logits.length; p++) {
            for (float v : logits[p]) {
                if (!Float.isFinite(v)) {
                    throw new ModelFileException(name + ": the logits are not finite (" + v + ") at position " + p
                            + "; the weights overflow float32 arithmetic");
                }
            }
        }
    }

    /** Largest |logit| difference between the static run and the dynamic model on the same tokens. */
    private static double maxDiffAgainstDynamic(Transformer model, int[] prompt, Generation g) {
        int[] sequence = concat(prompt, Arrays.copyOf(g.tokens(), g.tokens().length - 1));
        float[][] dynamic = model.forwardAll(sequence, model.newCache(sequence.length));
        double max = 0;
        for (int i = 0; i < g.logits().length; i++) {
            float[] d = dynamic[prompt.length - 1 + i];
            for (int v = 0; v < d.length; v++) {
                max = Math.max(max, Math.abs(d[v] - g.logits()[i][v]));
            }
        }
        return max;
    }

    static int[] concat(int[] a, int[] b) {
        int[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
