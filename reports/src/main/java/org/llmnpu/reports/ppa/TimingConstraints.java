package org.llmnpu.reports.ppa;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.llmnpu.hdl.emit.VerilogDesign;

/**
 * The timing intent of a block as an SDC file — the constraints our own OpenSTA runs use
 * ({@link OpenSta}) and {@code npu generate} writes beside the Verilog, so a block taken into
 * another flow (OpenROAD/OpenLane, a commercial tool) is timed the way the reports time it.
 *
 * <ul>
 *   <li>{@code create_clock} on the clock port (named {@code clk}) at the target period; a
 *       virtual clock of that period when the block has no clock port;</li>
 *   <li>input and output delays of {@code ioDelayNs} (0 by default: every port is assumed to be
 *       driven by, or to drive, a flip-flop of the surrounding design on the same clock, so the
 *       whole period belongs to the block; an integrator states its own budget here);</li>
 *   <li>the reset port ({@code reset} or {@code reset_n}) as a false path: before layout its
 *       net drives every flip-flop unbuffered, which says nothing about the design.</li>
 * </ul>
 * Ports are listed by name ({@code name[*]} for buses), so the file uses only SDC commands that
 * every SDC reader knows. Same ports and period → byte-identical text.
 *
 * @param clockPort clock input, empty for a virtual clock
 * @param periodNs clock period in ns
 * @param resetPort reset input, empty if none
 * @param inputs data inputs as {@code get_ports} patterns (clock excluded, reset included)
 * @param outputs outputs as {@code get_ports} patterns
 * @param ioDelayNs input and output delay in ns
 */
public record TimingConstraints(String clockPort, double periodNs, String resetPort, List<String> inputs,
    List<String> outputs, double ioDelayNs) {
  /** The clock port name the generators use. */
  public static final String CLOCK = "clk";

  public TimingConstraints {
    if (!(periodNs > 0) || Double.isInfinite(periodNs)) {
      throw new IllegalArgumentException("clock period must be a positive number of ns, got " + periodNs);
    }
    if (!(ioDelayNs >= 0) || ioDelayNs >= periodNs) {
      throw new IllegalArgumentException("I/O delay must be in 0 ns .. the period (" + periodNs + " ns), got "
          + ioDelayNs);
    }
    inputs = List.copyOf(inputs);
    outputs = List.copyOf(outputs);
  }

  /** A port of the top module: name, width, direction. */
  public record Port(String name, int width, boolean input) {
    String pattern() {
      return width > 1 ? name + "[*]" : name;
    }
  }

  /** Constraints for ports at a period, with zero I/O delays; the clock is the input {@value #CLOCK}. */
  public static TimingConstraints of(List<Port> ports, double periodNs) {
    return of(ports, periodNs, CLOCK);
  }

  /** Constraints for ports at a period, with zero I/O delays and the clock on input {@code clockName}. */
  public static TimingConstraints of(List<Port> ports, double periodNs, String clockName) {
    String clock = "";
    String reset = "";
    List<String> in = new ArrayList<>();
    List<String> out = new ArrayList<>();
    for (Port p : ports) {
      if (p.input() && p.name().equals(clockName) && p.width() == 1) {
        clock = clockName;
        continue;
      }
      if (p.input() && reset.isEmpty() && p.width() == 1 && (p.name().equals("reset") || p.name().equals("reset_n"))) {
        reset = p.name();
      }
      (p.input() ? in : out).add(p.pattern());
    }
    return new TimingConstraints(clock, periodNs, reset, in, out, 0);
  }

  /** Constraints for the top module of an emitted design. */
  public static TimingConstraints of(VerilogDesign design, double periodNs) {
    return of(design.ports().stream().map(p -> new Port(p.name(), p.width(), p.input())).toList(), periodNs);
  }

  /** The SDC text; {@code top} names the design in the header comment. */
  public String sdc(String top) {
    String period = number(periodNs);
    String delay = number(ioDelayNs);
    StringBuilder s = new StringBuilder();
    s.append("# Timing constraints of ").append(top).append(" (llmnpu): target clock ").append(period)
        .append(" ns = ").append(String.format(Locale.ROOT, "%.1f", 1000 / periodNs)).append(" MHz\n");
    s.append("# I/O delays ").append(delay).append(" ns: ports are assumed registered in the surrounding design;"
        + " set your own budget here\n");
    s.append("create_clock -name clk -period ").append(period);
    if (!clockPort.isEmpty()) {
      s.append(" [get_ports {").append(clockPort).append("}]");
    }
    s.append('\n');
    if (!inputs.isEmpty()) {
      s.append("set_input_delay ").append(delay).append(" -clock clk [get_ports {").append(String.join(" ", inputs))
          .append("}]\n");
    }
    if (!outputs.isEmpty()) {
      s.append("set_output_delay ").append(delay).append(" -clock clk [get_ports {")
          .append(String.join(" ", outputs)).append("}]\n");
    }
    if (!resetPort.isEmpty()) {
      s.append("set_false_path -from [get_ports {").append(resetPort).append("}]\n");
    }
    return s.toString();
  }

  /** Shortest decimal that round-trips, without a trailing ".0" for integers (5, 5.6, 0.25). */
  private static String number(double v) {
    String s = Double.toString(v);
    if (s.endsWith(".0")) {
      s = s.substring(0, s.length() - 2);
    }
    if (s.contains("E")) {
      s = String.format(Locale.ROOT, "%.6f", v).replaceAll("0+$", "").replaceAll("\\.$", "");
    }
    return s;
  }
}
