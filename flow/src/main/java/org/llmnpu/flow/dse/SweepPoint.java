package org.llmnpu.flow.dse;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.llmnpu.reports.estimate.EstimateTarget;
import org.llmnpu.rtl.npu.NpuConfigFiles;

/**
 * One point of a sweep: the swept parameters' values, the whole NPU they give (with its clock) and the workload.
 *
 * @param id       stable and derived from the point's inputs: the swept values written out, then 8 hex digits of a
 *                 SHA-256 over everything that determines the result (so a changed base or table gives a new id)
 * @param swept    the swept parameters' values, in the file's order
 * @param target   the NPU (every parameter) and its clock
 * @param workload the workload after the swept values
 */
public record SweepPoint(String id, Map<String, String> swept, EstimateTarget target, Workload workload) {
  /** The clock's field in an estimate's configuration file (the one field that is not an NPU parameter). */
  static final String CLOCK_KEY = "clockMhz";

  public SweepPoint {
    swept = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(swept));
  }

  /** The point's NPU as a flat configuration file {@code npu estimate --config} reads, clock included. */
  public String npuYaml() {
    return NpuConfigFiles.yaml(target.npu(), false) + CLOCK_KEY + ": " + target.clockMhz() + "\n";
  }

  /** The NPU's parameters by name, in {@code NpuParameter} order, as strings. */
  public Map<String, Object> npuParameters() {
    return NpuConfigFiles.toMap(target.npu(), false);
  }

  /** The full configuration as the report shows it: the NPU, its clock and the workload. */
  public Map<String, Object> configuration() {
    Map<String, Object> m = new LinkedHashMap<>(npuParameters());
    m.put(CLOCK_KEY, target.clockMhz());
    m.putAll(workload.asMap());
    return m;
  }

  /** The id's readable part: each swept value after its name, characters outside [A-Za-z0-9.] as '-'. */
  static String slug(Map<String, String> swept) {
    List<String> parts = swept.entrySet().stream()
        .map(e -> e.getKey() + e.getValue().replaceAll("[^A-Za-z0-9.]", "-")).toList();
    return String.join("_", parts);
  }
}
