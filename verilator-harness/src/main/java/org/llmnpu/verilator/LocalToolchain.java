package org.llmnpu.verilator;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.llmnpu.hdl.sim.SimulationException;
import org.llmnpu.hdl.tools.ExternalTool;

/**
 * Builds models with the {@code verilator}, {@code g++} and {@code make} on the PATH and
 * keeps each built executable in the cache under its {@link BuildInputs#key}; an unchanged
 * design is not rebuilt.
 *
 * <p>When {@code ccache} is on the PATH, the C++ compiles go through it (Verilator's
 * {@code OBJCACHE}), with its store in {@code <cache>/.ccache}. Every model compiles the same
 * Verilator runtime ({@code verilated.cpp}, {@code verilated_threads.cpp}: about 7 s of CPU
 * each time); with ccache only the first build of a cache does. The compiled objects are the
 * same either way, so ccache is not part of a model's key.
 */
final class LocalToolchain {
  private static volatile String version;

  private LocalToolchain() {
  }

  static boolean available() {
    return ExternalTool.find("verilator").isPresent() && ExternalTool.find("g++").isPresent()
        && ExternalTool.find("make").isPresent();
  }

  static String version() {
    if (version == null) {
      version = ExternalTool.run(List.of("verilator", "--version"), Path.of("."), Duration.ofSeconds(30))
          .output().strip();
    }
    return version;
  }

  /** The executable of the model, from the cache (verified) or freshly built. */
  static Path build(BuildInputs in, Path cacheDir) {
    return ModelCache.obtain(cacheDir, in.key(version()), staging -> {
      Path work = staging.resolve("build");
      Files.createDirectories(work);
      Sources.write(in, work);
      ExternalTool.Result r = ExternalTool.run(in.command(), work, Duration.ofMinutes(20), compilerCache(cacheDir));
      if (!r.ok() || !Files.isExecutable(work.resolve("obj/sim"))) {
        throw new SimulationException("Verilator could not build " + in.top() + ":\n"
            + CompileErrors.explain(r.output(), in.files()));
      }
      Files.move(work.resolve("obj/sim"), staging.resolve(ModelCache.EXECUTABLE));
      Sources.deleteTree(work);
      Sources.write(in, staging);
    });
  }

  /** The environment that sends the model's C++ compiles through ccache, or none without it. */
  static Map<String, String> compilerCache(Path cacheDir) {
    if (ExternalTool.find("ccache").isEmpty()) {
      return Map.of();
    }
    Path root = cacheDir.toAbsolutePath().normalize();
    return Map.of("OBJCACHE", "ccache", "CCACHE_DIR", root.resolve(".ccache").toString(),
        "CCACHE_BASEDIR", root.toString(), "CCACHE_NOHASHDIR", "1", "CCACHE_MAXSIZE", "2G");
  }
}
