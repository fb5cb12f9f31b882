package org.llmnpu.reports.ppa;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A second store of a key that is already in the cache keeps the first entry and succeeds: test forks that run
 * the same synthesis at once both store it, and the second one's rename onto the existing non-empty directory fails
 * with ENOTEMPTY (which the JDK reports as a plain FileSystemException). No temporary directory is left behind.
 */
class ContentCachePutTest {
  @TempDir
  Path root;

  @Test
  void storingAKeyTwiceKeepsTheFirstEntry() throws Exception {
    ContentCache cache = new ContentCache(root);
    String key = ContentCache.key(List.of("sta", "netlist"));
    cache.put(key, Map.of("sta.out", "first"));
    cache.put(key, Map.of("sta.out", "second"));
    assertEquals(Map.of("sta.out", "first"), cache.get(key).orElseThrow());
    try (var files = Files.list(root)) {
      assertEquals(List.of(key), files.map(p -> p.getFileName().toString()).toList(), "no temporary directory left");
    }
  }
}
