package org.llmnpu.sw.io;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Optional;
import org.llmnpu.sw.model.ModelConfig;
import org.llmnpu.sw.model.ModelWeights;
import org.llmnpu.sw.model.SyntheticWeights;

/**
 * Where a command's model comes from: a llama2.c checkpoint file ({@code --weights}), the real trained
 * {@code stories260K} shipped on the class path (MIT licence, {@code LICENSE-stories260K} beside it), or
 * a synthetic model ({@code tiny}, {@code medium}) generated from a seed for sizes the real one does not
 * cover.
 */
public final class ModelCatalog {

    /** The default model of the {@code sw} commands: the real one. */
    public static final String DEFAULT = "stories260K";

    private ModelCatalog() {
    }

    public static ModelWeights load(String name, Optional<Path> weights, long seed) throws IOException {
        if (weights.isPresent()) {
            return Llama2cCheckpoint.read(weights.get());
        }
        ModelConfig c = ModelConfig.named(name);
        return ModelConfig.isSynthetic(name) ? SyntheticWeights.generate(c, seed) : Llama2cCheckpoint.readBundled(name);
    }

    public static ModelWeights load(String name, long seed) throws IOException {
        return load(name, Optional.empty(), seed);
    }
}
