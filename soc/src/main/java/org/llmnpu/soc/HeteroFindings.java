package org.llmnpu.soc;

import static org.llmnpu.soc.StageFindings.f;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** HeteroInfer's findings (seed 002, SEED-FIGURES.md) set next to our plan's. */
final class HeteroFindings {
  private HeteroFindings() {
  }

  static List<StageFindings.Finding> of(HeteroPlan.Result r, PartitionSolver solver) {
    List<StageFindings.Finding> out = new ArrayList<>();
    for (HeteroPlan.StageSummary s : r.stages()) {
      double min = Double.MAX_VALUE;
      double max = 0;
      String minName = "";
      String maxName = "";
      for (Map.Entry<String, Double> b : s.baselinesS().entrySet()) {
        double sp = b.getValue() / s.planS();
        if (sp < min) {
          min = sp;
          minName = b.getKey();
        }
        if (sp > max) {
          max = sp;
          maxName = b.getKey();
        }
      }
      boolean prefill = s.stage().equals("prefill");
      out.add(new StageFindings.Finding(s.stage() + "-speedup", f("%.2fx (over %s) to %.2fx (over %s)", min, minName,
          max, maxName), min, prefill ? "prefill 3.29-24.9x over the baselines" : "decode 1.50-2.53x over the "
          + "baselines", min > 1, min > 1 ? "co-execution beats every single backend and the layer-level split"
          : f("the best single backend (%s) is as fast as the plan: our NPU and the GPU roofline are too unequal for "
          + "a split to pay its synchronization", minName)));
    }
    HeteroPlan.StageSummary dec = r.stages().get(1);
    double peak = r.preset().host().dramGBs().value();
    double gpuAlone = r.preset().gpu().orElseThrow().bandwidthGBs().value();
    out.add(new StageFindings.Finding("decode-bandwidth", f("%.1f GB/s (%.0f %% of the %.1f GB/s DRAM; GPU alone "
        + "%.1f GB/s)", dec.bandwidthGBs(), 100 * dec.bandwidthGBs() / peak, peak, gpuAlone), dec.bandwidthGBs(),
        "43.3 -> 59.5 GB/s (96 % of peak) with GPU+NPU", dec.bandwidthGBs() > gpuAlone,
        "both backends stream their weight parts at once; the contention model caps them at the DRAM's bandwidth"));
    HeteroPlan.StageSummary pre = r.stages().get(0);
    out.add(new StageFindings.Finding("fast-sync", f("plan with driver waits / with fast sync: prefill %.3fx, decode "
        + "%.3fx", pre.syncSavingVsDriver(), dec.syncSavingVsDriver()), dec.syncSavingVsDriver(),
        "+15.8 % / +24.3 % prefill, up to 4.01x decode", dec.syncSavingVsDriver() >= pre.syncSavingVsDriver(),
        "decode's products take tens to hundreds of us, so a 45 us driver wait is a large share; prefill's take ms"));
    int dim = r.shape().config().dim();
    int m = 257;
    Partition padded = solver.cost(Partition.Kind.NPU_ONLY, dim, List.of(new int[] {solver.pad(m), dim}), 0, 0);
    Partition best = solver.solve(m, dim, dim);
    double ratio = padded.timeS() / best.timeS();
    out.add(new StageFindings.Finding("padding-vs-hetero-tensor", f("[%d,%d] weight at M = %d: padding to %d costs "
        + "%.2fx the solver's %s", dim, dim, m, solver.pad(m), ratio, best.kind().key()), ratio,
        "padding costs 1.91x over hetero-tensor past a standard size", ratio > 1.2, ratio > 1.2 ? "padding nearly "
        + "doubles the NPU's rows; the GPU takes the one row past the standard size instead"
        : "our NPU's cost grows in maxM-row chunks, not with the padded size alone"));
    Map<String, Integer> kinds = new TreeMap<>();
    double share = 0;
    int count = 0;
    for (HeteroPlan.Step s : r.plan()) {
      if (s.stage().equals("decode")) {
        kinds.merge(s.partition().kind().key(), 1, Integer::sum);
        share += s.partition().npuShare(s.m(), s.n());
        count++;
      }
    }
    double npuShare = count > 0 ? share / count : 0;
    out.add(new StageFindings.Finding("decode-partition", f("decode kinds %s, mean NPU share %.0f %%", kinds,
        100 * npuShare), npuShare, "decode: weight-centric, the GPU doing most of the work",
        kinds.containsKey("weight-centric") && npuShare < 0.5, kinds.containsKey("weight-centric")
        ? "the split follows the backends' decode bandwidths: the share goes to the faster streamer"
        : "one backend streams so much faster that a split does not pay its synchronization"));
    return out;
  }
}
