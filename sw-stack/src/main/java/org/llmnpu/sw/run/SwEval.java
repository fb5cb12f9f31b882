package org.llmnpu.sw.run;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.llmnpu.sw.compress.CompressedModel;
import org.llmnpu.sw.compress.CompressionSpec;
import org.llmnpu.sw.compress.ModelCompressor;
import org.llmnpu.sw.eval.HeldOutEvaluation;
import org.llmnpu.sw.eval.SampledSequences;
import org.llmnpu.sw.io.ModelCatalog;
import org.llmnpu.sw.model.ModelWeights;
import org.llmnpu.sw.model.Transformer;
import org.llmnpu.sw.train.RecoveredCompression;
import org.llmnpu.sw.train.RecoveryCache;

/**
 * Executes {@code npu sw eval}: samples a calibration set and a disjoint held-out set from the FP32
 * model, compresses the model every requested way (calibrated methods see only the calibration set)
 * and measures each on the held-out set ({@link HeldOutEvaluation}). With recovery, each N:M compression is
 * measured a second time after recovery fine-tuning (training data disjoint from both sets; recovered weights
 * cached by content in {@link RecoveryCache#fromEnvironment()}).
 */
public final class SwEval {

    private SwEval() {
    }

    public static List<EvalRow> run(EvalOptions o) throws IOException {
        ModelWeights fp32 = ModelCatalog.load(o.model(), o.weights(), o.seed());
        java.util.Optional<org.llmnpu.sw.io.TextTokenizer> tokenizer = o.recovery().trainText().isPresent()
                ? ModelCatalog.tokenizer(o.model(), o.weights(), o.tokenizer(), fp32.config()) : java.util.Optional.empty();
        return run(fp32, o, tokenizer, java.util.Optional.of(RecoveryCache.fromEnvironment()));
    }

    public static List<EvalRow> run(ModelWeights fp32, EvalOptions o) {
        try {
            return run(fp32, o, java.util.Optional.empty(), java.util.Optional.of(RecoveryCache.fromEnvironment()));
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    public static List<EvalRow> run(ModelWeights fp32, EvalOptions o, java.util.Optional<org.llmnpu.sw.io.TextTokenizer> tokenizer,
                                    java.util.Optional<RecoveryCache> cache) throws IOException {
        Transformer reference = new Transformer(fp32);
        int max = fp32.config().maxSeqLen();
        if (o.calibrationLength() > max || o.evalLength() > max) {
            throw new IllegalArgumentException("sequences of " + Math.max(o.calibrationLength(), o.evalLength())
                    + " tokens exceed the model's maximum sequence length " + max);
        }
        int[][] calibration = SampledSequences.sample(reference, o.calibrationSequences(), o.calibrationLength(),
                SampledSequences.CALIBRATION_SEED + o.seed() * 10_000);
        int[][] heldOut = SampledSequences.sample(reference, o.evalSequences(), o.evalLength(),
                SampledSequences.EVALUATION_SEED + o.seed() * 10_000);
        if (!SampledSequences.disjoint(calibration, heldOut)) {
            throw new IllegalStateException("a held-out sequence equals a calibration sequence; choose another seed");
        }
        HeldOutEvaluation.Reference ref = HeldOutEvaluation.Reference.of(reference, heldOut);
        List<EvalRow> rows = new ArrayList<>();
        for (CompressionSpec spec : o.compressions()) {
            CompressedModel m = ModelCompressor.compress(fp32, spec, calibration);
            HeldOutEvaluation e = HeldOutEvaluation.evaluate(ref, new Transformer(m.effectiveWeights()), spec.toString());
            rows.add(new EvalRow(spec.toString(), m.sizeRatio(), e.perplexity(), e.fp32Perplexity(), e.klDivergence(),
                    e.top1Agreement(), e.snrDb(), e.positions()));
            if (!o.recovery().isNone() && spec.sparsity().isPresent()) {
                RecoveredCompression.Result r = RecoveredCompression.compress(fp32, spec, calibration, o.recovery(), tokenizer, cache);
                HeldOutEvaluation after = HeldOutEvaluation.evaluate(ref, new Transformer(r.model().effectiveWeights()),
                        spec + " recovered");
                rows.add(new EvalRow(spec.toString(), r.model().sizeRatio(), after.perplexity(), after.fp32Perplexity(),
                        after.klDivergence(), after.top1Agreement(), after.snrDb(), after.positions(), o.recovery().label(),
                        r.report().seconds(), r.report().tokensPerSecond()));
            }
        }
        return rows;
    }

    /** A Markdown table of the rows; with recovery rows, a recovery column and the training time. */
    public static String table(List<EvalRow> rows) {
        boolean recovery = rows.stream().anyMatch(r -> !r.recovery().equals("none"));
        StringBuilder s = new StringBuilder();
        s.append(recovery ? "| weights | recovery | training |" : "| weights |")
                .append(" bytes vs FP32 | perplexity | KL vs FP32 (nats) | top-1 agreement | logits SNR (dB) |\n");
        s.append(recovery ? "|---|---|---|" : "|---|").append("---|---|---|---|---|\n");
        for (EvalRow r : rows) {
            String training = Double.isNaN(r.trainSeconds()) ? "" : String.format(java.util.Locale.ROOT, "%.1f s, %.0f tokens/s",
                    r.trainSeconds(), r.trainTokensPerSecond());
            String label = recovery ? r.compression() + " | " + r.recovery() + " | " + training : r.compression();
            s.append(String.format(java.util.Locale.ROOT, "| %s | %.1f %% | %.3f | %.4f | %.1f %% | %s |%n", label,
                    100 * r.bytesVsFp32(), r.perplexity(), r.klDivergence(), 100 * r.top1Agreement(),
                    Double.isInfinite(r.snrDb()) ? "∞ (identical)" : String.format(java.util.Locale.ROOT, "%.2f", r.snrDb())));
        }
        return s.toString();
    }
}
