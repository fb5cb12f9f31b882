package org.llmnpu.verilator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.llmnpu.hdl.ToolsForTests;
import org.llmnpu.hdl.emit.Verilog;
import org.llmnpu.hdl.examples.Counter;
import org.llmnpu.hdl.sim.Simulator;
import org.llmnpu.hdl.tools.ExternalTool;

/**
 * The build cache does not trust what is on disk: damaged entries are rebuilt and replaced,
 * builds abandoned by a killed process are removed, concurrent users stay correct.
 */
class ModelCacheTest {
  @TempDir
  Path cache;

  /** A builder that "builds" a small shell script and counts its calls. */
  private static ModelCache.Builder script(AtomicInteger builds, String text) {
    return staging -> {
      builds.incrementAndGet();
      Path exe = staging.resolve(ModelCache.EXECUTABLE);
      Files.writeString(exe, "#!/bin/sh\necho " + text + "\n");
      exe.toFile().setExecutable(true);
    };
  }

  @Test
  void validEntryIsReusedWithoutBuilding() {
    AtomicInteger builds = new AtomicInteger();
    Path a = ModelCache.obtain(cache, "k-1", script(builds, "one"));
    Path b = ModelCache.obtain(cache, "k-1", script(builds, "two"));
    assertEquals(a, b);
    assertEquals(1, builds.get());
    assertTrue(Files.isRegularFile(a.resolveSibling(ModelCache.MANIFEST)));
  }

  @Test
  void truncatedEmptiedOrDeletedExecutableIsRebuiltAndReplaced() throws IOException {
    AtomicInteger builds = new AtomicInteger();
    Path exe = ModelCache.obtain(cache, "k-2", script(builds, "hello"));
    long size = Files.size(exe);
    try (RandomAccessFile f = new RandomAccessFile(exe.toFile(), "rw")) {
      f.setLength(size / 2); // truncated
    }
    assertEquals(exe, ModelCache.obtain(cache, "k-2", script(builds, "hello")));
    assertEquals(2, builds.get());
    assertEquals(size, Files.size(exe));

    Files.write(exe, new byte[0]); // emptied
    ModelCache.obtain(cache, "k-2", script(builds, "hello"));
    assertEquals(3, builds.get());
    assertEquals(size, Files.size(exe));

    Files.delete(exe); // deleted, the rest of the entry kept
    assertEquals(exe, ModelCache.obtain(cache, "k-2", script(builds, "hello")));
    assertEquals(4, builds.get());
    assertTrue(Files.isExecutable(exe));
    assertEquals(exe, ModelCache.obtain(cache, "k-2", script(builds, "hello")));
    assertEquals(4, builds.get(), "the rebuilt entry is used from then on");
  }

  @Test
  void entryWithoutManifestIsNotTrusted() throws IOException {
    Path entry = Files.createDirectories(cache.resolve("k-3"));
    Files.writeString(entry.resolve(ModelCache.EXECUTABLE), "#!/bin/sh\n");
    entry.resolve(ModelCache.EXECUTABLE).toFile().setExecutable(true);
    AtomicInteger builds = new AtomicInteger();
    ModelCache.obtain(cache, "k-3", script(builds, "x"));
    assertEquals(1, builds.get());
  }

  @Test
  void concurrentUsersOfADamagedEntryBuildOnceAndAllGetAValidExecutable() throws Exception {
    AtomicInteger builds = new AtomicInteger();
    Path exe = ModelCache.obtain(cache, "k-4", script(builds, "ok"));
    Files.write(exe, new byte[0]);
    ExecutorService pool = Executors.newFixedThreadPool(6);
    List<Future<Path>> got = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      got.add(pool.submit(() -> ModelCache.obtain(cache, "k-4", script(builds, "ok"))));
    }
    for (Future<Path> f : got) {
      assertEquals(exe, f.get(30, TimeUnit.SECONDS));
    }
    pool.shutdown();
    assertEquals(2, builds.get());
    assertTrue(ModelCache.valid(exe.getParent()));
  }

  /** Entry point of a child JVM that starts a build and never finishes it. */
  public static void main(String[] args) throws Exception {
    ModelCache.obtain(Path.of(args[0]), args[1], staging -> {
      Files.writeString(staging.resolve("started"), "yes");
      try {
        Thread.sleep(600_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    });
  }

  @Test
  void buildOfAKilledProcessIsCleanedUpAndDoesNotBlock() throws Exception {
    Process child = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-cp", System.getProperty("java.class.path"), ModelCacheTest.class.getName(), cache.toString(), "k-5")
        .redirectErrorStream(true).start();
    Path started = null;
    for (int i = 0; i < 300 && started == null; i++) {
      try (var s = Files.list(cache)) {
        started = s.filter(p -> p.getFileName().toString().startsWith(".build-k-5-"))
            .map(p -> p.resolve("started")).filter(Files::exists).findFirst().orElse(null);
      } catch (IOException notYet) {
        // the cache directory is being created
      }
      Thread.sleep(100);
    }
    assertTrue(started != null, "the child began its build");
    child.destroyForcibly().waitFor(); // like kill -9 during a build
    AtomicInteger builds = new AtomicInteger();
    Path exe = ModelCache.obtain(cache, "k-5", script(builds, "after"));
    assertEquals(1, builds.get());
    assertTrue(Files.isExecutable(exe));
    try (var s = Files.list(cache)) {
      assertFalse(s.anyMatch(p -> p.getFileName().toString().startsWith(".build-")), "abandoned build removed");
    }
  }

  @Test
  void truncatedVerilatorModelIsRebuiltAndRuns() throws IOException {
    SimOptions o = SimModes.local();
    o = new SimOptions(o.mode(), o.waves(), o.timeout(), cache, o.image(), cache.resolve("runs"));
    var design = Verilog.emit(new Counter(new Counter.Config(10)));
    Path exe = LocalToolchain.build(BuildInputs.of(design, SimOptions.Waves.NONE), cache);
    try (RandomAccessFile f = new RandomAccessFile(exe.toFile(), "rw")) {
      f.setLength(4096);
    }
    try (Simulator s = Simulators.start(design, o)) {
      s.reset(1);
      s.poke("enable", 1);
      s.step(5);
      assertEquals(5, s.peekLong("value"));
    }
  }

  /**
   * Two different models built into one fresh cache: the second takes the Verilator runtime
   * (verilated.o, verilated_threads.o) from ccache instead of compiling it again.
   */
  @Test
  void secondModelOfACacheReusesTheCompiledRuntime() throws IOException {
    SimModes.local();
    ToolsForTests.require("ccache");
    LocalToolchain.build(BuildInputs.of(Verilog.emit(new Counter(new Counter.Config(11))), SimOptions.Waves.NONE), cache);
    LocalToolchain.build(BuildInputs.of(Verilog.emit(new Counter(new Counter.Config(12))), SimOptions.Waves.NONE), cache);
    Map<String, String> env = LocalToolchain.compilerCache(cache);
    assertTrue(Files.isDirectory(Path.of(env.get("CCACHE_DIR"))), "ccache store inside the model cache");
    ExternalTool.Result stats = ExternalTool.run(List.of("ccache", "--print-stats"), cache, Duration.ofSeconds(30), env);
    assertTrue(stats.ok(), stats.output());
    long hits = stats.output().lines().filter(l -> l.startsWith("direct_cache_hit\t") || l.startsWith("preprocessed_cache_hit\t"))
        .mapToLong(l -> Long.parseLong(l.substring(l.indexOf('\t') + 1).strip())).sum();
    assertTrue(hits >= 2, "the runtime's two objects should come from ccache:\n" + stats.output());
  }
}
