package org.llmnpu.verilator;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;

/**
 * How to run a simulation.
 *
 * @param mode        where Verilator runs: {@code AUTO} (local if installed, else container)
 * @param waves       waveform format, or {@code NONE} (models with waves are built separately), or {@code VCD_OFF}
 * @param timeout     longest wait for an answer during which the model reports no progress (it reports
 *                    every 65,536 simulated cycles; PROTOCOL.md)
 * @param cacheDir    where built models are kept
 * @param image       the container image with Verilator, g++ and make
 * @param workDir     where replay and waveform files of runs are written
 */
public record SimOptions(Mode mode, Waves waves, Duration timeout, Path cacheDir, String image, Path workDir) {
  /** Where the model is built and run. */
  public enum Mode { AUTO, LOCAL, CONTAINER }

  /**
   * Waveform file format. {@code VCD_OFF}: the model built for VCD (the very build {@code VCD} uses, from the same
   * cache entry) run with no wave file, so a run that needs no waves can share the build of runs that do; its
   * {@code waves(true)} is refused like a model built without waves.
   */
  public enum Waves { NONE, VCD, FST, VCD_OFF }

  /** The default image tag built by {@code scripts/build-verilator-image.sh}. */
  public static final String DEFAULT_IMAGE = "llmnpu/verilator:bookworm";

  public SimOptions {
    if (timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException("timeout must be positive, got " + timeout);
    }
  }

  /**
   * Options from the environment: mode from system property {@code llmnpu.sim} or variable
   * {@code LLMNPU_SIM} ({@code auto|local|container}), image from {@code llmnpu.sim.image} /
   * {@code LLMNPU_VERILATOR_IMAGE}, cache from {@code llmnpu.cache} / {@code LLMNPU_CACHE}
   * (default {@code ~/.cache/llmnpu}).
   */
  public static SimOptions fromEnvironment() {
    String mode = setting("llmnpu.sim", "LLMNPU_SIM", "auto");
    Mode m;
    try {
      m = Mode.valueOf(mode.toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("simulation mode (llmnpu.sim / LLMNPU_SIM) = '" + mode
          + "' is not allowed; allowed: auto, local, container");
    }
    Path cache = Path.of(setting("llmnpu.cache", "LLMNPU_CACHE",
        Path.of(System.getProperty("user.home"), ".cache", "llmnpu").toString()));
    String image = setting("llmnpu.sim.image", "LLMNPU_VERILATOR_IMAGE", DEFAULT_IMAGE);
    return new SimOptions(m, Waves.NONE, Duration.ofSeconds(120), cache.resolve("verilator"), image,
        cache.resolve("runs"));
  }

  public SimOptions withMode(Mode m) {
    return new SimOptions(m, waves, timeout, cacheDir, image, workDir);
  }

  public SimOptions withWaves(Waves w) {
    return new SimOptions(mode, w, timeout, cacheDir, image, workDir);
  }

  public SimOptions withTimeout(Duration t) {
    return new SimOptions(mode, waves, t, cacheDir, image, workDir);
  }

  private static String setting(String property, String env, String fallback) {
    String v = System.getProperty(property);
    if (v == null || v.isBlank()) {
      v = System.getenv(env);
    }
    return v == null || v.isBlank() ? fallback : v.trim();
  }
}
