package org.llmnpu.verilator;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import org.llmnpu.hdl.sim.SimulationException;
import org.llmnpu.hdl.tools.ExternalTool;

/**
 * Builds models with the {@code verilator}, {@code g++} and {@code make} on the PATH and
 * keeps each built executable in the cache under its {@link BuildInputs#key}; an unchanged
 * design is not rebuilt.
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

  /** The executable of the model, from the cache or freshly built. */
  static Path build(BuildInputs in, Path cacheDir) {
    Path dir = cacheDir.resolve(in.key(version()));
    Path exe = dir.resolve("sim");
    if (Files.isExecutable(exe)) {
      return exe;
    }
    try {
      Files.createDirectories(cacheDir);
      Path tmp = Files.createTempDirectory(cacheDir, ".build-");
      try {
        Sources.write(in, tmp);
        ExternalTool.Result r = ExternalTool.run(in.command(), tmp, Duration.ofMinutes(20));
        if (!r.ok() || !Files.isExecutable(tmp.resolve("obj/sim"))) {
          throw new SimulationException("Verilator could not build " + in.top() + ":\n"
              + CompileErrors.explain(r.output(), in.files()));
        }
        Path done = Files.createTempDirectory(cacheDir, ".done-");
        Files.move(tmp.resolve("obj/sim"), done.resolve("sim"));
        Sources.write(in, done);
        try {
          Files.move(done, dir, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException raced) {
          Sources.deleteTree(done);
        }
      } finally {
        Sources.deleteTree(tmp);
      }
      return exe;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot build model of " + in.top() + " in " + cacheDir, e);
    }
  }

}
