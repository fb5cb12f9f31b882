package org.llmnpu.reports.html;

import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;
import org.llmnpu.reports.ppa.PpaOptions;
import org.llmnpu.reports.ppa.PpaResult;
import org.llmnpu.reports.ppa.ToolVersions;

/**
 * Everything one PPA report shows: the block, the points (one, or one per swept value) and the
 * settings and tool versions they were measured with. No timestamps, so identical inputs give
 * byte-identical reports.
 *
 * @param block      block (or top module) name
 * @param sweptParam the parameter varied across points, or {@code null} for a single point
 * @param flattened  whether synthesis flattened the design (else each module synthesized once)
 */
public record PpaReport(String block, String sweptParam, List<PpaResult> points, double clockNs, double activity,
                        SortedMap<String, Double> portActivities, boolean flattened, String library,
                        String yosysVersion, String staVersion) {
  public PpaReport {
    points = List.copyOf(points);
    portActivities = new TreeMap<>(portActivities);
    if (points.isEmpty()) {
      throw new IllegalArgumentException("a PPA report needs at least one design point");
    }
  }

  /** A report of points measured with {@code options}, stating the installed tool versions. */
  public static PpaReport of(String block, String sweptParam, List<PpaResult> points, PpaOptions options) {
    return new PpaReport(block, sweptParam, points, options.clockNs(), options.activity(), options.portActivities(),
        options.flatten(), options.liberty().getFileName().toString(), ToolVersions.yosys(), "OpenSTA " + ToolVersions.sta());
  }

  /** The x label of a point: the swept parameter's value, or the block name. */
  public String label(PpaResult p) {
    return sweptParam == null ? block : p.params().getOrDefault(sweptParam, "?");
  }

  /** The page title, also checked by the browser test. */
  public String title() {
    return "PPA report: " + block + (sweptParam == null ? "" : " (sweep of " + sweptParam + ")");
  }
}
