package org.llmnpu.reports.ppa;

import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.llmnpu.reports.activity.SimulatedActivity;

/**
 * The switching activity of the SRAM macros' read data in a simulated run, for OpenSTA's power analysis: each read-data
 * pin gets the bit's activity ({@code sta::set_power_pin_activity}), which OpenSTA passes to the logic it drives (the
 * power library makes each bit its own function and gives clocked read ports an arc the propagation follows:
 * {@link SramLiberty#powerLibrary}).
 *
 * <p>Why: the macros are black boxes without a logic function, so OpenSTA 2.0.17 cannot derive their outputs'
 * activity. Without one of their own, their read data took OpenSTA's default, the {@code set_power_activity -input}
 * activity, whatever the macro did: while a DMA streamed random bytes through the memory port, the read data of every
 * idle unit's register files and buffers "toggled" at that rate into its datapath, and the whole NPU's loads/stores
 * run charged that switching to the DMA.
 *
 * <p>Each read-data bit gets, in this order:
 * <ol>
 *   <li>its own toggles in the run, when its net has an RTL name the run dumped;</li>
 *   <li>else an estimate from the run's activity at the macro's pins: an asynchronous read port's data (or a clocked
 *       port's next data) can change only in a cycle in which its address changes or the array is written, and
 *       then each bit toggles with probability 1/2 (data uncorrelated with the last word read), so
 *       {@code a = 0.5 · min(1, Σ toggles per cycle of the port's address bits + writes per cycle)}, with writes
 *       per cycle the largest duty of the write-enable bits; an address or enable bit the run did not dump counts
 *       {@code unknownActivity} (as toggles, or as writes per cycle).</li>
 * </ol>
 * Its duty is the run's when the run dumped it, else 1/2.
 */
final class MacroReadActivity {
  private MacroReadActivity() {
  }

  /**
   * The activity of one read-data bit and where it came from: {@code net} the net it drives (path from the top),
   * {@code pin} the macro's pin ({@code u.registers/RD_DATA[3]}).
   */
  record Bit(String net, String pin, double activity, double duty, boolean simulated) {
  }

  /**
   * The read-data bits of every macro of {@code netlist} ({@code gates} its parsed form, for the instance paths of
   * modules below the top) with their activity in {@code run}, named by their nets' paths from the top.
   */
  static List<Bit> bits(String netlist, GateNetlist gates, List<SramMacro> macros, SimulatedActivity run,
                        double unknownActivity) {
    Map<String, SramMacro> byType = new HashMap<>();
    macros.forEach(m -> byType.put(m.cellType(), m));
    List<Bit> out = new java.util.ArrayList<>();
    for (MacroOutputs.Instance inst : MacroOutputs.instances(netlist)) {
      for (String prefix : gates.prefixesOf(inst.module())) {
        add(out, inst, prefix, byType.get(inst.cellType()), run, unknownActivity);
      }
    }
    return out;
  }

  private static void add(List<Bit> out, MacroOutputs.Instance inst, String prefix, SramMacro m, SimulatedActivity run,
                          double unknownActivity) {
    List<String> data = inst.pins().getOrDefault("RD_DATA", List.of());
    List<String> addr = inst.pins().getOrDefault("RD_ADDR", List.of());
    if (m != null && data.size() != m.readPorts() * m.width()) {
      throw new IllegalStateException("the netlist's " + inst.cellType() + " " + inst.name() + " connects "
          + data.size() + " RD_DATA bits, its macro has " + m.readPorts() + " read ports of " + m.width() + " bits");
    }
    int ports = m != null ? m.readPorts() : 1;
    if (ports <= 0 || data.size() % ports != 0 || addr.size() % ports != 0) {
      ports = 1;
    }
    double writes = writesPerCycle(inst.pins().getOrDefault("WR_EN", List.of()), prefix, run, unknownActivity);
    int w = data.size() / ports;
    int a = addr.size() / ports;
    String pinPrefix = prefix + inst.name() + "/RD_DATA";
    for (int p = 0; p < ports; p++) {
      // Yosys concatenates the ports most significant first: port p is the p-th slice from the end
      double addressToggles = 0;
      for (String bit : addr.subList(addr.size() - (p + 1) * a, addr.size() - p * a)) {
        if (bit != null) {
          double t = run.activity((prefix + bit).replace('/', '.'));
          addressToggles += t < 0 ? unknownActivity : t;
        }
      }
      double estimate = 0.5 * Math.min(1, addressToggles + writes);
      for (int j = data.size() - (p + 1) * w; j < data.size() - p * w; j++) {
        String bit = data.get(j);
        if (bit == null) {
          continue;
        }
        String net = prefix + bit;
        double t = run.activity(net.replace('/', '.'));
        double d = run.duty(net.replace('/', '.'));
        // the pin list is most significant first: element j is pin bit size - 1 - j
        String pin = data.size() == 1 ? pinPrefix : pinPrefix + "[" + (data.size() - 1 - j) + "]";
        out.add(new Bit(net, pin, t < 0 ? estimate : Math.min(2, t), d < 0 ? 0.5 : d, t >= 0));
      }
    }
  }

  private static double writesPerCycle(List<String> enables, String prefix, SimulatedActivity run, double unknown) {
    double max = 0;
    for (String bit : enables) {
      if (bit != null) {
        double d = run.duty((prefix + bit).replace('/', '.'));
        max = Math.max(max, d < 0 ? unknown : d);
      }
    }
    return max;
  }

  /** OpenSTA commands giving each read-data pin its bit's activity and duty. */
  static String tcl(List<Bit> bits) {
    StringBuilder s = new StringBuilder();
    for (Bit b : bits) {
      s.append(String.format(Locale.ROOT, "sta::set_power_pin_activity [get_pins {%s}] %.4f %.4f%n", b.pin(),
          b.activity(), b.duty()));
    }
    return s.toString();
  }

  /** A one-line note for the power report: how many read-data bits were simulated, how many estimated. */
  static String describe(List<Bit> bits) {
    long simulated = bits.stream().filter(Bit::simulated).count();
    double mean = bits.stream().mapToDouble(Bit::activity).average().orElse(0);
    return String.format(Locale.ROOT, "; SRAM read data: %d bits from the run and %d estimated from their ports' "
        + "address and write activity (mean %.4f toggles/cycle)", simulated, bits.size() - simulated, mean);
  }
}
