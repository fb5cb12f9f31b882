package org.llmnpu.reports.ppa;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.llmnpu.reports.activity.SimulatedActivity;

/**
 * The gated clock nets of a netlist, made ideal for OpenSTA's power analysis. A clock gate of hw-dsl
 * ({@code llmnpu_clock_gate}, instance {@code <bank>_clockGate}) drives every flip-flop clock pin of its bank from one
 * AND cell, with no clock tree: OpenSTA 2.0.17 computes that net's slew from its whole load (tens of ns on a
 * thousand pins), extrapolates the flip-flops' clock-pin internal energy from it (the default NPU drew 2,670 W) and
 * charges the pins the full clock activity whatever the enable does. {@code set_ideal_network},
 * {@code set_ideal_transition}, {@code set_propagated_clock} and pin activities on the gate's output are accepted by
 * this OpenSTA and change nothing (checked); {@code set_assigned_transition} fixes the slew but not the activity.
 *
 * <p>So, after the timing report (which stays that of the netlist as synthesized), {@link #tcl} moves each gated
 * bank's clock pins onto a net of their own without a driver — an ideal clock net like the clock port's, whose
 * switching OpenSTA does not charge either — and creates on those pins a clock of period {@code T / d}, where
 * {@code d} is the fraction of cycles the gate is open: the clock pins see {@code d} of the clock's edges, at zero
 * slew, and their internal power is the ungated bank's × {@code d} (a gate open every cycle gives the ungated
 * design's power; one never open, none). The gate's latch and AND keep their own power (the AND's output load is
 * gone with its pins: the gated net's switching is not charged, like the ungated clock's).
 *
 * <p>The open fraction of a gate is the one {@link PpaOptions#gateDuties()} states for it, else the simulated run's
 * when it dumped the gate's latched enable ({@code <bank>_clockGate.enable_latched}: its time at one; it changes
 * only while the clock is low, so that is the fraction of rising edges the gate lets through), else 1 (open every
 * cycle, the upper bound: the ungated design's power).
 *
 * @param banks the gated banks found, by the path of their gate ({@code gemmEngine}, {@code dspPath_dspUnit})
 */
record GatedClocks(List<String> banks) {
  /** The suffix of a gate's output net in a flattened Yosys netlist (the cell's {@code gated_clk} port). */
  static final String NET_SUFFIX = "_clockGate.gated_clk";
  private static final Pattern WIRE = Pattern.compile("(?m)^\\s*wire\\s+\\\\?(\\S+)" + Pattern.quote(NET_SUFFIX)
      + "\\s*;");

  /** The gated banks of a gate netlist (none when it has no clock gates). */
  static GatedClocks of(String netlist) {
    TreeSet<String> found = new TreeSet<>();
    if (netlist.contains(NET_SUFFIX)) {
      Matcher m = WIRE.matcher(netlist);
      while (m.find()) {
        found.add(m.group(1));
      }
    }
    return new GatedClocks(List.copyOf(found));
  }

  boolean isEmpty() {
    return banks.isEmpty();
  }

  /** The open fraction of each bank's gate: the options', else the simulated run's, else 1. */
  Map<String, Double> duties(PpaOptions o, SimulatedActivity run) {
    Map<String, Double> out = new java.util.TreeMap<>();
    for (String b : banks) {
      double d = o.gateDuties().getOrDefault(b, -1.0);
      if (d < 0) {
        d = run == null ? -1 : run.duty(b + "_clockGate.enable_latched");
      }
      if (d < 0) {
        d = 1;
      }
      out.put(b, Math.max(0, Math.min(1, d)));
    }
    return out;
  }

  /** The Tcl that makes every gated clock net ideal with its gate's open fraction, for a clock of {@code clockNs}. */
  String tcl(double clockNs, Map<String, Double> duties) {
    StringBuilder s = new StringBuilder();
    s.append("# gated clocks made ideal for power (llmnpu GatedClocks): each bank's clock pins on an undriven net,\n")
        .append("# clocked at the period over the gate's open fraction\n")
        .append("set llmnpu_gated_pins {}\n")
        .append("proc llmnpu_ideal_gated_clock {net name period} {\n")
        .append("  set loads {}\n")
        .append("  foreach p [get_pins -quiet -of_objects [get_nets -quiet $net]] {\n")
        .append("    if {[get_property $p direction] == \"input\"} { lappend loads $p }\n")
        .append("  }\n")
        .append("  global llmnpu_gated_pins\n")
        .append("  lappend llmnpu_gated_pins [llength $loads]\n")
        .append("  if {[llength $loads] == 0} { return }\n")
        .append("  set ideal [make_net ${name}_llmnpu_ideal]\n")
        .append("  foreach p $loads { disconnect_pin $net $p; connect_pin $ideal $p }\n")
        .append("  if {$period > 0} {\n")
        .append("    create_clock -name $name -period $period -add $loads\n")
        .append("  } else {\n")
        .append("    foreach p $loads { sta::set_power_pin_activity $p 0 0 }\n")
        .append("  }\n")
        .append("}\n");
    int i = 0;
    for (String b : banks) {
      double d = duties.getOrDefault(b, 1.0);
      double period = d <= 0 ? 0 : clockNs / d;
      s.append(String.format(Locale.ROOT, "llmnpu_ideal_gated_clock {%s%s} gated_clock_%d %.6f%n", b, NET_SUFFIX,
          i++, period));
    }
    return s.toString();
  }

  /** The Tcl, after the power report, that prints the clock pins moved per bank. */
  static final String REPORT = "puts \"==== gated pins $llmnpu_gated_pins\"\n";

  /** The clock pins OpenSTA moved per bank (the {@link #REPORT} line of its output), in bank order. */
  static List<Integer> movedPins(String out) {
    List<Integer> pins = new ArrayList<>();
    Matcher m = Pattern.compile("(?m)^==== gated pins ([0-9 ]*)$").matcher(out);
    if (m.find()) {
      for (String n : m.group(1).strip().split("\\s+")) {
        if (!n.isEmpty()) {
          pins.add(Integer.parseInt(n));
        }
      }
    }
    return pins;
  }

  /** A one-line description for the power result's activity model. */
  String describe(Map<String, Double> duties, List<Integer> moved) {
    StringBuilder s = new StringBuilder("; gated clocks ideal (clock pins at the gate's open fraction): ");
    for (int i = 0; i < banks.size(); i++) {
      s.append(i == 0 ? "" : ", ").append(String.format(Locale.ROOT, "%s %.4f", banks.get(i),
          duties.getOrDefault(banks.get(i), 1.0)));
      if (i < moved.size()) {
        s.append(" (").append(moved.get(i)).append(" pins)");
      }
    }
    return s.toString();
  }
}
