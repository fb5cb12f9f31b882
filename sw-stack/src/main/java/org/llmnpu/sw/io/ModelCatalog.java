package org.llmnpu.sw.io;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.llmnpu.sw.io.hf.HfCheckpoint;
import org.llmnpu.sw.io.hf.HfConfig;
import org.llmnpu.sw.io.hf.HfTokenizer;
import org.llmnpu.sw.model.ModelConfig;
import org.llmnpu.sw.model.ModelWeights;
import org.llmnpu.sw.model.SyntheticWeights;

/**
 * Where a command's model comes from: a llama2.c checkpoint file ({@code --weights}), the real trained
 * {@code stories260K} shipped on the class path (MIT licence, {@code LICENSE-stories260K} beside it), a
 * synthetic model ({@code tiny}, {@code medium}) generated from a seed for sizes the real one does not
 * cover, or a Hugging Face model directory ({@code --model DIR} or {@code --weights DIR}: config.json,
 * safetensors, optionally tokenizer.json; {@link HfCheckpoint}).
 */
public final class ModelCatalog {

    /** The default model of the {@code sw} commands: the real one. */
    public static final String DEFAULT = "stories260K";

    private ModelCatalog() {
    }

    public static ModelWeights load(String name, Optional<Path> weights, long seed) throws IOException {
        if (weights.isPresent()) {
            Path p = weights.get();
            return Files.isDirectory(p) ? HfCheckpoint.read(p) : Llama2cCheckpoint.read(p);
        }
        if (!ModelConfig.NAMES.contains(name)) {
            return HfCheckpoint.read(huggingFaceDirectory(name));
        }
        ModelConfig c = ModelConfig.named(name);
        return ModelConfig.isSynthetic(name) ? SyntheticWeights.generate(c, seed) : Llama2cCheckpoint.readBundled(name);
    }

    public static ModelWeights load(String name, long seed) throws IOException {
        return load(name, Optional.empty(), seed);
    }

    /**
     * The shape of {@code --model NAME|DIR} without reading weights: a named model's or a Hugging Face directory's
     * config.json. An unknown name that is no such directory is an {@link IllegalArgumentException} naming
     * {@code --model} and the allowed values; a bad config.json a {@link ModelFileException}.
     */
    public static ModelConfig config(String name) throws IOException {
        if (ModelConfig.NAMES.contains(name)) {
            return ModelConfig.named(name);
        }
        return HfConfig.read(huggingFaceDirectory(name)).config();
    }

    /** True when {@code name} names a Hugging Face model directory rather than a built-in model. */
    public static boolean isDirectory(String name) {
        return !ModelConfig.NAMES.contains(name) && Files.isDirectory(Path.of(name));
    }

    /**
     * The tokenizer a run uses for text: {@code explicit} (a llama2.c tokenizer.bin, or a tokenizer.json by its
     * name), else the {@code tokenizer.json} of a Hugging Face model directory {@code name} or {@code weights},
     * else none.
     */
    public static Optional<TextTokenizer> tokenizer(String name, Optional<Path> weights, Optional<Path> explicit,
                                                    ModelConfig config) throws IOException {
        if (explicit.isPresent()) {
            Path t = explicit.get();
            return Optional.of(t.getFileName().toString().endsWith(".json")
                    ? HfTokenizer.read(t, config.vocabSize(), 1) : Llama2cTokenizer.read(t, config.vocabSize()));
        }
        Optional<Path> dir = weights.filter(Files::isDirectory).or(() -> isDirectory(name) ? Optional.of(Path.of(name)) : Optional.empty());
        if (dir.isPresent() && Files.isRegularFile(dir.get().resolve(HfCheckpoint.TOKENIZER))) {
            return Optional.of(HfTokenizer.read(dir.get().resolve(HfCheckpoint.TOKENIZER), config.vocabSize(),
                    HfConfig.read(dir.get()).bosTokenId()));
        }
        return Optional.empty();
    }

    private static Path huggingFaceDirectory(String name) {
        Path dir = Path.of(name);
        if (!Files.isDirectory(dir)) {
            throw new IllegalArgumentException("model must be one of " + String.join(", ", ModelConfig.NAMES)
                    + " or a Hugging Face model directory (config.json + model.safetensors), got '" + name + "'");
        }
        return dir;
    }
}
