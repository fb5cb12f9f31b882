package org.llmnpu.sw.train;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Optional;
import org.llmnpu.sw.model.LayerWeights;
import org.llmnpu.sw.model.ModelWeights;

/**
 * Recovered weights cached by content, so a second run with the same model, pruning and recovery options does not
 * train again. The key is the SHA-256 of the FP32 weights and of a text naming the pruning, its calibration set,
 * the recovery options and the training data; the file {@code <key>.recovered} in
 * {@code $LLMNPU_CACHE/recovery} (system property {@code llmnpu.cache}, default {@code ~/.cache/llmnpu}) holds the
 * training report and the recovered projection matrices (float32; embedding, norms and head are the pruned
 * model's, which recovery does not change). Written to a temporary file and moved into place atomically.
 */
public final class RecoveryCache {

    private static final String MAGIC = "llmnpu-recovered-v1";
    private final Path directory;

    public RecoveryCache(Path directory) {
        this.directory = directory;
    }

    /** The cache under {@code llmnpu.cache} / {@code LLMNPU_CACHE} / {@code ~/.cache/llmnpu}. */
    public static RecoveryCache fromEnvironment() {
        String dir = System.getProperty("llmnpu.cache");
        if (dir == null || dir.isBlank()) {
            dir = System.getenv("LLMNPU_CACHE");
        }
        Path root = dir == null || dir.isBlank() ? Path.of(System.getProperty("user.home"), ".cache", "llmnpu") : Path.of(dir);
        return new RecoveryCache(root.resolve("recovery"));
    }

    public Path directory() {
        return directory;
    }

    /** SHA-256 (hex) of the model's weights and {@code description}. */
    public static String key(ModelWeights fp32, String description) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            update(sha, fp32.tokenEmbedding());
            for (LayerWeights l : fp32.layers()) {
                update(sha, new float[][] {l.attnNorm(), l.ffnNorm()});
                for (float[][] m : l.projections()) {
                    update(sha, m);
                }
            }
            update(sha, new float[][] {fp32.finalNorm()});
            update(sha, fp32.lmHead());
            sha.update(description.getBytes(java.nio.charset.StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(sha.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** SHA-256 (hex) of {@code bytes}. */
    public static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The cached recovery of {@code key}, its projections put into {@code pruned}; empty if absent or unreadable. */
    public Optional<Recovery.Result> load(String key, ModelWeights pruned) {
        Path file = directory.resolve(key + ".recovered");
        if (!Files.isRegularFile(file)) {
            return Optional.empty();
        }
        try (InputStream in = Files.newInputStream(file); DataInputStream data = new DataInputStream(new java.io.BufferedInputStream(in))) {
            if (!data.readUTF().equals(MAGIC)) {
                return Optional.empty();
            }
            Recovery.Report report = new Recovery.Report(RecoveryMethod.valueOf(data.readUTF()), data.readInt(), data.readLong(),
                    data.readLong(), data.readDouble(), data.readDouble(), data.readDouble(), true);
            LayerWeights[] layers = new LayerWeights[pruned.layers().length];
            for (int l = 0; l < layers.length; l++) {
                LayerWeights p = pruned.layers()[l];
                float[][][] m = new float[7][][];
                for (int k = 0; k < 7; k++) {
                    m[k] = readMatrix(data, p.projections()[k].length, p.projections()[k][0].length);
                }
                layers[l] = new LayerWeights(p.attnNorm(), m[0], m[1], m[2], m[3], p.ffnNorm(), m[4], m[5], m[6]);
            }
            return Optional.of(new Recovery.Result(pruned.withLayers(layers), report));
        } catch (IOException | IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    public void store(String key, Recovery.Result result) throws IOException {
        Files.createDirectories(directory);
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            Recovery.Report r = result.report();
            out.writeUTF(MAGIC);
            out.writeUTF(r.method().name());
            out.writeInt(r.steps());
            out.writeLong(r.trainableParameters());
            out.writeLong(r.tokens());
            out.writeDouble(r.seconds());
            out.writeDouble(r.firstLoss());
            out.writeDouble(r.lastLoss());
            for (LayerWeights l : result.weights().layers()) {
                for (float[][] m : l.projections()) {
                    out.writeInt(m.length);
                    out.writeInt(m[0].length);
                    for (float[] row : m) {
                        ByteBuffer b = ByteBuffer.allocate(4 * row.length).order(ByteOrder.LITTLE_ENDIAN);
                        b.asFloatBuffer().put(row);
                        out.write(b.array());
                    }
                }
            }
        }
        Path tmp = Files.createTempFile(directory, key, ".tmp");
        try {
            Files.write(tmp, bytes.toByteArray());
            Files.move(tmp, directory.resolve(key + ".recovered"), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    private static float[][] readMatrix(DataInputStream in, int rows, int cols) throws IOException {
        if (in.readInt() != rows || in.readInt() != cols) {
            throw new IllegalArgumentException("cached matrix shape differs from the model's");
        }
        float[][] m = new float[rows][cols];
        byte[] buf = new byte[4 * cols];
        for (float[] row : m) {
            in.readFully(buf);
            ByteBuffer.wrap(buf).order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer().get(row);
        }
        return m;
    }

    private static void update(MessageDigest sha, float[][] m) {
        for (float[] row : m) {
            ByteBuffer b = ByteBuffer.allocate(4 * row.length).order(ByteOrder.LITTLE_ENDIAN);
            b.asFloatBuffer().put(row);
            sha.update(b.array());
        }
    }
}
