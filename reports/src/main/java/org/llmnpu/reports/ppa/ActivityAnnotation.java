package org.llmnpu.reports.ppa;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.llmnpu.reports.activity.SimulatedActivity;

/**
 * The switching activity of a simulated run, put on a gate netlist for OpenSTA's power
 * analysis: every input port bit and every flip-flop output (Q pin) whose register bit the
 * run dumped gets its own activity (toggles per cycle) and duty (fraction of time at 1);
 * OpenSTA propagates them through the combinational logic between. Registers are matched by
 * the net name on their Q pin, which Yosys keeps from the RTL ({@code pe_1_2/psum_q[31]} ↔
 * the VCD's {@code pe_1_2.psum_q[31]}). Input bits the run did not dump take the mean input
 * activity of the run, flip-flops whose register it did not dump (or whose Q net has no name) its mean register
 * activity (duty 1/2); both counts are in {@link #describe}.
 *
 * @param tcl                 the {@code set_power_activity} commands
 * @param flipFlops           flip-flops in the netlist
 * @param annotatedFlipFlops  of which the run gave the activity
 * @param inputBits           input port bits (without the clock)
 * @param annotatedInputs     of which the run gave the activity
 * @param meanInputActivity   mean toggles per cycle over the annotated input bits
 * @param meanRegisterActivity mean toggles per cycle over the annotated flip-flops
 * @param cycles              clock cycles of the run
 */
public record ActivityAnnotation(String tcl, int flipFlops, int annotatedFlipFlops, int inputBits,
                                 int annotatedInputs, double meanInputActivity, double meanRegisterActivity,
                                 long cycles) {

  /** A one-line description for reports. */
  public String describe() {
    return String.format(Locale.ROOT, "simulated: %d cycles; %d of %d flip-flops and %d of %d input bits annotated "
            + "(mean %.4f and %.4f toggles/cycle; the other %d flip-flops and %d input bits at those means), "
            + "propagated through the logic by OpenSTA", cycles, annotatedFlipFlops, flipFlops, annotatedInputs,
        inputBits, meanRegisterActivity, meanInputActivity, flipFlops - annotatedFlipFlops, inputBits - annotatedInputs);
  }

  static ActivityAnnotation of(GateNetlist netlist, SimulatedActivity run, String clockPort) {
    Map<String, List<String>> portGroups = new TreeMap<>();
    Map<String, List<String>> pinGroups = new TreeMap<>();
    List<String> inputs = new ArrayList<>(netlist.inputBits());
    inputs.remove(clockPort);
    int annotatedInputs = 0;
    double inputSum = 0;
    List<String> undumped = new ArrayList<>();
    for (String bit : inputs) {
      double a = run.activity(bit);
      if (a >= 0) {
        annotatedInputs++;
        inputSum += a;
        portGroups.computeIfAbsent(key(a, run.duty(bit)), k -> new ArrayList<>()).add(bit);
      } else {
        undumped.add(bit);
      }
    }
    Map<String, String> ffs = netlist.flipFlops();
    int annotatedFfs = 0;
    double regSum = 0;
    List<String> unnamed = new ArrayList<>();
    for (var e : ffs.entrySet()) {
      String bit = e.getValue() == null ? null : e.getValue().replace('/', '.');
      double a = bit == null ? -1 : run.activity(bit);
      if (a >= 0) {
        annotatedFfs++;
        regSum += a;
        pinGroups.computeIfAbsent(key(a, run.duty(bit)), k -> new ArrayList<>()).add(e.getKey() + "/Q");
      } else {
        unnamed.add(e.getKey() + "/Q");
      }
    }
    double meanReg = annotatedFfs == 0 ? 0 : regSum / annotatedFfs;
    if (!unnamed.isEmpty()) {
      // a flip-flop whose register the run did not dump (its Q net lost its RTL name) switches like the run's average
      // register; stated, since OpenSTA keeps a flip-flop's own activity in the power run (FlopPowerCells)
      pinGroups.computeIfAbsent(key(meanReg, 0.5), k -> new ArrayList<>()).addAll(unnamed);
    }
    double meanIn = annotatedInputs == 0 ? 0 : inputSum / annotatedInputs;
    if (!undumped.isEmpty()) {
      // stated port by port, so that the input default below reaches only pins that are not ports
      portGroups.computeIfAbsent(key(Math.min(1, meanIn), 0.5), k -> new ArrayList<>()).addAll(undumped);
    }
    // OpenSTA 2.0.17 gives its -input default to every pin without an activity of its own, not only to ports; in a
    // simulated run every input bit, register, SRAM read-data bit and constant has its own (OpenSta#simulatedPower),
    // so the default is 0: a pin nothing states does not switch, rather than switch at an invented rate
    StringBuilder tcl = new StringBuilder("set_power_activity -input -activity 0\n");
    portGroups.forEach((k, bits) -> chunks(bits).forEach(c -> tcl.append("foreach p [get_ports {")
        .append(String.join(" ", c)).append("}] { sta::set_power_input_port_activity $p ").append(k).append(" }\n")));
    // set_power_activity -pins is broken in this OpenSTA (it calls an undefined get_pins_error and
    // only sets input pins); its primitive sets any pin
    pinGroups.forEach((k, pins) -> chunks(pins).forEach(c -> tcl.append("foreach p [get_pins {")
        .append(String.join(" ", c)).append("}] { sta::set_power_pin_activity $p ").append(k).append(" }\n")));
    return new ActivityAnnotation(tcl.toString(), ffs.size(), annotatedFfs, inputs.size(), annotatedInputs, meanIn,
        meanReg, run.cycles());
  }

  /** The options for one (activity, duty) pair; activity capped at 2 (a bit toggling twice a cycle). */
  private static String key(double activity, double duty) {
    double d = duty < 0 ? 0.5 : Math.max(0, Math.min(1, duty));
    return fmt(Math.min(2, activity)) + " " + fmt(d);
  }

  private static String fmt(double v) {
    return String.format(Locale.ROOT, "%.4f", v);
  }

  private static List<List<String>> chunks(List<String> names) {
    List<List<String>> out = new ArrayList<>();
    for (int i = 0; i < names.size(); i += 200) {
      out.add(names.subList(i, Math.min(names.size(), i + 200)));
    }
    return out;
  }
}
