package org.llmnpu.reports.ppa;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Settings of one PPA run, validated on construction with messages that name the option and
 * the allowed values.
 *
 * @param clockNs        clock period to constrain, ns (0.1..1000)
 * @param activity       switching activity of every data input for power, toggles per cycle (0..1)
 * @param portActivities activities of particular input ports (0..1), overriding the global one
 * @param clockPort      name of the clock input; without such a port a virtual clock is used
 * @param flatten        synthesize the flattened design (optimizes across module boundaries, slow for
 *                       arrays) instead of each distinct module once, keeping the generator's hierarchy
 * @param liberty        standard-cell library (default: OSU 0.18 µm from Debian qflow-tech-osu018)
 * @param cache          where tool results are cached
 * @param gateDuties     for power, the fraction of cycles each clock gate is open (0..1), by the path of its gated
 *                       bank ({@code gemmEngine}); a gate not listed takes a simulated run's latched enable, else
 *                       is open every cycle ({@link GatedClocks})
 */
public record PpaOptions(double clockNs, double activity, SortedMap<String, Double> portActivities,
                         String clockPort, boolean flatten, Path liberty, ContentCache cache,
                         SortedMap<String, Double> gateDuties) {

  /** The OSU 0.18 µm library installed by Debian's {@code qflow-tech-osu018}. */
  public static final Path OSU018 = Path.of("/usr/share/qflow/tech/osu018/osu018_stdcells.lib");
  public static final double DEFAULT_CLOCK_NS = 5.0;
  /** Shortest clock period accepted, ns (10 GHz; ABC works in whole picoseconds). */
  public static final double MIN_CLOCK_NS = 0.1;
  /** Longest clock period accepted, ns (1 MHz). */
  public static final double MAX_CLOCK_NS = 1000;
  public static final double DEFAULT_ACTIVITY = 0.1;

  public PpaOptions {
    if (!(clockNs >= MIN_CLOCK_NS && clockNs <= MAX_CLOCK_NS)) {
      throw new IllegalArgumentException("--clock-ns: the clock period must be in " + MIN_CLOCK_NS + ".."
          + (long) MAX_CLOCK_NS + " ns (what ABC's timing-driven mapping accepts), got " + clockNs);
    }
    checkActivity("--activity", activity);
    portActivities.forEach((port, a) -> checkActivity("--port-activity " + port, a));
    portActivities = Collections.unmodifiableSortedMap(new TreeMap<>(portActivities));
    gateDuties.forEach((bank, d) -> {
      if (!(d >= 0 && d <= 1)) {
        throw new IllegalArgumentException("gate duty " + bank + ": the fraction of cycles a clock gate is open must "
            + "be in 0..1, got " + d);
      }
    });
    gateDuties = Collections.unmodifiableSortedMap(new TreeMap<>(gateDuties));
    if (!Files.isReadable(liberty)) {
      throw new IllegalArgumentException("liberty: cannot read the cell library " + liberty
          + "; install it with apt-get install qflow-tech-osu018 (scripts/setup-tools.sh)");
    }
  }

  /** Defaults: 5 ns clock on port {@code clk}, activity 0.1, hierarchical, OSU018, the standard cache. */
  public static PpaOptions defaults() {
    return new PpaOptions(DEFAULT_CLOCK_NS, DEFAULT_ACTIVITY, new TreeMap<>(), "clk", false, OSU018,
        ContentCache.standard(), new TreeMap<>());
  }

  public PpaOptions withClockNs(double ns) {
    return new PpaOptions(ns, activity, portActivities, clockPort, flatten, liberty, cache, gateDuties);
  }

  public PpaOptions withActivity(double a, Map<String, Double> ports) {
    return new PpaOptions(clockNs, a, new TreeMap<>(ports), clockPort, flatten, liberty, cache, gateDuties);
  }

  public PpaOptions withCache(ContentCache c) {
    return new PpaOptions(clockNs, activity, portActivities, clockPort, flatten, liberty, c, gateDuties);
  }

  public PpaOptions withFlatten(boolean f) {
    return new PpaOptions(clockNs, activity, portActivities, clockPort, f, liberty, cache, gateDuties);
  }

  /** These options with the clock gates open the given fractions of cycles (bank path → 0..1), for power. */
  public PpaOptions withGateDuties(Map<String, Double> duties) {
    return new PpaOptions(clockNs, activity, portActivities, clockPort, flatten, liberty, cache, new TreeMap<>(duties));
  }

  private static void checkActivity(String what, double a) {
    if (!(a >= 0 && a <= 1)) {
      throw new IllegalArgumentException(what + ": switching activity must be in 0..1 toggles per cycle, got " + a);
    }
  }
}
