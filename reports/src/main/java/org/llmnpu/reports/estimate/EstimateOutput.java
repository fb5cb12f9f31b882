package org.llmnpu.reports.estimate;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Locale;
import java.util.Map;
import org.llmnpu.isa.Counter;
import org.llmnpu.reports.JsonOutput;
import org.llmnpu.reports.energy.EnergyEstimate;
import org.llmnpu.rtl.npu.NpuConfig;
import org.llmnpu.sw.estimate.CycleEstimate;
import org.llmnpu.sw.lower.PhaseCost;

/** An {@link NpuEstimate} as text for the terminal and as JSON for scripts; both depend on the estimate alone. */
public final class EstimateOutput {
  private EstimateOutput() {
  }

  /** The estimate as indented JSON (keys {@code ttftS}, {@code tpotS}, {@code prefillMacUtilization}, ...). */
  public static String json(NpuEstimate e) {
    CycleEstimate c = e.cycles();
    NpuConfig n = e.target().npu();
    ObjectNode root = JsonOutput.object();
    root.put("model", c.shape().name()).put("modelSource", c.shape().source());
    ObjectNode shape = root.putObject("shape");
    shape.put("dim", c.shape().config().dim()).put("hiddenDim", c.shape().config().hiddenDim())
        .put("layers", c.shape().config().layers()).put("heads", c.shape().config().heads())
        .put("kvHeads", c.shape().config().kvHeads()).put("vocabSize", c.shape().config().vocabSize());
    ObjectNode npu = root.putObject("npu");
    npu.put("name", e.target().name()).put("source", e.target().source()).put("clockMhz", e.target().clockMhz())
        .put("rows", n.rows()).put("macsPerCycle", c.macsPerCycle()).put("memBytesPerCycle", n.memBytesPerCycle())
        .put("bandwidthGbs", e.target().bandwidthGbs()).put("memLatency", n.memLatency()).put("spadKiB", n.spadKiB())
        .put("dspLanes", n.dspLanes()).put("dspStages", n.dspStages()).put("dspPermute", n.dspPermute())
        .put("sparsity", n.sparsity())
        .put("mxLoad", n.mxLoad()).put("commandQueueDepth", n.commandQueueDepth());
    root.put("quant", c.quant()).put("fusion", e.fusion()).put("promptLen", c.promptLen())
        .put("decodePosition", c.promptLen()).put("staging", c.staging().name().toLowerCase(Locale.ROOT))
        .put("stagingReason", c.stagingReason()).put("prefillBlock", c.block());
    root.put("fusionApplied", c.fusion().applied().optionValue());
    c.fusion().notApplied().forEach(root.withArray("fusionNotApplied")::add);
    root.put("ttftS", e.ttftS()).put("tpotS", e.tpotS()).put("tokensPerS", e.tokensPerS())
        .put("prefillMacUtilization", c.prefillMacUtilization())
        .put("decodeBandwidthUtilization", c.decodeBandwidthUtilization())
        .put("decodeDramBytesPerToken", c.decodeDramBytesPerToken());
    if (e.energy() != null) {
      root.put("energyPerTokenJ", e.energyPerTokenJ()).put("prefillEnergyPerTokenJ", e.prefillEnergyPerTokenJ())
          .put("energyNodeNm", e.energy().node().nm).put("energyTable", e.energy().table());
    } else {
      root.putNull("energyPerTokenJ");
      root.putNull("prefillEnergyPerTokenJ");
    }
    phase(root.putObject("prefill"), c.prefill(), e.energy() == null ? null : e.energy().prefill());
    phase(root.putObject("decode"), c.decode(), e.energy() == null ? null : e.energy().decode());
    e.notes().forEach(root.withArray("notes")::add);
    return JsonOutput.indented(root) + "\n";
  }

  private static void phase(ObjectNode o, PhaseCost p, EnergyEstimate energy) {
    o.put("cycles", p.cycles()).put("readBytes", p.readBytes()).put("writeBytes", p.writeBytes());
    ObjectNode busy = o.putObject("busyShare");
    CycleEstimate.busyShares(p).forEach(busy::put);
    ObjectNode counters = o.putObject("counters");
    p.counters().forEach(counters::put);
    if (energy != null) {
      ObjectNode units = o.putObject("energyJ");
      energy.byUnitPj().forEach((k, v) -> units.put(k, v * 1e-12));
      o.put("energyTotalJ", energy.joules());
    }
  }

  /** The estimate for the terminal: the figures first, units on every number, then what they assume. */
  public static String text(NpuEstimate e) {
    CycleEstimate c = e.cycles();
    NpuConfig n = e.target().npu();
    StringBuilder s = new StringBuilder();
    s.append(String.format(Locale.ROOT, "%s on %s: %dx%d array at %s MHz, %d B/cycle (%s GB/s), latency %d cycles, "
            + "%d-lane DSP (%d stages%s), %ssparsity %s%n", c.shape().name(), e.target().name(), n.rows(), n.rows(),
        EstimateTarget.fmt(e.target().clockMhz()), n.memBytesPerCycle(), EstimateTarget.fmt(e.target().bandwidthGbs()),
        n.memLatency(), n.dspLanes(), n.dspStages(), n.dspPermute() ? ", permute" : "", (n.ppmGate() ? "PPM gate, " : "")
        + (n.ppmWide() ? "wide PPM, " : ""),
        n.sparsity()));
    s.append(String.format(Locale.ROOT, "  %s weights, fusion %s, %d-token prompt (blocks of %d), decode at position "
        + "%d%n", c.quant(), e.fusion(), c.promptLen(), c.block(), c.promptLen()));
    s.append(String.format(Locale.ROOT, "  TTFT                          %12.4f s      (%,d cycles)%n", e.ttftS(),
        c.prefill().cycles()));
    s.append(String.format(Locale.ROOT, "  TPOT                          %12.4f ms     (%,d cycles)%n", 1e3 * e.tpotS(),
        c.decode().cycles()));
    s.append(String.format(Locale.ROOT, "  tokens/s (decode)             %12.2f%n", e.tokensPerS()));
    s.append(String.format(Locale.ROOT, "  DRAM bytes per token (decode) %12.4f GB     (%,d B)%n",
        c.decodeDramBytesPerToken() / 1e9, c.decodeDramBytesPerToken()));
    s.append(String.format(Locale.ROOT, "  prefill MAC utilization       %12.4f        (%,d MACs / (%d MACs/cycle x "
        + "%,d cycles))%n", c.prefillMacUtilization(), c.prefill().macs(), c.macsPerCycle(), c.prefill().cycles()));
    s.append(String.format(Locale.ROOT, "  decode bandwidth utilization  %12.4f        (%,d B read / (%s B/cycle x %,d "
        + "cycles))%n", c.decodeBandwidthUtilization(), c.decode().readBytes(), EstimateTarget.fmt(c.bytesPerCycle()),
        c.decode().cycles()));
    if (e.energy() != null) {
      s.append(String.format(Locale.ROOT, "  energy per token (decode)     %12.4g J      (%d nm)%n",
          e.energyPerTokenJ(), e.energy().node().nm));
      s.append(String.format(Locale.ROOT, "  energy per prompt token       %12.4g J%n", e.prefillEnergyPerTokenJ()));
    } else {
      s.append("  energy per token              not computed (no --energy-table)\n");
    }
    s.append("  busy share of the phase's cycles:\n");
    Map<String, Double> pre = CycleEstimate.busyShares(c.prefill());
    Map<String, Double> dec = CycleEstimate.busyShares(c.decode());
    s.append(String.format(Locale.ROOT, "    %-8s", "unit"));
    pre.keySet().forEach(k -> s.append(String.format(Locale.ROOT, " %9s", k)));
    s.append(String.format(Locale.ROOT, "%n    %-8s", "prefill"));
    pre.values().forEach(v -> s.append(String.format(Locale.ROOT, " %9.3f", v)));
    s.append(String.format(Locale.ROOT, "%n    %-8s", "decode"));
    dec.values().forEach(v -> s.append(String.format(Locale.ROOT, " %9.3f", v)));
    s.append('\n');
    s.append(String.format(Locale.ROOT, "  commands: prefill %,d, decode %,d; DSP instructions: prefill %,d, decode %,d%n",
        c.prefill().commands(), c.decode().commands(), c.prefill().counter(Counter.DSP_INSTRUCTIONS),
        c.decode().counter(Counter.DSP_INSTRUCTIONS)));
    s.append("  model shape: ").append(c.shape().source()).append('\n');
    s.append("  NPU: ").append(e.target().source()).append('\n');
    e.notes().forEach(note -> s.append("  ").append(note).append('\n'));
    return s.toString();
  }
}
