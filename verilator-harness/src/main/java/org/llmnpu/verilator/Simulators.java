package org.llmnpu.verilator;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.llmnpu.hdl.emit.VerilogDesign;
import org.llmnpu.hdl.sim.SimulationException;
import org.llmnpu.hdl.sim.Simulator;

/** Starts simulations of emitted designs with a local Verilator or in a container. */
public final class Simulators {
  /** How long run directories are kept. */
  static final java.time.Duration KEEP_RUNS = java.time.Duration.ofDays(1);

  private Simulators() {
  }

  /** A simulation with options from the environment ({@link SimOptions#fromEnvironment()}). */
  public static Simulator start(VerilogDesign design) {
    return start(design, SimOptions.fromEnvironment());
  }

  public static Simulator start(VerilogDesign design, SimOptions options) {
    SimOptions.Mode mode = resolve(options);
    BuildInputs in = BuildInputs.of(design, options.waves());
    Path runDir = runDir(options, design.top());
    Path waves = options.waves() == SimOptions.Waves.NONE || options.waves() == SimOptions.Waves.VCD_OFF ? null
        : runDir.resolve(design.top() + (options.waves() == SimOptions.Waves.VCD ? ".vcd" : ".fst"));
    ModelConnection model;
    if (mode == SimOptions.Mode.LOCAL) {
      Path exe = LocalToolchain.build(in, options.cacheDir());
      model = new LocalModel(exe, runDir, waves);
    } else {
      model = ContainerModel.start(in, options, runDir, waves);
    }
    return new ProtocolSimulator(design.top(), design.ports(), model, runDir, waves, options.timeout());
  }

  /** The mode {@code AUTO} stands for here: local if Verilator is installed, else container. */
  public static SimOptions.Mode resolve(SimOptions options) {
    return switch (options.mode()) {
      case LOCAL -> {
        if (!LocalToolchain.available()) {
          throw new SimulationException("local simulation needs verilator, g++ and make on the PATH: "
              + "run scripts/setup-tools.sh as root (or apt-get install verilator g++ make)");
        }
        yield SimOptions.Mode.LOCAL;
      }
      case CONTAINER -> SimOptions.Mode.CONTAINER;
      case AUTO -> {
        if (LocalToolchain.available()) {
          yield SimOptions.Mode.LOCAL;
        }
        if (ContainerModel.available(options.image())) {
          yield SimOptions.Mode.CONTAINER;
        }
        throw new SimulationException("no way to run Verilator: install it locally with scripts/setup-tools.sh "
            + "(as root), or start Docker and build the image " + options.image()
            + " with scripts/build-verilator-image.sh");
      }
    };
  }

  /**
   * A fresh directory for one run's replay file, waveforms and standard error. Run
   * directories older than {@link #KEEP_RUNS} are removed so the work directory does not grow
   * without bound.
   */
  private static Path runDir(SimOptions options, String top) {
    try {
      Files.createDirectories(options.workDir());
      pruneOldRuns(options.workDir());
      return Files.createTempDirectory(options.workDir(), top + "-").toAbsolutePath();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create a run directory in " + options.workDir(), e);
    }
  }

  private static void pruneOldRuns(Path workDir) throws IOException {
    long cutoff = System.currentTimeMillis() - KEEP_RUNS.toMillis();
    try (var dirs = Files.list(workDir)) {
      for (Path d : dirs.toList()) {
        if (Files.isDirectory(d) && Files.getLastModifiedTime(d).toMillis() < cutoff) {
          Sources.deleteTree(d);
        }
      }
    }
  }
}
