package org.llmnpu.sw.io;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.llmnpu.sw.model.ModelConfig;

/**
 * The seven little-endian int32 fields that open a llama2.c checkpoint, checked before anything is
 * allocated: every field within sane bounds ({@link #MAX_DIM} and the others below, far above any
 * published LLaMA-family shape), the model shape valid ({@link ModelConfig}), and the file size computed
 * with overflow-checked 64-bit arithmetic, so a crafted header can neither wrap the size check nor ask
 * for an absurd allocation.
 */
public record Llama2cHeader(ModelConfig config, boolean sharedClassifier) {

    public static final int BYTES = 7 * 4;
    public static final int MAX_DIM = 1 << 16;
    public static final int MAX_HIDDEN = 1 << 18;
    public static final int MAX_LAYERS = 1024;
    public static final int MAX_VOCAB = 1 << 21;
    public static final int MAX_SEQ_LEN = 1 << 20;

    /** Parses and validates the header; {@code source} names the file in every message. */
    public static Llama2cHeader parse(ByteBuffer header, String source) throws ModelFileException {
        ByteBuffer b = header.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        int dim = b.getInt();
        int hidden = b.getInt();
        int layers = b.getInt();
        int heads = b.getInt();
        int kvHeads = b.getInt();
        int vocabField = b.getInt();
        int seqLen = b.getInt();
        String fields = "dim=" + dim + " hidden=" + hidden + " layers=" + layers + " heads=" + heads + " kvHeads=" + kvHeads
                + " vocab=" + vocabField + " seqLen=" + seqLen;
        bound(source, fields, "dim", dim, MAX_DIM);
        bound(source, fields, "hidden", hidden, MAX_HIDDEN);
        bound(source, fields, "layers", layers, MAX_LAYERS);
        bound(source, fields, "heads", heads, dim);
        bound(source, fields, "kvHeads", kvHeads, heads);
        if (vocabField == Integer.MIN_VALUE) {
            throw new ModelFileException(source + ": invalid checkpoint header (" + fields + "): vocab out of range");
        }
        bound(source, fields, "vocab", Math.abs(vocabField), MAX_VOCAB);
        bound(source, fields, "seqLen", seqLen, MAX_SEQ_LEN);
        try {
            ModelConfig c = new ModelConfig(dim, hidden, layers, heads, kvHeads, Math.abs(vocabField), seqLen);
            return new Llama2cHeader(c, vocabField > 0);
        } catch (IllegalArgumentException e) {
            throw new ModelFileException(source + ": invalid checkpoint header (" + fields + "): " + e.getMessage(), e);
        }
    }

    private static void bound(String source, String fields, String name, int value, int max) throws ModelFileException {
        if (value < 1 || value > max) {
            throw new ModelFileException(source + ": invalid checkpoint header (" + fields + "): " + name + " must be in 1.."
                    + max + ", got " + value);
        }
    }

    /** File size of a checkpoint with this shape (overflow-checked; the bounds keep it far below 2^63). */
    public long fileBytes() {
        return BYTES + 4 * Math.addExact(weightFloats(), ropeFloats());
    }

    /** Floats of weights (embedding, blocks, final norm, classifier if separate): what must fit in memory. */
    public long weightFloats() {
        ModelConfig c = config;
        long dim = c.dim();
        long l = c.layers();
        long perLayer = Math.addExact(Math.addExact(2 * dim, Math.multiplyExact(2 * dim, dim)),
                Math.addExact(Math.multiplyExact(2L * c.kvDim(), dim), Math.multiplyExact(3L * c.hiddenDim(), dim)));
        long embeddings = Math.multiplyExact((long) c.vocabSize(), dim) * (sharedClassifier ? 1 : 2);
        return Math.addExact(Math.addExact(embeddings, Math.multiplyExact(l, perLayer)), dim);
    }

    /** The two legacy RoPE tables, stored but recomputed on load. */
    public long ropeFloats() {
        return 2L * config.maxSeqLen() * (config.headDim() / 2);
    }

    public void write(ByteBuffer b) {
        ModelConfig c = config;
        b.putInt(c.dim()).putInt(c.hiddenDim()).putInt(c.layers()).putInt(c.heads()).putInt(c.kvHeads())
                .putInt(sharedClassifier ? c.vocabSize() : -c.vocabSize()).putInt(c.maxSeqLen());
    }
}
