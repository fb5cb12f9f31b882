package org.llmnpu.cosim;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import org.llmnpu.hdl.sim.Simulator;
import org.llmnpu.verilator.SimOptions;

/**
 * {@code --vcd FILE} of the cosim commands: the run is simulated with VCD waves, and the file
 * is kept at {@code FILE}, for {@code npu report ppa <block> --activity-vcd FILE} (power from
 * the switching activity of this run). One capture per run: the caller makes it, hands it to the
 * run, and asks it to {@link #keep()} the waves once the simulator has closed.
 */
public final class WaveCapture {
  private final Path target;
  private Path written;

  private WaveCapture(Path target) {
    this.target = target;
  }

  /** No waves: the run simulates without tracing. */
  public static WaveCapture none() {
    return new WaveCapture(null);
  }

  /**
   * Waves kept at {@code vcd} (null: no waves).
   *
   * @throws IllegalArgumentException naming {@code --vcd} when {@code vcd} is blank or a directory
   */
  public static WaveCapture to(Path vcd) {
    if (vcd != null && (vcd.toString().isBlank() || Files.isDirectory(vcd))) {
      throw new IllegalArgumentException("--vcd " + vcd + ": name a file to write (not a directory)");
    }
    return new WaveCapture(vcd);
  }

  /** Simulation options from the environment, with VCD waves when a file was requested. */
  public SimOptions options() {
    SimOptions base = SimOptions.fromEnvironment();
    return target == null ? base : base.withWaves(SimOptions.Waves.VCD);
  }

  /** Notes the run's wave file; call inside the simulator's try block. */
  public void note(Simulator sim) {
    if (target != null) {
      written = sim.waveFile();
    }
  }

  /** Notes the run's wave file when the simulator is wrapped (e.g. {@code NpuRtl}). */
  public void noteFile(Path file) {
    if (target != null) {
      written = file;
    }
  }

  /** Copies the waves to the requested file (after the simulator closed); returns it, or null. */
  public Path keep() {
    if (target == null || written == null) {
      return null;
    }
    try {
      Path abs = target.toAbsolutePath();
      Files.createDirectories(abs.getParent());
      Path tmp = abs.resolveSibling("." + abs.getFileName() + ".tmp-" + ProcessHandle.current().pid());
      Files.copy(written, tmp, StandardCopyOption.REPLACE_EXISTING);
      Files.move(tmp, abs, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
      return target;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the waves to " + target + ": " + e.getMessage(), e);
    } finally {
      written = null;
    }
  }
}
