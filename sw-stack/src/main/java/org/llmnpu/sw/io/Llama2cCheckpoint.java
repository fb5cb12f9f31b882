package org.llmnpu.sw.io;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
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
 *
 * <p>Checks, each failing with a one-line {@link ModelFileException} naming the file: the path is a
 * readable regular file; the header is within bounds and its size arithmetic overflow-checked
 * ({@link Llama2cHeader}); the file size equals the header's; the weights fit in the memory the JVM
 * may still use (a 7B-class checkpoint on a default heap is refused with the sizes and the
 * {@code -Xmx} to pass); every weight is finite (a NaN or infinity names the tensor, row and file).
 * Files are memory-mapped one tensor at a time, so checkpoints beyond 2 GiB load without a
 * 2 GiB buffer and nothing is read before the checks pass.
 */
public final class Llama2cCheckpoint {

    private static final int HEADER_BYTES = Llama2cHeader.BYTES;

    /** Where the checkpoints shipped with the toolkit live on the class path. */
    public static final String BUNDLED_DIR = "/org/llmnpu/sw/models/";

    private Llama2cCheckpoint() {
    }

    /** Reads a checkpoint, refusing it when its weights do not fit in the heap the JVM may still use. */
    public static ModelWeights read(Path file) throws IOException {
        Runtime rt = Runtime.getRuntime();
        long available = rt.maxMemory() - (rt.totalMemory() - rt.freeMemory());
        return read(file, available);
    }

    /** Reads a checkpoint whose weights must fit in {@code memoryBudgetBytes} of heap. */
    public static ModelWeights read(Path file, long memoryBudgetBytes) throws IOException {
        ModelFileException.checkRegularFile(file, "a llama2.c .bin checkpoint");
        long size = Files.size(file);
        String name = file.toString();
        if (size < HEADER_BYTES) {
            throw new ModelFileException(name + ": truncated checkpoint, expected at least " + HEADER_BYTES
                    + " bytes of header, found " + size);
        }
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            ByteBuffer header = ByteBuffer.allocate(HEADER_BYTES);
            readFully(ch, header);
            header.flip();
            Llama2cHeader h = Llama2cHeader.parse(header, name);
            checkSizeAndMemory(h, size, name, memoryBudgetBytes);
            return decode(h, (offset, count) -> ch.map(FileChannel.MapMode.READ_ONLY, offset, 4L * count)
                    .order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer(), name);
        }
    }

    /** Names of the checkpoints shipped with the toolkit ({@code --model NAME}). */
    public static final java.util.List<String> BUNDLED = java.util.List.of("stories260K");

    /**
     * Reads a checkpoint shipped with the toolkit (on the class path under {@link #BUNDLED_DIR}, with its
     * licence file {@code LICENSE-NAME} beside it).
     */
    public static ModelWeights readBundled(String modelName) throws IOException {
        String resource = BUNDLED_DIR + modelName + ".bin";
        byte[] bytes;
        try (var in = Llama2cCheckpoint.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new ModelFileException(resource + ": no bundled model named '" + modelName + "' (bundled: " + BUNDLED + ")");
            }
            bytes = in.readAllBytes();
        }
        String name = "bundled " + modelName + ".bin";
        if (bytes.length < HEADER_BYTES) {
            throw new ModelFileException(name + ": truncated checkpoint");
        }
        ByteBuffer all = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        Llama2cHeader h = Llama2cHeader.parse(all, name);
        checkSizeAndMemory(h, bytes.length, name, Long.MAX_VALUE);
        return decode(h, (offset, count) -> all.duplicate().order(ByteOrder.LITTLE_ENDIAN)
                .position((int) offset).limit((int) (offset + 4L * count)).slice()
                .order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer(), name);
    }

    private static void checkSizeAndMemory(Llama2cHeader h, long size, String name, long budget) throws ModelFileException {
        ModelConfig c = h.config();
        long expected = h.fileBytes();
        if (size != expected) {
            throw new ModelFileException(name + ": checkpoint size mismatch for dim=" + c.dim() + " hidden=" + c.hiddenDim()
                    + " layers=" + c.layers() + " heads=" + c.heads() + " kvHeads=" + c.kvHeads() + " vocab=" + c.vocabSize()
                    + " seqLen=" + c.maxSeqLen() + ": expected " + expected + " bytes, found " + size);
        }
        long need = 4 * h.weightFloats();
        if (need > budget) {
            throw new ModelFileException(String.format(java.util.Locale.ROOT,
                    "%s: the weights need %.2f GB of Java heap but only %.2f GB is available; the toolkit computes in FP32 "
                            + "arrays, so run with a larger heap (e.g. JAVA_OPTS=-Xmx%dg) or use a smaller checkpoint",
                    name, need / 1e9, Math.max(0, budget) / 1e9, (long) Math.ceil(need * 1.25 / (1L << 30)) + 1));
        }
    }

    /** A view of {@code count} floats starting {@code byteOffset} bytes into the checkpoint. */
    @FunctionalInterface
    private interface TensorSource {
        FloatBuffer floats(long byteOffset, int count) throws IOException;
    }

    /** Walks the tensors in file order, copying each into FP32 arrays and checking it is finite. */
    private static final class Cursor {
        private final TensorSource source;
        private final String file;
        private long offset = HEADER_BYTES;

        Cursor(TensorSource source, String file) {
            this.source = source;
            this.file = file;
        }

        float[][] matrix(String tensor, int rows, int cols) throws IOException {
            float[][] m = new float[rows][cols];
            // map at most ~256 MiB at a time so no view exceeds 2 GiB
            int rowsPerChunk = Math.max(1, (1 << 26) / cols);
            for (int r0 = 0; r0 < rows; r0 += rowsPerChunk) {
                int n = Math.min(rowsPerChunk, rows - r0);
                FloatBuffer f = source.floats(offset, n * cols);
                for (int r = r0; r < r0 + n; r++) {
                    f.get(m[r]);
                    checkFinite(m[r], tensor, r);
                }
                offset += 4L * n * cols;
            }
            return m;
        }

        float[][][] matrices(String tensor, int n, int rows, int cols) throws IOException {
            float[][][] m = new float[n][][];
            for (int i = 0; i < n; i++) {
                m[i] = matrix("layers[" + i + "]." + tensor, rows, cols);
            }
            return m;
        }

        void skipFloats(long count) {
            offset += 4 * count;
        }

        private void checkFinite(float[] row, String tensor, int r) throws ModelFileException {
            for (int i = 0; i < row.length; i++) {
                if (!Float.isFinite(row[i])) {
                    throw new ModelFileException(file + ": tensor " + tensor + " holds a non-finite weight (" + row[i]
                            + ") at row " + r + ", column " + i + "; the checkpoint is corrupt or not a llama2.c float32 export");
                }
            }
        }
    }

    private static ModelWeights decode(Llama2cHeader h, TensorSource source, String name) throws IOException {
        ModelConfig c = h.config();
        int dim = c.dim();
        int hidden = c.hiddenDim();
        int layers = c.layers();
        int vocab = c.vocabSize();
        Cursor f = new Cursor(source, name);
        float[][] embedding = f.matrix("token_embedding", vocab, dim);
        float[][] attNorm = f.matrix("rms_att", layers, dim);
        float[][][] wq = f.matrices("wq", layers, dim, dim);
        float[][][] wk = f.matrices("wk", layers, c.kvDim(), dim);
        float[][][] wv = f.matrices("wv", layers, c.kvDim(), dim);
        float[][][] wo = f.matrices("wo", layers, dim, dim);
        float[][] ffnNorm = f.matrix("rms_ffn", layers, dim);
        float[][][] w1 = f.matrices("w1", layers, hidden, dim);
        float[][][] w2 = f.matrices("w2", layers, dim, hidden);
        float[][][] w3 = f.matrices("w3", layers, hidden, dim);
        float[] finalNorm = f.matrix("rms_final", 1, dim)[0];
        f.skipFloats(h.ropeFloats());
        float[][] head = h.sharedClassifier() ? embedding : f.matrix("classifier", vocab, dim);
        LayerWeights[] lw = new LayerWeights[layers];
        for (int l = 0; l < layers; l++) {
            lw[l] = new LayerWeights(attNorm[l], wq[l], wk[l], wv[l], wo[l], ffnNorm[l], w1[l], w2[l], w3[l]);
        }
        return new ModelWeights(c, embedding, lw, finalNorm, head);
    }

    /** File size of a checkpoint with this configuration. */
    public static long expectedBytes(ModelConfig c, boolean sharedClassifier) {
        return new Llama2cHeader(c, sharedClassifier).fileBytes();
    }

    /** Writes {@code w}; the classifier is stored separately unless it is the embedding array itself. */
    public static void write(ModelWeights w, Path file) throws IOException {
        ModelConfig c = w.config();
        boolean shared = w.lmHead() == w.tokenEmbedding();
        long bytes = expectedBytes(c, shared);
        ByteBuffer b = ByteBuffer.allocate((int) bytes).order(ByteOrder.LITTLE_ENDIAN);
        new Llama2cHeader(c, shared).write(b);
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

    private static void readFully(FileChannel ch, ByteBuffer b) throws IOException {
        while (b.hasRemaining()) {
            if (ch.read(b) < 0) {
                throw new java.io.EOFException("unexpected end of file");
            }
        }
    }
}
