package org.llmnpu.sw.lower;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.llmnpu.sw.model.LayerWeights;
import org.llmnpu.sw.model.ModelWeights;

/**
 * Calibrated {@link StaticScales} cached by content: the key is the SHA-256 of the model's shape and every weight
 * (the FP32 model the calibration set is sampled from and run through), the calibration set's parameters and a format
 * version; the value is one text file of the scales in {@link Double#toHexString} (exact), written to a temporary file
 * and renamed into place, so a concurrent run never reads half an entry. Calibrating stories260K takes seconds; a
 * cache hit, the time to hash 0.26 M weights. Also kept in memory for the process.
 *
 * <p>The directory is the system property {@code llmnpu.scales.cache}, else the environment variable
 * {@code LLMNPU_SCALES_CACHE}, else {@code scales} under the toolkit's cache root ({@code llmnpu.cache} / {@code LLMNPU_CACHE} / {@code ~/.cache/llmnpu}). An unreadable or unwritable cache only costs the
 * calibration: the scales are computed and used.
 */
final class StaticScalesCache {
  private static final String VERSION = "static-scales v3";
  private static final Map<String, StaticScales> MEMORY = new ConcurrentHashMap<>();

  private StaticScalesCache() {
  }

  /** The scales of {@code w} for the calibration set {@code setKey}: from the cache, else {@code calibrate}'s. */
  static StaticScales get(ModelWeights w, String setKey, Supplier<StaticScales> calibrate) {
    String key = key(w, setKey);
    StaticScales hit = MEMORY.get(key);
    if (hit != null) {
      return hit;
    }
    Path file = directory().resolve(key + ".txt");
    StaticScales s = read(file, w.config().layers());
    if (s == null) {
      s = calibrate.get();
      write(file, s);
    }
    MEMORY.put(key, s);
    return s;
  }

  private static Path directory() {
    String prop = System.getProperty("llmnpu.scales.cache");
    String env = System.getenv("LLMNPU_SCALES_CACHE");
    if (prop != null && !prop.isBlank()) {
      return Path.of(prop);
    }
    if (env != null && !env.isBlank()) {
      return Path.of(env);
    }
    // the toolkit's cache root, as every other cache: llmnpu.cache / LLMNPU_CACHE / ~/.cache/llmnpu
    String root = System.getProperty("llmnpu.cache");
    if (root == null || root.isBlank()) {
      root = System.getenv("LLMNPU_CACHE");
    }
    return (root == null || root.isBlank() ? Path.of(System.getProperty("user.home"), ".cache", "llmnpu")
        : Path.of(root)).resolve("scales");
  }

  private static String key(ModelWeights w, String setKey) {
    try {
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      sha.update((VERSION + "\n" + setKey + "\n" + w.config() + "\n").getBytes(StandardCharsets.UTF_8));
      update(sha, w.tokenEmbedding());
      for (LayerWeights lw : w.layers()) {
        update(sha, new float[][] {lw.attnNorm(), lw.ffnNorm()});
        for (float[][] m : List.of(lw.wq(), lw.wk(), lw.wv(), lw.wo(), lw.w1(), lw.w2(), lw.w3())) {
          update(sha, m);
        }
      }
      update(sha, new float[][] {w.finalNorm()});
      update(sha, w.lmHead());
      return HexFormat.of().formatHex(sha.digest());
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 missing from this JVM", e);
    }
  }

  private static void update(MessageDigest sha, float[][] rows) {
    for (float[] row : rows) {
      ByteBuffer b = ByteBuffer.allocate(4 + 4 * row.length).order(ByteOrder.LITTLE_ENDIAN);
      b.putInt(row.length);
      for (float v : row) {
        b.putFloat(v);
      }
      sha.update(b.array());
    }
  }

  private static StaticScales read(Path file, int layers) {
    try {
      List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
      return StaticScales.parse(lines, layers);
    } catch (IOException | RuntimeException e) {
      return null;  // absent or damaged: calibrate again
    }
  }

  private static void write(Path file, StaticScales s) {
    try {
      Files.createDirectories(file.getParent());
      Path tmp = Files.createTempFile(file.getParent(), "scales", ".tmp");
      Files.write(tmp, s.lines(), StandardCharsets.UTF_8);
      try {
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
      }
    } catch (IOException e) {
      // an unwritable cache costs the next run a calibration, nothing else
    }
  }
}
