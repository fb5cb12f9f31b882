package org.llmnpu.reports.ppa;

import java.util.Map;
import org.llmnpu.hdl.emit.VerilogDesign;
import org.llmnpu.reports.activity.SimulatedActivity;

/**
 * The PPA flow for one design: Yosys synthesis to the standard-cell library (SRAM macros kept
 * as black boxes), then OpenSTA timing and power on the gate netlist. Both tool runs are
 * cached by content hash, so repeating a run with the same Verilog and options is instant and
 * gives identical numbers. Each run's timing is also kept under the design and clock
 * ({@link CachedTiming}), for commands that need a design's Fmax without running the tools.
 */
public final class PpaFlow {
  private PpaFlow() {
  }

  /** PPA of a design given as Verilog (no generator parameters). */
  public static PpaResult run(VerilogDesign design, PpaOptions options) {
    return run(design, Map.of(), options);
  }

  /** PPA of a design generated with the given parameters (recorded in the result). */
  public static PpaResult run(VerilogDesign design, Map<String, String> params, PpaOptions options) {
    return run(design, params, options, null);
  }

  /**
   * PPA with the switching activity of a simulated run of this design (its VCD read by
   * {@link SimulatedActivity#read}); null means the options' stated activity. A simulated run this JVM made before
   * with the same inputs is taken from {@link SimulatedRunMemo}, not redone.
   */
  public static PpaResult run(VerilogDesign design, Map<String, String> params, PpaOptions options,
      SimulatedActivity activity) {
    SynthesisResult synth = new YosysSynthesis(options.liberty(), options.cache(), options.flatten(),
        Math.round(options.clockNs() * 1000)).run(design);
    OpenSta openSta = new OpenSta(options.liberty(), options.cache());
    // a simulated run this JVM made before (a job graph's power run, then the table that reads it) is not redone
    OpenSta.StaResult sta = activity == null ? openSta.run(design.top(), synth, options)
        : SimulatedRunMemo.get(design.top(), synth, options, activity,
            () -> openSta.run(design.top(), synth, options, activity));
    CachedTiming.put(design, options, sta.timing());
    return new PpaResult(design.top(), params, synth, sta.timing(), sta.power());
  }
}
