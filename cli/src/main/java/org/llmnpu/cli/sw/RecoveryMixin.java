package org.llmnpu.cli.sw;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.llmnpu.sw.train.RecoveryMethod;
import org.llmnpu.sw.train.RecoveryOptions;
import org.llmnpu.sw.train.TrainingLoss;
import picocli.CommandLine.Option;

/** The recovery fine-tuning options shared by {@code sw run} and {@code sw eval}. */
final class RecoveryMixin {

    @Option(names = "--recover", defaultValue = "none", description = "Recovery fine-tuning of the N:M-pruned model: none, lora "
            + "(low-rank adapters trained through the mask, merged and re-pruned) or masked (the kept weights trained, the "
            + "mask fixed) (default ${DEFAULT-VALUE}). Recovered weights are cached by content in $LLMNPU_CACHE/recovery.")
    String recover;

    @Option(names = "--recover-steps", defaultValue = "200", description = "Optimizer steps (default ${DEFAULT-VALUE}).")
    int steps;

    @Option(names = "--recover-lr", description = "Peak learning rate of AdamW (default 1e-2 for lora, 2e-3 for masked).")
    Double learningRate;

    @Option(names = "--recover-batch", defaultValue = "4", description = "Sequences per step (default ${DEFAULT-VALUE}).")
    int batch;

    @Option(names = "--recover-seq-len", defaultValue = "64", description = "Tokens per training sequence (default ${DEFAULT-VALUE}).")
    int sequenceLength;

    @Option(names = "--recover-loss", defaultValue = "distill", description = "distill (KL to the FP32 model's logits) or ce "
            + "(cross-entropy on the next token) (default ${DEFAULT-VALUE}).")
    String loss;

    @Option(names = "--recover-weight-decay", defaultValue = "0", description = "AdamW's decoupled weight decay (default ${DEFAULT-VALUE}).")
    double weightDecay;

    @Option(names = "--lora-rank", defaultValue = "8", description = "LoRA rank r (default ${DEFAULT-VALUE}).")
    int rank;

    @Option(names = "--lora-alpha", defaultValue = "16", description = "LoRA alpha; the update is scaled by alpha/r (default ${DEFAULT-VALUE}).")
    double alpha;

    @Option(names = "--lora-targets", defaultValue = "wq,wk,wv,wo,w1,w2,w3", split = ",",
            description = "Matrices that get adapters (default ${DEFAULT-VALUE}).")
    List<String> targets;

    @Option(names = "--train-text", description = "UTF-8 text file to train on (needs a tokenizer); default: text sampled from "
            + "the FP32 model with seeds disjoint from calibration and evaluation.")
    Path trainText;

    /** The options, or a bad parameter naming the option and its allowed values. */
    RecoveryOptions options(long seed) throws BadParameter {
        RecoveryMethod method = BadParameter.parse("--recover", () -> RecoveryMethod.parse(recover));
        TrainingLoss lossKind = BadParameter.parse("--recover-loss", () -> TrainingLoss.parse(loss));
        if (trainText != null && !Files.isRegularFile(trainText)) {
            throw new BadParameter("--train-text: no such file: " + trainText);
        }
        double lr = learningRate != null ? learningRate : RecoveryOptions.defaultLearningRate(method);
        return BadParameter.parse("recovery", () -> new RecoveryOptions(method, steps, lr, batch, sequenceLength, lossKind, rank,
                alpha, targets, weightDecay, seed, Optional.ofNullable(trainText)));
    }
}
