package org.llmnpu.reports.ppa;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.llmnpu.hdl.tools.ProcessCleanup;
import org.llmnpu.reports.activity.SimulatedActivity;

/**
 * Static timing and power of a gate netlist with OpenSTA ({@code sta}): reads the liberty of
 * the cells and of the SRAM black boxes, creates the clock on the clock port (or a virtual
 * clock when there is none), constrains all other inputs and outputs with zero delay to that
 * clock, reports the worst setup path and {@code report_power}. Power uses a stated switching
 * activity on every data input ({@code set_power_activity -input}), optionally overridden per
 * port, which OpenSTA propagates through the logic to every net.
 * Results are cached by content hash.
 */
public final class OpenSta {
  private static final long TIMEOUT_SECONDS = 3600;

  private final Path liberty;
  private final ContentCache cache;

  public OpenSta(Path liberty, ContentCache cache) {
    this.liberty = liberty;
    this.cache = cache;
  }

  /**
   * The OpenSTA script: the liberty files, the netlist, the block's {@link TimingConstraints} (the
   * same SDC text {@code npu generate} writes: clock, zero I/O delays, reset false path), the
   * worst setup path and power.
   */
  String script(String top, boolean hasMacros, TimingConstraints constraints, PpaOptions o,
      boolean globalActivity) {
    return script(top, hasMacros, constraints, o, globalActivity, null, "");
  }

  /**
   * The script; {@code activityTcl}, when given, sets the activity instead of the options; {@code gatedTcl} (after
   * the timing report, so timing is the netlist's as synthesized) makes gated clock nets ideal for power
   * ({@link GatedClocks}).
   */
  String script(String top, boolean hasMacros, TimingConstraints constraints, PpaOptions o,
      boolean globalActivity, String activityTcl, String gatedTcl) {
    StringBuilder s = new StringBuilder("read_liberty lib.lib\n");
    if (hasMacros) {
      s.append("read_liberty sram.lib\n");
    }
    s.append("read_verilog netlist.v\nlink_design ").append(top).append('\n');
    s.append(constraints.sdc(top));
    s.append("puts \"==== timing\"\n");
    s.append("report_checks -path_delay max -digits 4 -group_count 1\n");
    s.append(gatedTcl);
    if (activityTcl != null && !globalActivity) {
      s.append(activityTcl);
    } else if (globalActivity) {
      s.append("set_power_activity -global -activity ").append(o.activity()).append('\n');
    } else {
      s.append(statedActivity(o));
    }
    s.append("puts \"==== power\"\nreport_power -digits 6\n");
    if (!gatedTcl.isEmpty()) {
      s.append(GatedClocks.REPORT);
    }
    return s.toString();
  }

  /** Runs timing and power on a synthesized design. */
  public StaResult run(String top, SynthesisResult synth, PpaOptions o) {
    return run(top, synth, o, null);
  }

  /**
   * Runs timing and power with the switching activity of a simulated run of the same design
   * ({@link ActivityAnnotation}); {@code run} null means the options' stated activity.
   */
  public StaResult run(String top, SynthesisResult synth, PpaOptions o, SimulatedActivity run) {
    if (run != null && !run.top().equals(top)) {
      throw new IllegalArgumentException("--activity-vcd: the run simulated module " + run.top()
          + ", but the report is of " + top + " (generate both with the same parameters)");
    }
    GateNetlist netlist = new GateNetlist(top, synth.netlist());
    Set<String> inputs = netlist.inputPorts();
    for (String port : o.portActivities().keySet()) {
      if (!inputs.contains(port)) {
        throw new IllegalArgumentException(String.format("--port-activity: '%s' is not an input port of %s; "
            + "input ports: %s", port, top, String.join(", ", inputs)));
      }
    }
    TimingConstraints constraints = TimingConstraints.of(netlist.ports(), o.clockNs(), o.clockPort());
    String clockPort = constraints.clockPort();
    boolean hasMacros = !synth.macros().isEmpty();
    String sramLib = hasMacros ? SramLiberty.library(synth.macros()) : "";
    String lib = YosysSynthesis.read(liberty);
    ActivityAnnotation annotation = run == null ? null : ActivityAnnotation.of(netlist, run, clockPort);
    String activityTcl = annotation == null ? null : annotation.tcl();
    GatedClocks gated = GatedClocks.of(synth.netlist());
    for (String bank : o.gateDuties().keySet()) {
      if (!gated.banks().contains(bank)) {
        throw new IllegalArgumentException(String.format("--gate-duty: '%s' is not a clock gate of %s; gates: %s", bank,
            top, gated.isEmpty() ? "none" : String.join(", ", gated.banks())));
      }
    }
    Map<String, Double> duties = gated.duties(o, run);
    String gatedTcl = gated.isEmpty() ? "" : gated.tcl(o.clockNs(), duties);
    String out;
    boolean global = false;
    boolean cut = false;
    boolean tied = false;
    String readNote = "";
    String powerNetlist = synth.netlist();
    try {
      if (annotation != null && hasMacros) {
        // a simulated run: the macros' read data gets its own activity (MacroReadActivity), not OpenSTA's default
        List<MacroReadActivity.Bit> reads = MacroReadActivity.bits(synth.netlist(), netlist, synth.macros(), run,
            annotation.meanRegisterActivity());
        readNote = MacroReadActivity.describe(reads);
        // OpenSTA's -input default also reaches pins that have no activity of their own, not only ports: on the whole
        // NPU's loads/stores run the mean input activity as that default drew 5.5 W against 2.15 W at 0 (reports
        // README). Stating the run's mean register activity instead made the blocks' calibration differences go
        // negative (PPU_LOOKUP -52 pJ in CalibrationTest), so this run keeps the mean input activity: open.
        activityTcl = activityTcl + MacroReadActivity.tcl(reads);
        powerNetlist = MacroReadActivity.powerNetlist(synth.netlist(), reads);
        out = timingAndPower(top, constraints, o, activityTcl, gatedTcl, lib, sramLib, synth.netlist(), powerNetlist);
      } else {
        out = cachedRun(script(top, hasMacros, constraints, o, false, activityTcl, gatedTcl), lib, sramLib,
            synth.netlist());
      }
    } catch (ToolFailure e) {
      if (!powerFailed(e)) {
        throw e;
      }
      out = withConstantsTied(top, hasMacros, constraints, o, activityTcl, gatedTcl, synth, lib, sramLib,
          powerNetlist);
      if (out == null && !readNote.isEmpty()) {
        // OpenSTA crashed on the netlist with the read data driven from ports (the whole NPU): the read data (and
        // any flip-flop the run did not name) at the run's mean register activity, not its mean input activity
        readNote = String.format(java.util.Locale.ROOT, "; SRAM read data at the run's mean register activity, %.4f "
            + "toggles/cycle (the netlist with read-data ports crashed OpenSTA 2.0.17)",
            annotation.meanRegisterActivity());
        activityTcl = annotation.tclWithDefault(annotation.meanRegisterActivity());
        out = withConstantsTied(top, hasMacros, constraints, o, activityTcl, gatedTcl, synth, lib, sramLib,
            synth.netlist());
      }
      tied = out != null;
      if (out == null && hasMacros) {
        out = withMacroOutputsCut(top, constraints, o, activityTcl, gatedTcl, netlist, synth, run, annotation, lib,
            sramLib);
        cut = out != null;
      }
      if (out == null) {
        // OpenSTA 2.0.17 segfaults propagating input activities through some netlists; the
        // same activity on every net does not crash, and the report says which was used
        out = cachedRun(script(top, hasMacros, constraints, o, true, null, gatedTcl), lib, sramLib, synth.netlist());
        global = true;
      }
    }
    PowerResult power = StaReports.parsePower(out, o, global);
    String cutNote = (global ? "" : readNote)
        + (cut ? "; SRAM read data cut for OpenSTA 2.0.17, the pins it drove given its activity"
        : tied ? "; constants driven from held tie ports for OpenSTA 2.0.17" : "")
        + (gated.isEmpty() ? "" : gated.describe(duties, GatedClocks.movedPins(out)));
    if (annotation != null && !global) {
      power = new PowerResult(annotation.meanInputActivity(), annotation.describe() + cutNote, new TreeMap<>(),
          power.internalMw(), power.switchingMw(), power.leakageMw(), power.totalMw());
    } else if (cut || tied || !readNote.isEmpty() || !gated.isEmpty()) {
      power = new PowerResult(power.activity(), power.activityModel() + cutNote, power.portActivities(),
          power.internalMw(), power.switchingMw(), power.leakageMw(), power.totalMw());
    }
    return new StaResult(StaReports.parseTiming(out, o.clockNs(), clockPort, netlist), power);
  }

  /**
   * Timing of the netlist as it is, and power of the netlist with its constants driven from two
   * held input ports ({@link ConstantTies}); null if OpenSTA crashes even so.
   */
  private String withConstantsTied(String top, boolean hasMacros, TimingConstraints constraints, PpaOptions o,
      String activityTcl, String gatedTcl, SynthesisResult synth, String lib, String sramLib, String powerNetlist) {
    String tiedNetlist = ConstantTies.tied(powerNetlist);
    if (tiedNetlist.equals(powerNetlist)) {
      return null;
    }
    String activity = (activityTcl != null ? activityTcl : statedActivity(o)) + ConstantTies.activityTcl();
    try {
      return timingAndPower(top, constraints, o, activity, gatedTcl, lib, sramLib, synth.netlist(), tiedNetlist);
    } catch (ToolFailure e) {
      if (powerFailed(e)) {
        return null;
      }
      throw e;
    }
  }

  /**
   * Timing of {@code netlist} as it is and power of {@code powerNetlist} (the same netlist changed for OpenSTA's power
   * analysis only) with {@code activityTcl}: the timing run's timing section and the power run's power.
   */
  private String timingAndPower(String top, TimingConstraints constraints, PpaOptions o, String activityTcl,
      String gatedTcl, String lib, String sramLib, String netlist, String powerNetlist) {
    boolean hasMacros = !sramLib.isEmpty();
    String full = script(top, hasMacros, constraints, o, false, "", "");
    String timing = cachedRun(full.substring(0, full.indexOf("puts \"==== power\"")), lib, sramLib, netlist);
    String power = cachedRun(script(top, hasMacros, constraints, o, false, activityTcl, gatedTcl), lib, sramLib,
        powerNetlist);
    return timing + power.substring(power.indexOf("==== power"));
  }

  /**
   * Timing of the netlist as it is, and power of the netlist with the SRAM macros' read data
   * cut ({@link MacroOutputs}), the pins that data drove getting its activity; null if OpenSTA
   * crashes even so. The output is the timing run's timing section and the power run's power.
   */
  private String withMacroOutputsCut(String top, TimingConstraints constraints, PpaOptions o,
      String activityTcl, String gatedTcl, GateNetlist netlist, SynthesisResult synth, SimulatedActivity run,
      ActivityAnnotation annotation, String lib, String sramLib) {
    String full = script(top, true, constraints, o, false, "", "");
    String timingOnly = full.substring(0, full.indexOf("puts \"==== power\""));
    double fallback = annotation == null ? o.activity() : annotation.meanRegisterActivity();
    StringBuilder loads = new StringBuilder(activityTcl != null ? activityTcl : statedActivity(o));
    for (var e : MacroOutputs.drivenBits(synth.netlist()).entrySet()) {
      for (String prefix : netlist.prefixesOf(e.getKey())) {
        for (String bit : e.getValue()) {
          String net = prefix + bit;
          double a = run == null ? -1 : run.activity(net.replace('/', '.'));
          double d = run == null ? -1 : run.duty(net.replace('/', '.'));
          loads.append(String.format(java.util.Locale.ROOT, "foreach p [get_pins -of_objects [get_nets {%s}]] "
              + "{ if {[get_property $p direction] == \"input\"} { sta::set_power_pin_activity $p %.4f %.4f } }%n",
              net, a < 0 ? fallback : Math.min(2, a), d < 0 ? 0.5 : d));
        }
      }
    }
    try {
      String timing = cachedRun(timingOnly, lib, sramLib, synth.netlist());
      String power = cachedRun(script(top, true, constraints, o, false, loads.toString(), gatedTcl), lib, sramLib,
          MacroOutputs.disconnected(synth.netlist()));
      return timing + power.substring(power.indexOf("==== power"));
    } catch (ToolFailure e) {
      if (powerFailed(e)) {
        return null;
      }
      throw e;
    }
  }

  /**
   * OpenSTA 2.0.17 failing in its power analysis: a segfault while propagating activity, or a
   * NaN in {@code report_power}'s arithmetic ("can't use non-numeric floating-point value").
   */
  static boolean powerFailed(ToolFailure e) {
    return e.crashed() || e.getMessage().contains("non-numeric floating-point value");
  }

  /** The stated activity: every data input, and the per-port values. */
  private static String statedActivity(PpaOptions o) {
    StringBuilder s = new StringBuilder("set_power_activity -input -activity ").append(o.activity()).append('\n');
    for (var e : o.portActivities().entrySet()) {
      s.append("set_power_activity -input_ports [get_ports {").append(e.getKey()).append("}] -activity ")
          .append(e.getValue()).append('\n');
    }
    return s.toString();
  }

  /**
   * One OpenSTA run through the cache. A power crash (a segmentation fault or OpenSTA's NaN, which
   * the caller works around) is cached too, as the exit code and message, so a warm run does not
   * crash OpenSTA again for a minute on a large netlist before taking the workaround. Runs that need the same absent
   * entry at the same time (parallel jobs of one flow: the power runs of one netlist share its timing run) make it
   * once ({@link ContentCache#getOrCompute}); the others wait and read it.
   */
  private String cachedRun(String script, String lib, String sramLib, String netlist) {
    String key = ContentCache.key(List.of("sta", ToolVersions.sta(), script, lib, sramLib, netlist));
    Map<String, String> entry = cache.getOrCompute(key, () -> {
      try {
        return Map.of("sta.out", runSta(script, lib, sramLib, netlist));
      } catch (ToolFailure e) {
        // a segmentation fault or OpenSTA's NaN is deterministic; other deaths (killed, out of memory) are not cached
        if (powerFailed(e) && (e.exitCode() == 139 || !e.crashed())) {
          return Map.of("sta.crash", e.exitCode() + "\n" + e.getMessage());
        }
        throw e;
      }
    });
    if (entry.containsKey("sta.out")) {
      return entry.get("sta.out");
    }
    String[] c = entry.getOrDefault("sta.crash", "1\nOpenSTA: cached entry without output").split("\n", 2);
    throw new ToolFailure("sta", c.length > 1 ? c[1] : "OpenSTA crashed (cached)", List.of(),
        Integer.parseInt(c[0].strip()));
  }

  /** Timing and power of one run. */
  public record StaResult(TimingResult timing, PowerResult power) {
  }

  private String runSta(String script, String lib, String sramLib, String netlist) {
    Path work = null;
    try {
      work = ProcessCleanup.tempDirectory("llmnpu-sta-");
      Files.writeString(work.resolve("lib.lib"), lib, StandardCharsets.UTF_8);
      Files.writeString(work.resolve("sram.lib"), sramLib, StandardCharsets.UTF_8);
      Files.writeString(work.resolve("netlist.v"), netlist, StandardCharsets.UTF_8);
      Files.writeString(work.resolve("run.tcl"), script, StandardCharsets.UTF_8);
      String out;
      try {
        out = ToolRunner.run(List.of("sta", "-no_init", "-no_splash", "-exit", "run.tcl"), work, TIMEOUT_SECONDS);
      } catch (ToolFailure e) {
        if (powerFailed(e) && System.getenv("LLMNPU_KEEP_STA_CRASH") == null) {
          ProcessCleanup.delete(work); // the caller retries; kept only when asked, to debug OpenSTA
        }
        throw e;
      }
      ProcessCleanup.delete(work);
      return out;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot prepare the OpenSTA run in " + work + ": " + e.getMessage(), e);
    } finally {
      ProcessCleanup.keep(work); // deleted above on success; a failed run's files stay for inspection
    }
  }
}
