package org.llmnpu.soc;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Seed 001's findings (SEED-FIGURES.md, "When NPUs are not always faster") set next to ours: each with our figure,
 * the paper's, whether the trend agrees, and why. A finding whose backends are absent is left out.
 */
public final class StageFindings {
  private StageFindings() {
  }

  /**
   * One finding.
   *
   * @param id     a stable key
   * @param ours   our figure, with units
   * @param value  our figure as a number (for scripts)
   * @param paper  the paper's figure
   * @param agrees whether our trend agrees with the paper's
   * @param why    why it agrees or not
   */
  public record Finding(String id, String ours, double value, String paper, boolean agrees, String why) {
  }

  static List<Finding> of(StageAnalysis.Result r, StageCosting costing) {
    List<Finding> out = new ArrayList<>();
    Optional<StageAnalysis.StageRow> cpuPre = row(r, "prefill", "cpu");
    Optional<StageAnalysis.StageRow> cpuDec = row(r, "decode", "cpu");
    Optional<StageAnalysis.StageRow> perOpPre = row(r, "prefill", "npu-per-op");
    Optional<StageAnalysis.StageRow> perOpDec = row(r, "decode", "npu-per-op");
    Optional<StageAnalysis.StageRow> npuPre = row(r, "prefill", "npu");
    if (cpuPre.isPresent() && perOpPre.isPresent()) {
      double ratio = perOpPre.get().timeS() / cpuPre.get().timeS();
      double ours = npuPre.get().timeS() / cpuPre.get().timeS();
      out.add(new Finding("prefill-cpu-vs-npu", f("NPU/CPU prefill time %.2f (one graph per operator), %.2f (our "
          + "one-program lowering)", ratio, ours), ratio, "CPU 1.27-1.62x faster than the NPU in prefill",
          ratio > 1, ratio > 1 ? f("our NPU's prefill program sustains %.2f Top/s (%s), below the CPU roofline's %.0f "
          + "Gop/s INT8: attention's scores run one GEMV per query, so the array idles more as the prompt grows; the "
          + "paper's Hexagon lost to the CPU HVX-bound (seed 001 section A)", sustainedTops(r, costing),
          prefillBusy(r, costing), cpuGops(r))
          : f("with fusion full our NPU's prefill program is no longer DSP-bound enough to lose: it sustains %.2f "
          + "Top/s, above the CPU roofline's %.0f Gop/s INT8 (%s); the paper's Hexagon kernels are HVX-bound and tile "
          + "poorly into an 8 MB VTCM (seed 001 section A)", sustainedTops(r, costing), cpuGops(r),
          prefillBusy(r, costing))));
    }
    if (cpuDec.isPresent() && perOpDec.isPresent()) {
      double cpuMat = opSum(r, "decode", "cpu", "MATMUL");
      double npuMat = opSum(r, "decode", "npu-per-op", "MATMUL");
      double opGain = cpuMat / npuMat;
      double e2e = cpuDec.get().timeS() / perOpDec.get().timeS();
      out.add(new Finding("decode-operators-npu-vs-cpu", f("decode matmul op time CPU/NPU %.2fx; whole step "
          + "CPU/NPU(per-op) %.2fx", opGain, e2e), opGain, "decode operators 1.55x faster on the NPU; end-to-end gain "
          + "small", opGain > 1 && e2e < opGain, f("decode is memory-bound: our NPU's decode program reads %.1f GB/s "
          + "(its port: %.0f GB/s), the CPU "
          + "roofline %.1f GB/s",
          decPhase(r).readBytes() / (decPhase(r).cycles() / costing.npu().clockHz()) / 1e9,
          costing.npu().target().bandwidthGbs(), r.preset().cpu().bandwidthGBs().value())));
      double min = Double.MAX_VALUE;
      double max = 0;
      double minOp = Double.MAX_VALUE;
      double maxOp = 0;
      for (StageAnalysis.OpRow o : r.operators()) {
        if (o.stage().equals("decode") && o.backend().equals("npu-per-op") && o.light() && o.opS() > 0
            && o.ranOn().equals("npu")) {
          min = Math.min(min, o.callS() / o.opS());
          max = Math.max(max, o.callS() / o.opS());
          minOp = Math.min(minOp, o.opS() / o.calls());
          maxOp = Math.max(maxOp, o.opS() / o.calls());
        }
      }
      out.add(new Finding("light-call-to-op", f("%.1f-%.1fx (decode, one graph per operator)", min, max), max,
          "8-22x for light operators", max >= 8 && min <= 22, f("a light operator takes %.2f-%.2f us of our NPU's "
          + "decode step (the step's Vector DSP cycles, %.1f %% of it, shared by each operator's copies, a line a "
          + "cycle, and operations over the %d lanes), the dispatch %.0f us a call", minOp * 1e6, maxOp * 1e6,
          100.0 * decPhase(r).dspCycles() / decPhase(r).cycles(), costing.npu().target().npu().machine().dsp().lanes(),
          r.preset().host().perOpDispatchUs().value())));
      out.add(new Finding("comm-share", f("prefill %.1f %%, decode %.1f %%", 100 * perOpPre.get().commShare(),
          100 * perOpDec.get().commShare()), perOpDec.get().commShare(), "0.2-3.2 % of prefill, 9.9-13.0 % of decode",
          perOpDec.get().commShare() > perOpPre.get().commShare(), "communication is per call: prefill's long "
          + "operators hide it, decode's short ones do not"));
      double q = Math.max(perOpPre.get().quantShare(), perOpDec.get().quantShare());
      out.add(new Finding("dynamic-quantization-share", f("prefill %.1f %%, decode %.1f %% (incl. their dispatch)",
          100 * perOpPre.get().quantShare(), 100 * perOpDec.get().quantShare()), q, "0.4-2.5 %", q < 0.1,
          f("our NPU quantizes activations in passes of their rows through its Vector DSP (in our one-program "
          + "lowering too: %.1f %% of its prefill, of the %.0f %% the DSP runs); %s", 100 * npuPre.get().quantShare(),
          100.0 * prePhase(r).dspCycles() / prePhase(r).cycles(), q < 0.1 ? "a few element operations a row against "
          + "the matrix products keep it under a tenth" : "fusing the quantization into the GEMM's load is not built")));
    }
    if (costing.cpu().isPresent()) {
      Operator attention = OperatorGraph.of(r.shape().config(), OperatorGraph.Stage.DECODE, r.options().promptLen())
          .stream().filter(o -> o.kind() == Operator.Kind.ATTENTION).findFirst().orElseThrow();
      double fb = costing.fallback(attention, r.shape().config(), false).callS()
          / costing.cpu().get().call(attention, r.shape().config()).callS();
      out.add(new Finding("fallback-vs-cpu", f("attention falling back to the CPU: %.2fx its pure-CPU call (decode)",
          fb), fb, "fallback operators ~1.5x slower than pure CPU", fb > 1.2, "two driver syncs and the copies of "
          + "the operator's tensors come on top of the CPU's own call"));
    }
    Optional<StageAnalysis.StageRow> cpuE2e = row(r, "end-to-end", "cpu");
    Optional<StageAnalysis.StageRow> perOpE2e = row(r, "end-to-end", "npu-per-op");
    Optional<StageAnalysis.StageRow> npuE2e = row(r, "end-to-end", "npu");
    if (cpuE2e.isPresent() && perOpE2e.isPresent()) {
      double extra = perOpE2e.get().energyJ() / cpuE2e.get().energyJ() - 1;
      double ours = npuE2e.get().energyJ() / cpuE2e.get().energyJ() - 1;
      out.add(new Finding("full-offload-energy", f("%+.0f %% (one graph per operator), %+.0f %% (our lowering) vs "
          + "CPU-only at %d prompt tokens", 100 * extra, 100 * ours, r.options().promptLen()), extra,
          "+22 / +32 / +51 % at 321 / 641 / 1281 prompt tokens", extra > 0, extra > 0 ? "the offloaded run is "
          + "longer (dispatch, fallbacks) and the CPU stays active dispatching" : "our NPU's energy per op "
          + "(7 nm table) and its shorter run outweigh the dispatch: offload saves energy here"));
    }
    Optional<StageAnalysis.StageRow> preChoice = r.stages().stream()
        .filter(s -> s.stage().equals("prefill") && s.backend().startsWith("per-stage")).findFirst();
    Optional<StageAnalysis.StageRow> decChoice = r.stages().stream()
        .filter(s -> s.stage().equals("decode") && s.backend().startsWith("per-stage")).findFirst();
    if (preChoice.isPresent() && decChoice.isPresent()) {
      String p = preChoice.get().backend().substring(18);
      String d = decChoice.get().backend().substring(18);
      out.add(new Finding("per-stage-choice", "prefill on " + p + ", decode on " + d, 0,
          "G1: prefill on the CPU, decode on the NPU", p.equals("cpu") && d.startsWith("npu"),
          f("the fastest backend per stage on this SoC model: prefill %s, decode %s", p, d)));
    }
    return out;
  }

  private static org.llmnpu.sw.lower.PhaseCost prePhase(StageAnalysis.Result r) {
    return r.programs().get("prefill").phase();
  }

  private static org.llmnpu.sw.lower.PhaseCost decPhase(StageAnalysis.Result r) {
    return r.programs().get("decode").phase();
  }

  private static int rows(StageCosting costing) {
    return costing.npu().target().npu().machine().rows();
  }

  /** The prefill program's sustained rate: two operations a multiply-accumulate over its time, Top/s. */
  private static double sustainedTops(StageAnalysis.Result r, StageCosting costing) {
    return 2e-12 * prePhase(r).macs() / (prePhase(r).cycles() / costing.npu().clockHz());
  }

  private static double cpuGops(StageAnalysis.Result r) {
    return r.preset().cpu().peakGops().get(r.preset().cpu().matmulFormat()).value();
  }

  /** Where the prefill program's cycles go: MAC utilization of its peak, array and Vector DSP busy shares. */
  private static String prefillBusy(StageAnalysis.Result r, StageCosting costing) {
    org.llmnpu.sw.lower.PhaseCost pre = prePhase(r);
    return f("MAC utilization %.1f %% of its %.1f TOPS; array busy %.0f %% and Vector DSP %.0f %% of its cycles",
        100.0 * pre.macs() / ((double) rows(costing) * rows(costing) * pre.cycles()), 2e-12 * macsPerS(costing),
        100.0 * pre.arrayCycles() / pre.cycles(), 100.0 * pre.dspCycles() / pre.cycles());
  }

  /** The NPU array's multiply-accumulates per second (rows² a cycle at its clock). */
  private static double macsPerS(StageCosting costing) {
    int rows = costing.npu().target().npu().machine().rows();
    return (double) rows * rows * costing.npu().clockHz();
  }

  static Optional<StageAnalysis.StageRow> row(StageAnalysis.Result r, String stage, String backend) {
    return r.stages().stream().filter(s -> s.stage().equals(stage) && s.backend().equals(backend)).findFirst();
  }

  private static double opSum(StageAnalysis.Result r, String stage, String backend, String kind) {
    return r.operators().stream().filter(o -> o.stage().equals(stage) && o.backend().equals(backend)
        && o.kind().equals(kind)).mapToDouble(StageAnalysis.OpRow::opS).sum();
  }

  static String f(String format, Object... args) {
    return String.format(Locale.ROOT, format, args);
  }
}
