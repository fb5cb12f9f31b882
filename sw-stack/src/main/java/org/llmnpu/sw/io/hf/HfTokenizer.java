package org.llmnpu.sw.io.hf;

import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.llmnpu.sw.io.ModelFileException;
import org.llmnpu.sw.io.TextTokenizer;

/**
 * A Hugging Face {@code tokenizer.json} (LLaMA's: BPE with byte fallback, "▁" for spaces), run by the maintained
 * Rust {@code tokenizers} library through DJL's binding (its jar carries the native library, so it works
 * offline). Encoding adds no special tokens of its own; BOS (config.json's {@code bos_token_id}) is prepended on
 * request, so the prompt is the same whatever the file's post-processor says. Decoding skips special tokens.
 * Ids beyond the model's vocabulary are an error naming the file.
 */
public final class HfTokenizer implements TextTokenizer, AutoCloseable {

    private final HuggingFaceTokenizer tokenizer;
    private final Path file;
    private final int vocabSize;
    private final int bosId;

    private HfTokenizer(HuggingFaceTokenizer tokenizer, Path file, int vocabSize, int bosId) {
        this.tokenizer = tokenizer;
        this.file = file;
        this.vocabSize = vocabSize;
        this.bosId = bosId;
    }

    /** Reads {@code file} for a model of {@code vocabSize} tokens whose BOS id is {@code bosId}. */
    public static HfTokenizer read(Path file, int vocabSize, int bosId) throws IOException {
        ModelFileException.checkRegularFile(file, "a Hugging Face tokenizer.json");
        try {
            HuggingFaceTokenizer t = HuggingFaceTokenizer.builder().optTokenizerPath(file).optAddSpecialTokens(false)
                    .optTruncation(false).optPadding(false).build();
            return new HfTokenizer(t, file, vocabSize, bosId);
        } catch (RuntimeException e) {
            throw new ModelFileException(file + ": not a usable tokenizer.json (" + e.getMessage().lines().findFirst().orElse("")
                    + ")", e);
        }
    }

    @Override
    public List<Integer> encode(String text, boolean bos) {
        long[] ids = tokenizer.encode(text, false, false).getIds();
        List<Integer> out = new ArrayList<>(ids.length + 1);
        if (bos) {
            out.add(bosId);
        }
        for (long id : ids) {
            if (id < 0 || id >= vocabSize) {
                throw new IllegalArgumentException(file + ": encodes '" + text + "' with id " + id + ", beyond the model's "
                        + vocabSize + " tokens");
            }
            out.add((int) id);
        }
        return out;
    }

    @Override
    public String decode(int[] tokens) {
        long[] ids = new long[tokens.length];
        for (int i = 0; i < tokens.length; i++) {
            ids[i] = tokens[i];
        }
        return tokenizer.decode(ids, true);
    }

    @Override
    public void close() {
        tokenizer.close();
    }
}
