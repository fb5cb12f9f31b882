package org.llmnpu.cosim.decoder;

import java.util.ArrayList;
import java.util.List;
import org.llmnpu.cosim.axi.NpuAxiComparison;
import org.llmnpu.cosim.axi.NpuAxiHost;
import org.llmnpu.isa.Counter;
import org.llmnpu.isa.EngineTiming;
import org.llmnpu.isa.ErrorCause;
import org.llmnpu.isa.IsaSimulator;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.rtl.npu.NpuDriver;
import org.llmnpu.sw.lower.LoweredModel;
import org.llmnpu.sw.lower.NpuDecoder;
import org.llmnpu.sw.lower.NpuEngine;
import org.llmnpu.verilator.axi.Axi4MemoryConfig;

/**
 * The engine of a decoding session: the golden ISA simulator (with the NPU's GEMM-engine timing),
 * and the RTL beside it when there is one. Each program runs on both from the same memory image;
 * the images afterwards, the status and every counter are compared and the first difference is
 * named by its tensor ({@link LoweredModel#describe}). The session continues on the golden image
 * (one difference does not hide the next step's), or, with {@code continueOnRtl}, on the RTL's
 * image as long as the RTL halts without an error, so the tokens the session decides are the
 * RTL's own. On the AXI NPU ({@link DecoderRtl#axi}) the comparison is {@link NpuAxiComparison}'s (memory, status,
 * the register map's work counters, cycles within the stated bound), and a session continued on the RTL takes the
 * golden's counters.
 */
final class StepRecorder implements NpuEngine {
  private final DecoderRtl rtl;
  private final EngineTiming timing;
  private final LoweredModel model;
  private final boolean continueOnRtl;
  private DecoderRun.Step last;
  /** The runs since the last {@link #step}: a chunked prefill is several programs. */
  private final List<DecoderRun.Step> runs = new ArrayList<>();

  StepRecorder(DecoderRtl rtl, EngineTiming timing, LoweredModel model, boolean continueOnRtl) {
    this.rtl = rtl;
    this.timing = timing;
    this.model = model;
    this.continueOnRtl = continueOnRtl;
  }

  @Override
  public Run run(MachineParams machine, byte[] image, long programAddress, String label) {
    long t0 = System.nanoTime();
    IsaSimulator.Result g = IsaSimulator.run(machine, timing, image, programAddress);
    long vectors = org.llmnpu.cosim.GemmVectors.ofProgram(image, programAddress, g.counter(Counter.COMMANDS),
        machine.rows());
    double goldenSeconds = (System.nanoTime() - t0) / 1e9;
    Run out = new Run(g.memory(), g.counters(), g.error(), g.errorCommand());
    if (rtl == null) {
      last = new DecoderRun.Step(label, 0, 0, g.counters(), -1, true, "", goldenSeconds, 0, vectors,
          g.dspPipeIssues());
      runs.add(last);
      return out;
    }
    if (rtl.axi() != null) {
      return runAxi(rtl.axi(), image, programAddress, label, g, goldenSeconds, vectors);
    }
    long limit = Math.max(1_000_000L, 4 * g.counter(Counter.CYCLES) + 10_000);
    NpuDriver.Run r = rtl.nativeNpu().run(image, programAddress, limit);
    List<String> diffs = new ArrayList<>();
    if (r.error() != g.error() || (g.error() != ErrorCause.NONE && r.errorCommand() != g.errorCommand())) {
      diffs.add("status RTL " + r.error() + (r.error() == ErrorCause.NONE ? "" : " at command " + r.errorCommand())
          + ", golden " + g.error());
    }
    long at = NpuAxiComparison.firstDifference(r.memory(), g.memory());
    if (at >= 0) {
      diffs.add("memory from 0x" + Long.toHexString(at) + " (" + model.describe(at) + ")");
    }
    long[] rtlCounters = new long[Counter.values().length];
    for (Counter c : Counter.values()) {
      rtlCounters[c.ordinal()] = r.counters().get(c);
    }
    for (Counter c : Counter.values()) {
      long rv = rtlCounters[c.ordinal()];
      if (rv != g.counter(c)) {
        diffs.add(c.key() + " RTL " + rv + " vs " + (c.golden() ? "golden " : "model ") + g.counter(c));
        break;
      }
    }
    last = new DecoderRun.Step(label, 0, 0, g.counters(), rtlCounters[Counter.CYCLES.ordinal()], diffs.isEmpty(),
        String.join("; ", diffs), goldenSeconds, r.wallSeconds(), vectors, g.dspPipeIssues());
    runs.add(last);
    return continueOnRtl && r.error() == ErrorCause.NONE ? new Run(r.memory(), rtlCounters, r.error(), 0) : out;
  }

  private Run runAxi(NpuAxiHost axi, byte[] image, long programAddress, String label, IsaSimulator.Result g,
                     double goldenSeconds, long vectors) {
    Axi4MemoryConfig memory = NpuAxiComparison.memoryFor(axi.config(), image.length);
    long bound = NpuAxiComparison.boundModelCycles(axi.config(), memory, image, programAddress, g);
    long limit = Math.max(1_000_000L, 4 * Math.max(bound, g.counter(Counter.CYCLES)) + 100_000);
    NpuAxiHost.Run r = axi.run(image, programAddress, 0, memory, limit, false);
    NpuAxiComparison c = NpuAxiComparison.of(g, r, memory, bound, image, programAddress);
    long at = NpuAxiComparison.firstDifference(
        NpuAxiComparison.withoutSnapshots(r.memory(), g, image, programAddress), g.memory());
    List<String> diffs = c.differences().stream()
        .map(d -> d.startsWith("memory from") ? d + " (" + model.describe(at) + ")" : d).toList();
    last = new DecoderRun.Step(label, 0, 0, g.counters(), c.rtlCycles(), diffs.isEmpty(), String.join("; ", diffs),
        goldenSeconds, r.wallSeconds(), vectors, g.dspPipeIssues());
    runs.add(last);
    return continueOnRtl && r.done() ? new Run(r.memory(), g.counters(), ErrorCause.NONE, 0)
        : new Run(g.memory(), g.counters(), g.error(), g.errorCommand());
  }

  /**
   * The step just run, completed with the session's view of it ({@code phase}, tokens, commands);
   * with {@code where}, a difference starts with the engine's label of the run (e.g. "verify at position 7").
   */
  DecoderRun.Step step(String phase, NpuDecoder.Step s, boolean where) {
    DecoderRun.Step all = combined();
    runs.clear();
    String difference = where && !all.bitExact() ? all.phase() + ": " + all.difference() : all.difference();
    return new DecoderRun.Step(phase, s.tokens(), s.commands(), all.counters(), all.rtlCycles(), all.bitExact(),
        difference, all.goldenSeconds(), all.rtlSeconds(), all.arrayVectors(), all.dspPipeIssues());
  }

  /**
   * The runs since the last step as one: counters, cycles, seconds and vectors summed over the programs (a chunked
   * prefill's chunks run one after the other), bit-exact when every program is, the first difference named.
   */
  private DecoderRun.Step combined() {
    if (runs.size() <= 1) {
      return last;
    }
    long[] counters = new long[Counter.values().length];
    long rtlCycles = 0;
    boolean exact = true;
    String difference = "";
    String phase = runs.get(0).phase();
    double golden = 0;
    double rtlSeconds = 0;
    long vectors = 0;
    long[] pipeIssues = new long[org.llmnpu.isa.dsp.DspPipe.values().length];
    for (DecoderRun.Step r : runs) {
      for (int i = 0; i < pipeIssues.length; i++) {
        pipeIssues[i] += r.dspPipeIssues()[i];
      }
      for (int i = 0; i < counters.length; i++) {
        counters[i] += r.counters()[i];
      }
      rtlCycles = rtlCycles < 0 || r.rtlCycles() < 0 ? -1 : rtlCycles + r.rtlCycles();
      if (exact && !r.bitExact()) {
        exact = false;
        difference = r.difference();
        phase = r.phase();
      }
      golden += r.goldenSeconds();
      rtlSeconds += r.rtlSeconds();
      vectors += r.arrayVectors();
    }
    return new DecoderRun.Step(phase, 0, 0, counters, rtlCycles, exact, difference, golden, rtlSeconds, vectors,
        pipeIssues);
  }
}
