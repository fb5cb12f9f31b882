package org.llmnpu.verilator;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The build cache of model executables: one directory per build key holding {@code sim}
 * (and the sources it was built from) and a {@code MANIFEST} with the executable's size and
 * SHA-256, written last.
 *
 * <p>An entry is used only when its manifest matches the executable on disk; a truncated,
 * emptied or deleted executable, or an entry without a manifest (an interrupted or older
 * build), is rebuilt and replaced. Builds of one key are serialized across threads and
 * processes by a lock file under {@code .locks/}; a build directory ({@code .build-<key>-*})
 * whose key lock is free belongs to a process that died while building and is removed.
 * The lock is released by the operating system when a process ends, so a killed build never
 * blocks later ones.
 */
final class ModelCache {
  static final String EXECUTABLE = "sim";
  static final String MANIFEST = "MANIFEST";

  /** Fills a staging directory with {@code sim} (executable) and anything else to keep. */
  interface Builder {
    void build(Path staging) throws IOException;
  }

  private static final Map<String, ReentrantLock> JVM_LOCKS = new ConcurrentHashMap<>();
  /** Entries verified in this JVM, by path, with the size and modification time then seen. */
  private static final Map<Path, String> VERIFIED = new ConcurrentHashMap<>();

  private ModelCache() {
  }

  /** The executable for {@code key}, verified, or built (again) with {@code builder}. */
  static Path obtain(Path cacheDir, String key, Builder builder) {
    Path entry = cacheDir.resolve(key);
    if (valid(entry)) {
      return entry.resolve(EXECUTABLE);
    }
    ReentrantLock jvmLock = JVM_LOCKS.computeIfAbsent(key, k -> new ReentrantLock());
    jvmLock.lock();
    try {
      Files.createDirectories(cacheDir.resolve(".locks"));
      try (FileChannel ch = FileChannel.open(lockFile(cacheDir, key), StandardOpenOption.CREATE,
          StandardOpenOption.WRITE); FileLock ignored = ch.lock()) {
        if (valid(entry)) {
          return entry.resolve(EXECUTABLE); // built by another process meanwhile
        }
        removeAbandoned(cacheDir);
        Path staging = Files.createTempDirectory(cacheDir, ".build-" + key + "-");
        try {
          builder.build(staging);
          Path exe = staging.resolve(EXECUTABLE);
          if (!Files.isRegularFile(exe) || Files.size(exe) == 0) {
            throw new IOException("the build left no executable " + exe);
          }
          writeManifest(staging);
          if (Files.exists(entry)) {
            Path trash = Files.createTempDirectory(cacheDir, ".trash-" + key + "-");
            Files.move(entry, trash.resolve("entry"), StandardCopyOption.ATOMIC_MOVE);
            Sources.deleteTree(trash);
          }
          Files.move(staging, entry, StandardCopyOption.ATOMIC_MOVE);
        } finally {
          Sources.deleteTree(staging);
        }
        VERIFIED.remove(entry);
        if (!valid(entry)) {
          throw new IOException("the cache entry " + entry + " does not match its manifest right after the build");
        }
        return entry.resolve(EXECUTABLE);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot build or cache the model " + key + " in " + cacheDir + ": "
          + e.getMessage(), e);
    } finally {
      jvmLock.unlock();
    }
  }

  /** True when the entry has an executable that matches its manifest. */
  static boolean valid(Path entry) {
    Path exe = entry.resolve(EXECUTABLE);
    Path manifest = entry.resolve(MANIFEST);
    try {
      if (!Files.isRegularFile(manifest) || !Files.isRegularFile(exe) || !Files.isExecutable(exe)) {
        return false;
      }
      String seen = Files.size(exe) + ":" + Files.getLastModifiedTime(exe).toMillis();
      if (seen.equals(VERIFIED.get(entry))) {
        return true;
      }
      boolean ok = Files.readString(manifest, StandardCharsets.UTF_8).equals(manifestOf(exe));
      if (ok) {
        VERIFIED.put(entry, seen);
      }
      return ok;
    } catch (IOException e) {
      return false;
    }
  }

  private static void writeManifest(Path staging) throws IOException {
    Path exe = staging.resolve(EXECUTABLE);
    exe.toFile().setExecutable(true, false);
    Path tmp = staging.resolve(MANIFEST + ".tmp");
    Files.writeString(tmp, manifestOf(exe), StandardCharsets.UTF_8);
    Files.move(tmp, staging.resolve(MANIFEST), StandardCopyOption.ATOMIC_MOVE);
  }

  private static String manifestOf(Path exe) throws IOException {
    MessageDigest sha;
    try {
      sha = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
    long size = 0;
    byte[] buf = new byte[1 << 16];
    try (InputStream in = Files.newInputStream(exe)) {
      for (int n; (n = in.read(buf)) > 0; ) {
        sha.update(buf, 0, n);
        size += n;
      }
    }
    return "size " + size + "\nsha256 " + HexFormat.of().formatHex(sha.digest()) + "\n";
  }

  private static Path lockFile(Path cacheDir, String key) {
    return cacheDir.resolve(".locks").resolve(key + ".lock");
  }

  /**
   * Deletes build and trash directories whose key is not being built by anyone: their key
   * lock can be taken (its holder died), and no thread of this JVM holds it.
   */
  static void removeAbandoned(Path cacheDir) throws IOException {
    try (var dirs = Files.list(cacheDir)) {
      for (Path d : dirs.toList()) {
        String name = d.getFileName().toString();
        String prefix = name.startsWith(".build-") ? ".build-" : name.startsWith(".trash-") ? ".trash-"
            : name.startsWith(".done-") ? ".done-" : null;
        if (prefix == null || !Files.isDirectory(d)) {
          continue;
        }
        String rest = name.substring(prefix.length());
        int dash = rest.lastIndexOf('-');
        if (prefix.equals(".done-") || dash <= 0) {
          if (olderThanADay(d)) {
            Sources.deleteTree(d); // left by an earlier version of the cache
          }
          continue;
        }
        String key = rest.substring(0, dash);
        ReentrantLock mine = JVM_LOCKS.get(key);
        if (mine != null && mine.isHeldByCurrentThread()) {
          Sources.deleteTree(d); // our own key: we hold its lock, so nobody else is building it
          continue;
        }
        if (mine != null && mine.isLocked()) {
          continue;
        }
        try (FileChannel ch = FileChannel.open(lockFile(cacheDir, key), StandardOpenOption.CREATE,
            StandardOpenOption.WRITE); FileLock l = ch.tryLock()) {
          if (l != null) {
            Sources.deleteTree(d);
          }
        } catch (OverlappingFileLockException busyHere) {
          // another thread of this JVM is building that key
        }
      }
    }
  }

  private static boolean olderThanADay(Path d) throws IOException {
    return Files.getLastModifiedTime(d).toMillis() < System.currentTimeMillis() - 86_400_000L;
  }
}
