package org.llmnpu.soc;

import static org.llmnpu.soc.SocOutput.num;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Locale;

/** Text and JSON of a HeteroInfer plan ({@link HeteroPlan}); JSON numbers are finite (null otherwise). */
public final class PartitionOutput {
  private PartitionOutput() {
  }

  /** JSON: {@code plan}, {@code speedupOverBestSingle} (by stage), {@code stages}, {@code findings}. */
  public static String json(HeteroPlan.Result r) {
    ObjectNode root = new ObjectMapper().createObjectNode();
    root.put("preset", r.preset().name()).put("model", r.shape().name()).put("promptLen", r.options().promptLen())
        .put("sync", r.options().sync()).put("profiledShapes", r.profiledShapes());
    r.options().npu().override(r.preset().npuPreset()).ifPresent(s -> root.put("npuConfiguration", s));
    ArrayNode plan = root.putArray("plan");
    for (HeteroPlan.Step s : r.plan()) {
      Partition p = s.partition();
      ObjectNode n = plan.addObject().put("stage", s.stage()).put("op", s.op()).put("m", s.m()).put("k", s.k())
          .put("n", s.n()).put("calls", s.calls()).put("kind", p.kind().key()).put("npuOrderSwapped", p.swapped());
      ArrayNode parts = n.putArray("npuParts");
      p.npuParts().forEach(x -> parts.addObject().put("rows", x[0]).put("cols", x[1]));
      n.put("gpuRows", p.gpuRows()).put("gpuCols", p.gpuCols());
      num(n, "npuShare", p.npuShare(s.m(), s.n()));
      num(n, "npuS", p.npuS());
      num(n, "gpuS", p.gpuS());
      num(n, "syncS", p.syncS());
      num(n, "timeS", p.timeS());
    }
    ObjectNode speedup = root.putObject("speedupOverBestSingle");
    ArrayNode stages = root.putArray("stages");
    for (HeteroPlan.StageSummary s : r.stages()) {
      num(speedup, s.stage(), s.speedupOverBestSingle());
      ObjectNode n = stages.addObject().put("stage", s.stage());
      num(n, "planS", s.planS());
      ObjectNode base = n.putObject("baselinesS");
      ObjectNode over = n.putObject("speedupOver");
      s.baselinesS().forEach((k, v) -> {
        num(base, k, v);
        num(over, k, v / s.planS());
      });
      num(n, "bandwidthGBs", s.bandwidthGBs());
      num(n, "driverSyncOverFastSync", s.syncSavingVsDriver());
    }
    SocOutput.findings(root.putArray("findings"), r.findings());
    return SocOutput.write(root);
  }

  /** Text: the plan per stage, the speedups, the findings. */
  public static String text(HeteroPlan.Result r) {
    StringBuilder b = new StringBuilder();
    b.append(String.format(Locale.ROOT, "HeteroInfer plan: %s on %s, %d-token prompt, %s sync (%d shapes profiled)%n",
        r.shape().name(), r.preset().name(), r.options().promptLen(), r.options().sync(), r.profiledShapes()));
    r.options().npu().override(r.preset().npuPreset())
        .ifPresent(s -> b.append("  npu configuration: ").append(s).append('\n'));
    b.append(String.format(Locale.ROOT, "  %-8s %-9s %-20s %-19s %6s %5s %10s %10s %10s%n", "stage", "op", "M x K x N",
        "partition", "NPU %", "swap", "NPU ms", "GPU ms", "time ms"));
    for (HeteroPlan.Step s : r.plan()) {
      Partition p = s.partition();
      b.append(String.format(Locale.ROOT, "  %-8s %-9s %-20s %-19s %5.1f%% %5s %10.4f %10.4f %10.4f%n", s.stage(),
          s.op(), s.m() + "x" + s.k() + "x" + s.n(), p.kind().key(), 100 * p.npuShare(s.m(), s.n()),
          p.swapped() ? "yes" : "no", p.npuS() * 1e3, p.gpuS() * 1e3, p.timeS() * 1e3));
    }
    for (HeteroPlan.StageSummary s : r.stages()) {
      b.append(String.format(Locale.ROOT, "  %s: plan %.3f ms, %.1f GB/s; speedup over best single backend %.2fx;",
          s.stage(), s.planS() * 1e3, s.bandwidthGBs(), s.speedupOverBestSingle()));
      s.baselinesS().forEach((k, v) -> b.append(String.format(Locale.ROOT, " %s %.3f ms (%.2fx)", k, v * 1e3,
          v / s.planS())));
      b.append('\n');
    }
    b.append("  findings (seed 002):\n");
    for (StageFindings.Finding f : r.findings()) {
      b.append(String.format(Locale.ROOT, "    %-26s ours: %s%n      %-24s paper: %s -> %s: %s%n", f.id(), f.ours(), "",
          f.paper(), f.agrees() ? "agrees" : "differs", f.why()));
    }
    return b.toString();
  }
}
