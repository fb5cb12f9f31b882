package org.llmnpu.sw.run;

import java.nio.file.Path;
import java.util.Optional;
import org.llmnpu.sw.compress.CompressionSpec;
import org.llmnpu.sw.runtime.StaticShape;
import org.llmnpu.sw.sample.SamplerConfig;
import org.llmnpu.sw.spec.DraftSpec;
import org.llmnpu.sw.train.RecoveryOptions;

/**
 * What {@code npu sw run} executes: a model (a named config, a llama2.c checkpoint or a Hugging Face directory), a
 * synthetic prompt of {@code promptLen} tokens, {@code maxNew} generated tokens, the weight compression
 * of the run's model, and optionally the static-shape runtime or speculative decoding. With a
 * tokenizer ({@code tokenizer}, or the model directory's tokenizer.json) and a {@code promptText}, the prompt is the encoded text (BOS first)
 * instead of synthetic tokens, and the report carries the decoded output. A {@code recovery} other than none fine-tunes
 * the N:M-pruned model before it runs ({@link org.llmnpu.sw.train.RecoveredCompression}).
 */
public record RunOptions(String model, Optional<Path> weights, Optional<Path> tokenizer, Optional<String> promptText,
                         int promptLen, int maxNew, CompressionSpec compression,
                         Optional<StaticShape> staticShape, Optional<DraftSpec> speculative, SamplerConfig sampler,
                         RecoveryOptions recovery) {

    /** Without recovery fine-tuning. */
    public RunOptions(String model, Optional<Path> weights, Optional<Path> tokenizer, Optional<String> promptText,
                      int promptLen, int maxNew, CompressionSpec compression,
                      Optional<StaticShape> staticShape, Optional<DraftSpec> speculative, SamplerConfig sampler) {
        this(model, weights, tokenizer, promptText, promptLen, maxNew, compression, staticShape, speculative, sampler,
                RecoveryOptions.none());
    }

    public RunOptions {
        if (promptLen < 1) {
            throw new IllegalArgumentException("prompt-len must be >= 1, got " + promptLen);
        }
        if (maxNew < 1) {
            throw new IllegalArgumentException("max-new must be >= 1, got " + maxNew);
        }
        if (!recovery.isNone() && compression.sparsity().isEmpty()) {
            throw new IllegalArgumentException("--recover " + recovery.method().label() + " needs --sparsity (2:4 or 4:8): "
                    + "recovery fine-tunes a pruned model");
        }
        if (staticShape.isPresent() && speculative.isPresent()) {
            throw new IllegalArgumentException("static and speculative cannot be combined: speculative verification "
                    + "runs on the dynamic-shape verifier");
        }
        if (staticShape.isPresent() && promptText.isEmpty() && promptLen > staticShape.get().slp()) {
            throw new IllegalArgumentException("prompt-len " + promptLen + " exceeds static slp = " + staticShape.get().slp());
        }
        if (staticShape.isPresent() && maxNew - 1 > staticShape.get().slr()) {
            throw new IllegalArgumentException("max-new " + maxNew + " needs " + (maxNew - 1)
                    + " decode steps but static slr = " + staticShape.get().slr());
        }
    }
}
