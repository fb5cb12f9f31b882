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
    s.append("puts \"==== power\"\n").append(REPORT_POWER);
    if (!gatedTcl.isEmpty()) {
      s.append(GatedClocks.REPORT);
    }
    return s.toString();
  }

  /**
   * {@code report_power}, and should its Tcl arithmetic meet a NaN, the design's total summed over the instances with
   * a NaN component counted as 0 (and their number printed). OpenSTA 2.0.17 computes an instance's internal power from
   * the ratio of an input's activity to the output's ({@code Power::findInternalPower}); down a long AND chain of
   * rarely-high signals the propagated activities underflow (10^-33 toggles/s on the 1-lane DSP's loads/stores run),
   * the ratio overflows, and the cell's internal power is NaN although its activity is nil. Tcl reports that NaN as
   * "can't use non-numeric floating-point value" or, where an operation yields it (the tiny NPU's controller since its
   * X walk rests at 0, 2026-12-07), as "domain error: argument not in valid range".
   */
  static final String REPORT_POWER = """
      if {[catch {report_power -digits 6} llmnpu_error]} {
        if {![string match "*non-numeric floating-point*" $llmnpu_error]
            && ![string match "*domain error*" $llmnpu_error]} { error $llmnpu_error }
        set llmnpu_corner [sta::cmd_corner]
        set llmnpu_sum {0.0 0.0 0.0}
        set llmnpu_nan 0
        foreach llmnpu_inst [get_cells *] {
          set llmnpu_parts {}
          set llmnpu_bad 0
          foreach llmnpu_v [lrange [sta::instance_power $llmnpu_inst $llmnpu_corner] 0 2] {
            if {[string match -nocase "*nan*" $llmnpu_v] || [string match -nocase "*inf*" $llmnpu_v]} {
              set llmnpu_v 0.0
              set llmnpu_bad 1
            }
            lappend llmnpu_parts $llmnpu_v
          }
          incr llmnpu_nan $llmnpu_bad
          set llmnpu_sum [lmap a $llmnpu_sum b $llmnpu_parts {expr {$a + $b}}]
        }
        lassign $llmnpu_sum llmnpu_i llmnpu_s llmnpu_l
        puts [format "Total %.6e %.6e %.6e %.6e" $llmnpu_i $llmnpu_s $llmnpu_l [expr {$llmnpu_i + $llmnpu_s + $llmnpu_l}]]
        puts "==== NaN cells $llmnpu_nan"
      }
      """;

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
    List<MacroReadActivity.Bit> reads = annotation == null || !hasMacros ? List.of()
        : MacroReadActivity.bits(synth.netlist(), netlist, synth.macros(), run, annotation.meanRegisterActivity());
    String readNote = reads.isEmpty() ? "" : MacroReadActivity.describe(reads);
    try {
      if (annotation != null) {
        out = simulatedPower(top, constraints, o, annotation, reads, gatedTcl, synth, lib, sramLib);
      } else {
        out = statedPower(top, constraints, o, gatedTcl, synth.netlist(), lib, sramLib);
      }
    } catch (ToolFailure e) {
      if (!powerFailed(e)) {
        throw e;
      }
      // not seen since the SRAM library gives every read-data bit a function (SramLiberty); should OpenSTA 2.0.17
      // still fail, the same activity on every net does not crash it, and the report says which was used
      out = cachedRun(script(top, hasMacros, constraints, o, true, null, gatedTcl), lib, sramLib, synth.netlist());
      global = true;
    }
    PowerResult power = StaReports.parsePower(out, o, global);
    java.util.regex.Matcher nan = java.util.regex.Pattern.compile("(?m)^==== NaN cells (\\d+)$").matcher(out);
    String cutNote = (global ? "" : readNote) + (gated.isEmpty() ? "" : gated.describe(duties, GatedClocks.movedPins(out)))
        + (nan.find() ? "; " + nan.group(1) + " cells' internal power NaN in OpenSTA 2.0.17 (activity underflow), "
        + "counted as 0" : "");
    if (annotation != null && !global) {
      power = new PowerResult(annotation.meanInputActivity(), annotation.describe() + cutNote, new TreeMap<>(),
          power.internalMw(), power.switchingMw(), power.leakageMw(), power.totalMw());
    } else if (!cutNote.isEmpty()) {
      power = new PowerResult(power.activity(), power.activityModel() + cutNote, power.portActivities(),
          power.internalMw(), power.switchingMw(), power.leakageMw(), power.totalMw());
    }
    return new StaResult(StaReports.parseTiming(out, o.clockNs(), clockPort, netlist), power);
  }

  /**
   * Timing and power with the options' stated activity: timing of the netlist as synthesized, power of the netlist with
   * its constants driven from the two held tie ports ({@link ConstantTies}), as for a simulated run. Left as literals,
   * the constants crash OpenSTA 2.0.17's activity propagation on large netlists (a segmentation fault in
   * {@code report_power}: the default NPU since the strided DSP copies, 2026-12-06, whose propagation then fell back to
   * one activity on every net), and they would toggle at the {@code -input} default.
   */
  private String statedPower(String top, TimingConstraints constraints, PpaOptions o, String gatedTcl, String netlist,
      String lib, String sramLib) {
    boolean hasMacros = !sramLib.isEmpty();
    String tied = ConstantTies.tied(netlist);
    if (tied.equals(netlist)) {
      return cachedRun(script(top, hasMacros, constraints, o, false, null, gatedTcl), lib, sramLib, netlist);
    }
    String activity = statedActivity(o) + ConstantTies.activityTcl();
    return timingThenPower(top, constraints, o, activity, gatedTcl, netlist, lib, sramLib, tied, lib, sramLib);
  }

  /**
   * The timing report of {@code netlist} (the run {@code script} cut before the power) followed by the power of
   * {@code powerNetlist} with {@code activityTcl} and its libraries.
   */
  private String timingThenPower(String top, TimingConstraints constraints, PpaOptions o, String activityTcl,
      String gatedTcl, String netlist, String lib, String sramLib, String powerNetlist, String powerLib,
      String powerSramLib) {
    boolean hasMacros = !sramLib.isEmpty();
    String full = script(top, hasMacros, constraints, o, false, "", "");
    String timing = cachedRun(full.substring(0, full.indexOf("puts \"==== power\"")), lib, sramLib, netlist);
    String power = cachedRun(script(top, hasMacros, constraints, o, false, activityTcl, gatedTcl), powerLib,
        powerSramLib, powerNetlist);
    return timing + power.substring(power.indexOf("==== power"));
  }

  /**
   * Timing and power of a simulated run: timing of the netlist as synthesized, power with every sequential output's
   * and constant's activity stated, so that no pin takes OpenSTA's {@code -input} default — input ports and
   * flip-flops from the run ({@link ActivityAnnotation}; OpenSTA derives a flip-flop's output from its D input), the
   * SRAM read data from the run or its ports' activity ({@link MacroReadActivity}, with {@link
   * SramLiberty#powerLibrary}), and the constants driven from two held tie ports ({@link ConstantTies}: OpenSTA 2.0.17
   * gives a literal constant's pins its {@code -input} default, toggling at that rate with duty 1/2).
   */
  private String simulatedPower(String top, TimingConstraints constraints, PpaOptions o, ActivityAnnotation annotation,
      List<MacroReadActivity.Bit> reads, String gatedTcl, SynthesisResult synth, String lib, String sramLib) {
    StringBuilder activity = new StringBuilder(annotation.tcl()).append(MacroReadActivity.tcl(reads));
    String powerSramLib = synth.macros().isEmpty() ? sramLib : SramLiberty.powerLibrary(synth.macros());
    String tied = ConstantTies.tied(synth.netlist());
    if (!tied.equals(synth.netlist())) {
      activity.append(ConstantTies.activityTcl());
    }
    String powerNetlist = FlopPowerCells.netlist(tied, FlopPowerCells.flipFlopCells(lib));
    return timingThenPower(top, constraints, o, activity.toString(), gatedTcl, synth.netlist(), lib, sramLib,
        powerNetlist, FlopPowerCells.library(lib), powerSramLib);
  }

  /**
   * OpenSTA 2.0.17 failing in its power analysis: a segfault while propagating activity, or a
   * NaN in {@code report_power}'s arithmetic ("can't use non-numeric floating-point value").
   */
  static boolean powerFailed(ToolFailure e) {
    return e.crashed() || e.getMessage().contains("non-numeric floating-point value")
        || e.getMessage().contains("domain error: argument not in valid range");
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
