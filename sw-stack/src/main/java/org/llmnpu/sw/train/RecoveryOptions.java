package org.llmnpu.sw.train;

import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.llmnpu.sw.model.LayerWeights;

/**
 * Settings of recovery fine-tuning. Each step averages the loss over {@code batch} sequences of
 * {@code sequenceLength} tokens (the batch's sequences run in parallel); the learning rate warms up linearly over
 * the first 10 % of the steps, then follows a cosine to zero. Training text: {@code trainText} tokenized with the
 * model's tokenizer, else sequences sampled from the FP32 model with seeds disjoint from the calibration and
 * held-out sets ({@link TrainingSet}).
 *
 * <p>Defaults (chosen on stories260K, see the sw-stack README): 200 steps of 4 × 64 tokens, distillation loss,
 * learning rate 1e-2 for LoRA and 2e-3 for masked fine-tuning, no weight decay (decay would pull the pretrained
 * weights towards zero, not towards their pretrained values), LoRA rank 8, α 16 on all seven projections.
 */
public record RecoveryOptions(RecoveryMethod method, int steps, double learningRate, int batch, int sequenceLength,
                              TrainingLoss loss, int loraRank, double loraAlpha, List<String> loraTargets, double weightDecay,
                              long seed, Optional<Path> trainText) {

    public static final int DEFAULT_STEPS = 200;
    public static final int DEFAULT_BATCH = 4;
    public static final int DEFAULT_SEQUENCE_LENGTH = 64;

    public RecoveryOptions {
        require(steps >= 1, "--recover-steps must be >= 1, got " + steps);
        require(learningRate > 0 && Double.isFinite(learningRate), "--recover-lr must be > 0, got " + learningRate);
        require(batch >= 1, "--recover-batch must be >= 1, got " + batch);
        require(sequenceLength >= 2, "--recover-seq-len must be >= 2, got " + sequenceLength);
        require(loraRank >= 1, "--lora-rank must be >= 1, got " + loraRank);
        require(loraAlpha > 0 && Double.isFinite(loraAlpha), "--lora-alpha must be > 0, got " + loraAlpha);
        require(!loraTargets.isEmpty(), "--lora-targets must name at least one of " + String.join(",", LayerWeights.PROJECTION_NAMES));
        for (String t : loraTargets) {
            require(List.of(LayerWeights.PROJECTION_NAMES).contains(t), "--lora-targets must be a comma-separated subset of "
                    + String.join(",", LayerWeights.PROJECTION_NAMES) + ", got '" + t + "'");
        }
        require(weightDecay >= 0 && Double.isFinite(weightDecay), "--recover-weight-decay must be >= 0, got " + weightDecay);
        loraTargets = List.copyOf(loraTargets);
    }

    /** The defaults for {@code method} with {@code steps} steps and {@code seed}. */
    public static RecoveryOptions defaults(RecoveryMethod method, int steps, long seed) {
        return new RecoveryOptions(method, steps, defaultLearningRate(method), DEFAULT_BATCH, DEFAULT_SEQUENCE_LENGTH,
                TrainingLoss.DISTILL, 8, 16, List.of(LayerWeights.PROJECTION_NAMES), 0, seed, Optional.empty());
    }

    public static RecoveryOptions none() {
        return defaults(RecoveryMethod.NONE, DEFAULT_STEPS, 0);
    }

    public static double defaultLearningRate(RecoveryMethod method) {
        return method == RecoveryMethod.LORA ? 1e-2 : 2e-3;
    }

    public RecoveryOptions withMethod(RecoveryMethod m) {
        return new RecoveryOptions(m, steps, learningRate, batch, sequenceLength, loss, loraRank, loraAlpha, loraTargets,
                weightDecay, seed, trainText);
    }

    public RecoveryOptions withLearningRate(double lr) {
        return new RecoveryOptions(method, steps, lr, batch, sequenceLength, loss, loraRank, loraAlpha, loraTargets,
                weightDecay, seed, trainText);
    }

    public RecoveryOptions withTrainText(Optional<Path> text) {
        return new RecoveryOptions(method, steps, learningRate, batch, sequenceLength, loss, loraRank, loraAlpha, loraTargets,
                weightDecay, seed, text);
    }

    public boolean isNone() {
        return method == RecoveryMethod.NONE;
    }

    /** Learning rate of step {@code t} (0-based): linear warm-up over 10 % of the steps, then cosine decay to zero. */
    public double learningRateAt(int t) {
        int warmup = Math.max(1, steps / 10);
        if (t < warmup) {
            return learningRate * (t + 1) / warmup;
        }
        return learningRate * 0.5 * (1 + Math.cos(Math.PI * (t - warmup) / Math.max(1, steps - warmup)));
    }

    /** Every setting that changes the trained weights, as text (part of the cache key). */
    public String key() {
        return String.format(Locale.ROOT, "%s steps=%d lr=%s batch=%d len=%d loss=%s%s wd=%s seed=%d", method.label(), steps,
                learningRate, batch, sequenceLength, loss.label(),
                method == RecoveryMethod.LORA ? " rank=" + loraRank + " alpha=" + loraAlpha + " targets=" + String.join(",", loraTargets) : "",
                weightDecay, seed);
    }

    /** Short label for tables, e.g. {@code lora r8 200 steps}. */
    public String label() {
        return method == RecoveryMethod.LORA ? "lora r" + loraRank + ", " + steps + " steps" : method.label() + ", " + steps + " steps";
    }

    private static void require(boolean ok, String message) {
        if (!ok) {
            throw new IllegalArgumentException(message);
        }
    }
}
