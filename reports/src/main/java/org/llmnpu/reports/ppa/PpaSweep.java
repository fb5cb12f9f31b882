package org.llmnpu.reports.ppa;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;

/**
 * Runs the PPA flow once per value of one parameter, the other parameters fixed, so area, Fmax
 * and power can be plotted against that parameter. Without a swept parameter it runs once.
 */
public final class PpaSweep {
  private PpaSweep() {
  }

  /**
   * @param base       parameters common to every point
   * @param sweptParam the parameter to vary, or {@code null} for a single point
   * @param values     its values in plot order (ignored without a swept parameter)
   */
  public static List<PpaResult> run(DesignSource source, Map<String, String> base, String sweptParam,
                                    List<String> values, PpaOptions options) {
    return run(source, base, sweptParam, values, options, (result, millis) -> { });
  }

  /** As {@link #run(DesignSource, Map, String, List, PpaOptions)}, reporting each point and its run time (ms). */
  public static List<PpaResult> run(DesignSource source, Map<String, String> base, String sweptParam,
                                    List<String> values, PpaOptions options, BiConsumer<PpaResult, Long> progress) {
    List<Map<String, String>> points = new ArrayList<>();
    if (sweptParam == null) {
      points.add(base);
    } else {
      if (values.isEmpty()) {
        throw new IllegalArgumentException("--sweep " + sweptParam + ": give at least one value, e.g. "
            + sweptParam + "=4,8,16");
      }
      for (String v : values) {
        Map<String, String> p = new LinkedHashMap<>(base);
        p.put(sweptParam, v);
        points.add(p);
      }
    }
    List<PpaResult> out = new ArrayList<>();
    for (Map<String, String> p : points) {
      long t0 = System.nanoTime();
      PpaResult r = PpaFlow.run(source.design(p), p, options);
      progress.accept(r, (System.nanoTime() - t0) / 1_000_000);
      out.add(r);
    }
    return out;
  }
}
