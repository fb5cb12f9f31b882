package org.llmnpu.sw.io;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.llmnpu.sw.model.LayerWeights;
import org.llmnpu.sw.model.ModelConfig;
import org.llmnpu.sw.model.ModelWeights;

/**
 * Reads and writes the llama2.c {@code .bin} checkpoint (version 0, "legacy" export), little-endian:
 * a header of seven int32 — dim, hidden_dim, n_layers, n_heads, n_kv_heads, vocab_size (negative when
 * the classifier is not shared with the embedding), seq_len — then float32 arrays in this order:
 * token embedding [vocab][dim]; rms_att [layers][dim]; wq [layers][dim][dim]; wk and wv
 * [layers][kvDim][dim]; wo [layers][dim][dim]; rms_ffn [layers][dim]; w1 [layers][hidden][dim];
 * w2 [layers][dim][hidden]; w3 [layers][hidden][dim]; rms_final [dim]; two legacy RoPE tables
 * [seq_len][headDim/2] (ignored; RoPE is recomputed); and the classifier [vocab][dim] if not shared.
 * A file of the wrong size is rejected with an error naming it and the expected and found sizes.
 */
public final class Llama2cCheckpoint {

    private static final int HEADER_BYTES = 7 * 4;

    private Llama2cCheckpoint() {
    }

    public static ModelWeights read(Path file) throws IOException {
        long size = Files.size(file);
        if (size < HEADER_BYTES) {
            throw new IOException(file + ": truncated checkpoint, expected at least " + HEADER_BYTES
                    + " bytes of header, found " + size);
        }
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            ByteBuffer header = ByteBuffer.allocate(HEADER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
            readFully(ch, header);
            header.flip();
            int dim = header.getInt();
            int hidden = header.getInt();
            int layers = header.getInt();
            int heads = header.getInt();
            int kvHeads = header.getInt();
            int vocabField = header.getInt();
            int seqLen = header.getInt();
            boolean shared = vocabField > 0;
            int vocab = Math.abs(vocabField);
            ModelConfig c;
            try {
                c = new ModelConfig(dim, hidden, layers, heads, kvHeads, vocab, seqLen);
            } catch (IllegalArgumentException e) {
                throw new IOException(file + ": invalid checkpoint header: " + e.getMessage(), e);
            }
            long expected = expectedBytes(c, shared);
            if (size != expected) {
                throw new IOException(file + ": checkpoint size mismatch for dim=" + dim + " hidden=" + hidden + " layers="
                        + layers + " heads=" + heads + " kvHeads=" + kvHeads + " vocab=" + vocab + " seqLen=" + seqLen
                        + ": expected " + expected + " bytes, found " + size);
            }
            ByteBuffer body = ByteBuffer.allocate((int) (size - HEADER_BYTES)).order(ByteOrder.LITTLE_ENDIAN);
            readFully(ch, body);
            body.flip();
            var floats = body.asFloatBuffer();
            float[][] embedding = matrix(floats, vocab, dim);
            float[][] attNorm = matrix(floats, layers, dim);
            float[][][] wq = matrices(floats, layers, dim, dim);
            float[][][] wk = matrices(floats, layers, c.kvDim(), dim);
            float[][][] wv = matrices(floats, layers, c.kvDim(), dim);
            float[][][] wo = matrices(floats, layers, dim, dim);
            float[][] ffnNorm = matrix(floats, layers, dim);
            float[][][] w1 = matrices(floats, layers, hidden, dim);
            float[][][] w2 = matrices(floats, layers, dim, hidden);
            float[][][] w3 = matrices(floats, layers, hidden, dim);
            float[] finalNorm = matrix(floats, 1, dim)[0];
            floats.position(floats.position() + 2 * seqLen * (c.headDim() / 2));
            float[][] head = shared ? embedding : matrix(floats, vocab, dim);
            LayerWeights[] lw = new LayerWeights[layers];
            for (int l = 0; l < layers; l++) {
                lw[l] = new LayerWeights(attNorm[l], wq[l], wk[l], wv[l], wo[l], ffnNorm[l], w1[l], w2[l], w3[l]);
            }
            return new ModelWeights(c, embedding, lw, finalNorm, head);
        }
    }

    /** File size of a checkpoint with this configuration. */
    public static long expectedBytes(ModelConfig c, boolean sharedClassifier) {
        long dim = c.dim();
        long l = c.layers();
        long floats = c.vocabSize() * dim
                + l * dim * 2
                + l * dim * dim * 2
                + l * (long) c.kvDim() * dim * 2
                + l * (long) c.hiddenDim() * dim * 3
                + dim
                + 2L * c.maxSeqLen() * (c.headDim() / 2)
                + (sharedClassifier ? 0 : (long) c.vocabSize() * dim);
        return HEADER_BYTES + 4 * floats;
    }

    /** Writes {@code w}; the classifier is stored separately unless it is the embedding array itself. */
    public static void write(ModelWeights w, Path file) throws IOException {
        ModelConfig c = w.config();
        boolean shared = w.lmHead() == w.tokenEmbedding();
        long bytes = expectedBytes(c, shared);
        ByteBuffer b = ByteBuffer.allocate((int) bytes).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(c.dim()).putInt(c.hiddenDim()).putInt(c.layers()).putInt(c.heads()).putInt(c.kvHeads())
                .putInt(shared ? c.vocabSize() : -c.vocabSize()).putInt(c.maxSeqLen());
        put(b, w.tokenEmbedding());
        for (LayerWeights l : w.layers()) {
            put(b, l.attnNorm());
        }
        for (int m = 0; m < 4; m++) {
            for (LayerWeights l : w.layers()) {
                put(b, l.projections()[m]);
            }
        }
        for (LayerWeights l : w.layers()) {
            put(b, l.ffnNorm());
        }
        for (LayerWeights l : w.layers()) {
            put(b, l.w1());
        }
        for (LayerWeights l : w.layers()) {
            put(b, l.w2());
        }
        for (LayerWeights l : w.layers()) {
            put(b, l.w3());
        }
        put(b, w.finalNorm());
        int half = c.headDim() / 2;
        for (int table = 0; table < 2; table++) {
            for (int pos = 0; pos < c.maxSeqLen(); pos++) {
                for (int i = 0; i < half; i++) {
                    double angle = pos / Math.pow(c.ropeTheta(), 2.0 * i / c.headDim());
                    b.putFloat((float) (table == 0 ? Math.cos(angle) : Math.sin(angle)));
                }
            }
        }
        if (!shared) {
            put(b, w.lmHead());
        }
        Files.write(file, b.array());
    }

    private static void put(ByteBuffer b, float[][] m) {
        for (float[] row : m) {
            put(b, row);
        }
    }

    private static void put(ByteBuffer b, float[] v) {
        for (float x : v) {
            b.putFloat(x);
        }
    }

    private static float[][] matrix(java.nio.FloatBuffer f, int rows, int cols) {
        float[][] m = new float[rows][cols];
        for (float[] row : m) {
            f.get(row);
        }
        return m;
    }

    private static float[][][] matrices(java.nio.FloatBuffer f, int n, int rows, int cols) {
        float[][][] m = new float[n][][];
        for (int i = 0; i < n; i++) {
            m[i] = matrix(f, rows, cols);
        }
        return m;
    }

    private static void readFully(FileChannel ch, ByteBuffer b) throws IOException {
        while (b.hasRemaining()) {
            if (ch.read(b) < 0) {
                throw new IOException("unexpected end of file");
            }
        }
    }
}
