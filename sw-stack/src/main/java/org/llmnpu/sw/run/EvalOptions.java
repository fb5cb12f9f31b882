package org.llmnpu.sw.run;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.llmnpu.sw.compress.CompressionSpec;

/**
 * What {@code npu sw eval} measures: a model, the compressions to compare with its FP32 form, a
 * calibration set of {@code calibrationSequences} × {@code calibrationLength} tokens and a held-out set
 * of {@code evalSequences} × {@code evalLength} tokens, both sampled from the FP32 model with disjoint
 * seeds offset by {@code seed}.
 */
public record EvalOptions(String model, Optional<Path> weights, List<CompressionSpec> compressions, int calibrationSequences,
                          int calibrationLength, int evalSequences, int evalLength, long seed) {

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
    }
}
