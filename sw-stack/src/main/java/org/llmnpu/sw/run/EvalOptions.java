package org.llmnpu.sw.run;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.llmnpu.sw.compress.CompressionSpec;
import org.llmnpu.sw.train.RecoveryOptions;

/**
 * What {@code npu sw eval} measures: a model, the compressions to compare with its FP32 form, a
 * calibration set of {@code calibrationSequences} × {@code calibrationLength} tokens and a held-out set
 * of {@code evalSequences} × {@code evalLength} tokens, both sampled from the FP32 model with disjoint
 * seeds offset by {@code seed}. With a {@code recovery} other than none, every compression that prunes N:M is also
 * measured after recovery fine-tuning ({@link org.llmnpu.sw.train.RecoveredCompression}); {@code tokenizer} reads
 * the recovery's {@code --train-text}.
 */
public record EvalOptions(String model, Optional<Path> weights, List<CompressionSpec> compressions, int calibrationSequences,
                          int calibrationLength, int evalSequences, int evalLength, long seed, RecoveryOptions recovery,
                          Optional<Path> tokenizer) {

    /** Without recovery. */
    public EvalOptions(String model, Optional<Path> weights, List<CompressionSpec> compressions, int calibrationSequences,
                       int calibrationLength, int evalSequences, int evalLength, long seed) {
        this(model, weights, compressions, calibrationSequences, calibrationLength, evalSequences, evalLength, seed,
                RecoveryOptions.none(), Optional.empty());
    }

    /** Default sizes: 8 × 128 calibration tokens, 16 × 129 held-out tokens (2,048 predicted positions). */
    public static final int CALIBRATION_SEQUENCES = 8;
    public static final int CALIBRATION_LENGTH = 128;
    public static final int EVAL_SEQUENCES = 16;
    public static final int EVAL_LENGTH = 129;

    public EvalOptions {
        if (compressions.isEmpty()) {
            throw new IllegalArgumentException("give at least one compression to evaluate");
        }
        if (calibrationSequences < 1 || calibrationLength < 2) {
            throw new IllegalArgumentException("calibration needs >= 1 sequence of >= 2 tokens, got " + calibrationSequences
                    + " x " + calibrationLength);
        }
        if (evalSequences < 1 || evalLength < 2) {
            throw new IllegalArgumentException("evaluation needs >= 1 sequence of >= 2 tokens, got " + evalSequences + " x " + evalLength);
        }
        if (!recovery.isNone() && compressions.stream().noneMatch(c -> c.sparsity().isPresent())) {
            throw new IllegalArgumentException("--recover " + recovery.method().label() + " needs a compression with N:M pruning "
                    + "(2:4 or 4:8) to recover");
        }
    }
}
