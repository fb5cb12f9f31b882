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

/**
 * Executes {@code npu sw eval}: samples a calibration set and a disjoint held-out set from the FP32
 * model, compresses the model every requested way (calibrated methods see only the calibration set)
 * and measures each on the held-out set ({@link HeldOutEvaluation}).
 */
public final class SwEval {

    private SwEval() {
    }

    public static List<EvalRow> run(EvalOptions o) throws IOException {
        ModelWeights fp32 = ModelCatalog.load(o.model(), o.weights(), o.seed());
        return run(fp32, o);
    }

    public static List<EvalRow> run(ModelWeights fp32, EvalOptions o) {
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
        }
        return rows;
    }

    /** A Markdown table of the rows. */
    public static String table(List<EvalRow> rows) {
        StringBuilder s = new StringBuilder();
        s.append("| weights | bytes vs FP32 | perplexity | KL vs FP32 (nats) | top-1 agreement | logits SNR (dB) |\n");
        s.append("|---|---|---|---|---|---|\n");
        for (EvalRow r : rows) {
            s.append(String.format(java.util.Locale.ROOT, "| %s | %.1f %% | %.3f | %.4f | %.1f %% | %s |%n", r.compression(),
                    100 * r.bytesVsFp32(), r.perplexity(), r.klDivergence(), 100 * r.top1Agreement(),
                    Double.isInfinite(r.snrDb()) ? "∞ (identical)" : String.format(java.util.Locale.ROOT, "%.2f", r.snrDb())));
        }
        return s.toString();
    }
}
