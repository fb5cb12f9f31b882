package org.llmnpu.flow.dse;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.llmnpu.reports.JsonOutput;
import org.llmnpu.reports.estimate.EstimateTarget;
import org.llmnpu.reports.estimate.NpuEstimate;
import org.llmnpu.rtl.npu.NpuParameter;
import org.llmnpu.sw.estimate.CycleEstimator;
import org.llmnpu.sw.estimate.ModelShapes;

/**
 * The points of a sweep: the cartesian product of the swept parameters' values, in the order of nested loops over
 * the parameters as the file lists them (the first parameter outermost, the last one varying fastest), each
 * parameter's values in the file's order.
 *
 * <p>Every point is checked before anything runs: each swept NPU value against its parameter's domain (as
 * {@code -p name=value}), the combination against the NPU's invariants, the model and workload against the cycle
 * estimator's options. A bad value is an {@link IllegalArgumentException} naming the parameter (or the point) and
 * what is allowed.
 */
public final class SweepPoints {
  private SweepPoints() {
  }

  /** Every point of {@code sweep}, in the order stated above. */
  public static List<SweepPoint> of(SweepFile sweep) {
    sweep.parameters().forEach((name, values) -> {
      if (!Workload.KEYS.contains(name)) {
        NpuParameter p = npuParameter("parameters." + name, name);
        values.forEach(v -> canonical(p, v, "parameters." + name));
      }
    });
    ModelShapes.Shape shape = ModelShapes.of(sweep.model());
    String tableDigest = sweep.energyTable() == null ? "none" : sha256(readBytes(sweep.energyTable()));
    List<SweepPoint> points = new ArrayList<>();
    for (Map<String, String> swept : product(sweep.parameters())) {
      points.add(point(sweep, shape, swept, tableDigest));
    }
    return points;
  }

  private static SweepPoint point(SweepFile sweep, ModelShapes.Shape shape, Map<String, String> swept,
      String tableDigest) {
    Map<String, String> npuParams = new LinkedHashMap<>(sweep.baseParams());
    Workload workload = sweep.workload();
    for (Map.Entry<String, String> e : swept.entrySet()) {
      if (Workload.KEYS.contains(e.getKey())) {
        workload = workload.with(e.getKey(), e.getValue(), "parameters." + e.getKey());
      } else {
        npuParams.put(e.getKey(), e.getValue());
      }
    }
    String where = "point " + swept;
    EstimateTarget target;
    try {
      target = EstimateTarget.load(sweep.preset(), sweep.config(), npuParams);
      NpuEstimate.withUnitsFor(target, workload.quant(), new ArrayList<>());
      if (workload.bandwidthGbs() != null) {
        try {
          target.withBandwidthGbs(workload.bandwidthGbs());
        } catch (IllegalArgumentException e) {
          throw new IllegalArgumentException(e.getMessage().replace("--bandwidth-gbs", "bandwidthGbs"), e);
        }
      }
      CycleEstimator.checkOptions(shape.config(), workload.quant(), workload.promptLen());
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(where + ": " + e.getMessage(), e);
    }
    SweepPoint unnamed = new SweepPoint("x", swept, target, workload);
    Map<String, Object> identity = new LinkedHashMap<>();
    identity.put("model", sweep.model());
    identity.put("configuration", unnamed.configuration());
    identity.put("nodeNm", sweep.nodeNm());
    identity.put("synthesisClockNs", sweep.synthesisClockNs());
    identity.put("energyTableSha256", tableDigest);
    identity.put("objectives", sweep.objectives().stream().map(o -> o.key).toList());
    if (!sweep.evaluation().equals("cycle-model")) {
      identity.put("evaluation", sweep.evaluation()); // cycle-model points keep the ids they had before rtl existed
    }
    String id = SweepPoint.slug(swept) + "-" + sha256(JsonOutput.compact(identity)
        .getBytes(StandardCharsets.UTF_8)).substring(0, 8);
    return new SweepPoint(id, swept, target, workload);
  }

  /** The cartesian product, the last parameter varying fastest. */
  static List<Map<String, String>> product(Map<String, List<String>> parameters) {
    List<Map<String, String>> out = new ArrayList<>();
    out.add(new LinkedHashMap<>());
    for (Map.Entry<String, List<String>> p : parameters.entrySet()) {
      List<Map<String, String>> next = new ArrayList<>();
      for (Map<String, String> partial : out) {
        for (String v : p.getValue()) {
          Map<String, String> m = new LinkedHashMap<>(partial);
          m.put(p.getKey(), v);
          next.add(m);
        }
      }
      out = next;
    }
    return out;
  }

  /** The NPU parameter {@code name}; an unknown one is an error naming {@code key} and every allowed name. */
  static NpuParameter npuParameter(String key, String name) {
    try {
      return NpuParameter.of(name);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(key + ": unknown parameter '" + name + "'; allowed: the NPU parameters ("
          + String.join(", ", NpuParameter.keys()) + ") and the workload's (" + String.join(", ", Workload.KEYS)
          + ")", e);
    }
  }

  private static String canonical(NpuParameter p, String value, String key) {
    try {
      return p.canonical(value);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(key + ": '" + value + "' is not allowed; allowed: " + p.domain().allowed(), e);
    }
  }

  private static byte[] readBytes(java.nio.file.Path file) {
    try {
      return Files.readAllBytes(file);
    } catch (IOException e) {
      throw new IllegalArgumentException("energyTable: cannot read " + file + ": " + e.getMessage(), e);
    }
  }

  static String sha256(byte[] bytes) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
