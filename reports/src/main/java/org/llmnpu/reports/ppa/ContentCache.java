package org.llmnpu.reports.ppa;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
import java.util.stream.Stream;

/**
 * A directory of tool results keyed by the SHA-256 of everything that determines them (tool
 * version, script, input files). An entry is a directory of text files, published by an
 * atomic rename so concurrent runs never see half an entry.
 *
 * <p>The location is the system property {@code llmnpu.ppa.cache}, else the environment
 * variable {@code LLMNPU_PPA_CACHE}, else {@code ~/.cache/llmnpu/ppa}.
 */
public final class ContentCache {
  private final Path root;

  public ContentCache(Path root) {
    this.root = root;
  }

  /** The cache at the configured location. */
  public static ContentCache standard() {
    String prop = System.getProperty("llmnpu.ppa.cache");
    String env = System.getenv("LLMNPU_PPA_CACHE");
    Path dir = prop != null && !prop.isBlank() ? Path.of(prop)
        : env != null && !env.isBlank() ? Path.of(env)
        : Path.of(System.getProperty("user.home"), ".cache", "llmnpu", "ppa");
    return new ContentCache(dir);
  }

  public Path root() {
    return root;
  }

  /** The hex SHA-256 of the parts, each length-prefixed so that part boundaries matter. */
  public static String key(List<String> parts) {
    try {
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      for (String part : parts) {
        byte[] bytes = part.getBytes(StandardCharsets.UTF_8);
        sha.update((bytes.length + ":").getBytes(StandardCharsets.UTF_8));
        sha.update(bytes);
      }
      return HexFormat.of().formatHex(sha.digest());
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 missing from this JVM", e);
    }
  }

  /** The files of an entry, by name, or empty when the key was never stored. */
  public Optional<Map<String, String>> get(String key) {
    Path dir = root.resolve(key);
    if (!Files.isDirectory(dir)) {
      return Optional.empty();
    }
    try (Stream<Path> files = Files.list(dir)) {
      Map<String, String> out = new TreeMap<>();
      for (Path f : files.toList()) {
        out.put(f.getFileName().toString(), Files.readString(f, StandardCharsets.UTF_8));
      }
      return Optional.of(out);
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  /**
   * The entry of {@code key}, computed by {@code compute} and stored when absent. Runs that want the same absent
   * key at the same time — threads, or other JVMs on the same cache such as parallel test forks — compute it
   * once: the first holds the key's lock file ({@code .locks/KEY}, beside the entries) while it computes, and the
   * others wait for it and then read its entry.
   */
  public Map<String, String> getOrCompute(String key, Supplier<Map<String, String>> compute) {
    Optional<Map<String, String>> hit = get(key);
    if (hit.isPresent()) {
      return hit.get();
    }
    ReentrantLock inJvm = KEY_LOCKS.computeIfAbsent(key, k -> new ReentrantLock());
    inJvm.lock();
    try {
      Path locks = Files.createDirectories(root.resolve(".locks"));
      try (FileChannel ch = FileChannel.open(locks.resolve(key), StandardOpenOption.CREATE,
          StandardOpenOption.WRITE); FileLock ignored = ch.lock()) {
        hit = get(key);
        if (hit.isPresent()) {
          return hit.get();
        }
        Map<String, String> fresh = compute.get();
        put(key, fresh);
        return fresh;
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot lock the PPA cache at " + root + ": " + e.getMessage(), e);
    } finally {
      inJvm.unlock();
    }
  }

  private static final ConcurrentHashMap<String, ReentrantLock> KEY_LOCKS = new ConcurrentHashMap<>();

  /** Stores an entry; if another run stored the same key first, keeps theirs (same content). */
  public void put(String key, Map<String, String> files) {
    try {
      Files.createDirectories(root);
      Path tmp = Files.createTempDirectory(root, ".tmp-" + key.substring(0, 8));
      for (var e : files.entrySet()) {
        Files.writeString(tmp.resolve(e.getKey()), e.getValue(), StandardCharsets.UTF_8);
      }
      try {
        Files.move(tmp, root.resolve(key), StandardCopyOption.ATOMIC_MOVE);
      } catch (FileSystemException e) {
        // another fork stored the same key first: rename(2) then fails with EEXIST or ENOTEMPTY, and the JDK
        // reports ENOTEMPTY as a plain FileSystemException ("Directory not empty"), not DirectoryNotEmptyException
        deleteTree(tmp);
        if (!Files.isDirectory(root.resolve(key)) && !(e instanceof AtomicMoveNotSupportedException)) {
          throw e;
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the PPA cache at " + root + ": " + e.getMessage(), e);
    }
  }

  /** Deletes a directory tree (used for temporary work directories). */
  public static void deleteTree(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> walk = Files.walk(dir)) {
      for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
