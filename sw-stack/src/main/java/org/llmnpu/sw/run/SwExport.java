package org.llmnpu.sw.run;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.llmnpu.sw.io.Llama2cCheckpoint;
import org.llmnpu.sw.io.ModelCatalog;
import org.llmnpu.sw.io.Llama2cTokenizer;
import org.llmnpu.sw.io.hf.HfCheckpoint;
import org.llmnpu.sw.io.hf.HfTokenizer;
import org.llmnpu.sw.io.hf.TokenizerJson;
import org.llmnpu.sw.io.hf.SafetensorsDtype;
import org.llmnpu.sw.model.ModelWeights;

/**
 * What {@code npu sw export} does: writes a model in another format. {@code hf}: a Hugging Face directory
 * ({@link HfCheckpoint#write}: config.json, model.safetensors in F32 with q/k in rotate-half order, and
 * tokenizer.json when a tokenizer is given — stories260K's is not shipped); {@code llama2c}: a llama2.c {@code .bin}.
 * Both are written atomically; the output reads back to bit-identical FP32 weights.
 */
public final class SwExport {

    /** The formats {@link #export} writes. */
    public static final List<String> FORMATS = List.of("hf", "llama2c");

    private SwExport() {
    }

    /** Exports the model named {@code model} (or read from {@code weights}) to {@code out} in {@code format}. */
    public static ModelWeights export(String model, Optional<Path> weights, String format, Path out) throws IOException {
        return export(model, weights, format, out, Optional.empty());
    }

    /**
     * As {@link #export(String, Optional, String, Path)}; with {@code hf}, a {@code tokenizer} (llama2.c
     * {@code tokenizer.bin}, converted by {@link TokenizerJson}, or a {@code tokenizer.json}, copied) is written as
     * the directory's tokenizer.json.
     */
    public static ModelWeights export(String model, Optional<Path> weights, String format, Path out, Optional<Path> tokenizer)
            throws IOException {
        if (!FORMATS.contains(format)) {
            throw new IllegalArgumentException("format must be one of " + String.join(", ", FORMATS) + ", got '" + format + "'");
        }
        if (tokenizer.isPresent() && !format.equals("hf")) {
            throw new IllegalArgumentException("a tokenizer is written only with format hf, not " + format);
        }
        ModelWeights w = ModelCatalog.load(model, weights, 1);
        String tokenizerJson = null;
        if (tokenizer.isPresent()) {
            Path t = tokenizer.get();
            if (t.getFileName().toString().endsWith(".json")) {
                HfTokenizer.read(t, w.config().vocabSize(), 1).close();
                tokenizerJson = Files.readString(t);
            } else {
                tokenizerJson = TokenizerJson.fromLlama2c(Llama2cTokenizer.read(t, w.config().vocabSize()));
            }
        }
        if (format.equals("hf")) {
            if (Files.exists(out) && !Files.isDirectory(out)) {
                throw new IllegalArgumentException("output " + out + " exists and is not a directory (hf writes a directory)");
            }
            HfCheckpoint.write(w, out, SafetensorsDtype.F32, tokenizerJson);
        } else {
            if (Files.isDirectory(out)) {
                throw new IllegalArgumentException("output " + out + " is a directory (llama2c writes one .bin file)");
            }
            Path abs = out.toAbsolutePath();
            Files.createDirectories(abs.getParent());
            Path tmp = Files.createTempFile(abs.getParent(), "." + abs.getFileName(), ".tmp");
            try {
                Llama2cCheckpoint.write(w, tmp);
                Files.move(tmp, abs, java.nio.file.StandardCopyOption.ATOMIC_MOVE, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            } finally {
                Files.deleteIfExists(tmp);
            }
        }
        return w;
    }
}
