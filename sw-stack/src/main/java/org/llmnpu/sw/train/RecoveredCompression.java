package org.llmnpu.sw.train;

import java.io.IOException;
import java.nio.file.Files;
import java.util.Arrays;
import java.util.Optional;
import org.llmnpu.numerics.sparse.NmPattern;
import org.llmnpu.numerics.sparse.NmPruner;
import org.llmnpu.sw.compress.CompressedModel;
import org.llmnpu.sw.compress.CompressionSpec;
import org.llmnpu.sw.compress.ModelCompressor;
import org.llmnpu.sw.compress.PruneMethod;
import org.llmnpu.sw.compress.QuantMethod;
import org.llmnpu.sw.io.TextTokenizer;
import org.llmnpu.sw.model.LayerWeights;
import org.llmnpu.sw.model.ModelWeights;

/**
 * A compression with recovery: prune the FP32 model to the spec's N:M pattern with its method (magnitude, Wanda,
 * SparseGPT; calibrated methods on {@code calibration}), fine-tune the pruned model ({@link Recovery}; or take the
 * result from the {@link RecoveryCache}), check that every projection still satisfies the pattern, then apply the
 * spec's quantization to the recovered weights (re-pruning by magnitude, which keeps the recovered N:M weights as
 * they are, so the byte accounting and the quantizers see the sparse format). The result goes through quantization,
 * lowering and the RTL like any compressed model.
 */
public final class RecoveredCompression {

    /** The compressed recovered model and how it was trained. */
    public record Result(CompressedModel model, Recovery.Report report) {
    }

    private RecoveredCompression() {
    }

    public static Result compress(ModelWeights fp32, CompressionSpec spec, int[][] calibration, RecoveryOptions o,
                                  Optional<TextTokenizer> tokenizer, Optional<RecoveryCache> cache) throws IOException {
        NmPattern pattern = spec.sparsity().orElseThrow(() -> new IllegalArgumentException(
                "--recover " + o.method().label() + " needs --sparsity (2:4 or 4:8): recovery fine-tunes a pruned model"));
        if (o.isNone()) {
            throw new IllegalArgumentException("--recover none trains nothing");
        }
        CompressionSpec pruneOnly = new CompressionSpec(Optional.empty(), Optional.empty(), spec.sparsity(), QuantMethod.MINMAX,
                spec.pruneMethod());
        ModelWeights pruned = ModelCompressor.compress(fp32, pruneOnly, calibration).effectiveWeights();
        String source = o.trainText().isPresent()
                ? "text sha256 " + RecoveryCache.sha256(Files.readAllBytes(o.trainText().get()))
                : TrainingSet.sampledSource(TrainingSet.sampledCount(o), o.sequenceLength(), o.seed());
        String key = RecoveryCache.key(fp32, "pruning " + pruneOnly + (pruneOnly.needsCalibration()
                ? " calibration " + Arrays.deepHashCode(calibration) : "") + "; recovery " + o.key() + "; data " + source);
        Optional<Recovery.Result> hit = cache.flatMap(c -> c.load(key, pruned));
        Recovery.Result recovered;
        if (hit.isPresent()) {
            recovered = hit.get();
        } else {
            TrainingSet data = o.trainText().isPresent()
                    ? TrainingSet.fromText(fp32, tokenizer.orElseThrow(() -> new IllegalArgumentException(
                            "--train-text needs a tokenizer: --tokenizer or a model directory with tokenizer.json")),
                            o.trainText().get(), o.sequenceLength())
                    : TrainingSet.sampled(fp32, TrainingSet.sampledCount(o), o.sequenceLength(), o.seed());
            recovered = Recovery.train(pruned, data, o);
            if (cache.isPresent()) {
                cache.get().store(key, recovered);
            }
        }
        for (LayerWeights l : recovered.weights().layers()) {
            for (float[][] m : l.projections()) {
                if (!NmPruner.satisfies(m, pattern)) {
                    throw new IllegalStateException("the recovered weights break the " + pattern + " pattern");
                }
            }
        }
        CompressionSpec quantize = new CompressionSpec(spec.quant(), spec.mx(), spec.sparsity(), spec.quantMethod(), PruneMethod.MAGNITUDE);
        CompressedModel q = ModelCompressor.compress(recovered.weights(), quantize, calibration);
        return new Result(new CompressedModel(spec, q.effectiveWeights(), q.projectionBytes(), q.fp32ProjectionBytes()), recovered.report());
    }
}
