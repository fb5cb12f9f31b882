package org.llmnpu.reports.ppa;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The constants of a netlist held still for OpenSTA's power analysis of a simulated run. Yosys writes every constant
 * as a literal ({@code assign _0123_[4] = 1'h0;}, {@code .RD_EN(1'h1)}); Debian's OpenSTA (2.0.17) gives the pins of
 * a literal its {@code set_power_activity -input} default (activity and duty 1/2: checked on a two-gate netlist,
 * where an AND with a constant-1 input passed on half its other input's toggles plus half the default, instead of all
 * of the other input's), not the constant's.
 *
 * <p>For power analysis only, every literal is replaced by bits of two added input ports, {@link #TIE0} and {@link
 * #TIE1}, which {@link #activityTcl()} holds still (activity 0, duty 0 and 1), so the logic behind a constant sees
 * its value; timing is analysed on the unmodified netlist (the ties would be timed as inputs).
 *
 * <p>Every radix Yosys writes is tied (hex, binary, decimal, octal). A literal left in the netlist is a constant to
 * OpenSTA's logic simulation, which then disables the arcs it masks for levelization while the activity search still
 * follows them: the search put a vertex into the level it was iterating, and {@code report_power} crashed depending
 * on that level's vector capacity (the 1-lane Vector DSP's {@code 32'd0}, found 2026-12-06).
 */
final class ConstantTies {
  /** The added input port every 0 bit is driven from. */
  static final String TIE0 = "llmnpu_tie0";
  /** The added input port every 1 bit is driven from. */
  static final String TIE1 = "llmnpu_tie1";

  private static final Pattern HEADER = Pattern.compile("(?s)\\bmodule\\s+(\\\\\\S+ |[\\w$]+)\\s*\\((.*?)\\);");
  private static final Pattern LITERAL = Pattern.compile("(?<![\\w$\\\\.])(\\d+)'([hbdo])([0-9a-fA-F]+)\\b");

  private ConstantTies() {
  }

  /**
   * The netlist (one flattened module, as {@link YosysSynthesis} writes it) with every constant
   * literal replaced by a concatenation of {@link #TIE0} and {@link #TIE1} bits, and the two ports
   * added; the netlist unchanged when it holds no literal.
   */
  static String tied(String netlist) {
    Matcher h = HEADER.matcher(netlist);
    if (!h.find()) {
      throw new IllegalArgumentException("no module header in the netlist");
    }
    String body = netlist.substring(h.end());
    Matcher m = LITERAL.matcher(body);
    StringBuilder out = new StringBuilder();
    int replaced = 0;
    while (m.find()) {
      m.appendReplacement(out, Matcher.quoteReplacement(bits(Integer.parseInt(m.group(1)), m.group(2), m.group(3))));
      replaced++;
    }
    if (replaced == 0) {
      return netlist;
    }
    m.appendTail(out);
    return netlist.substring(0, h.start(2)) + h.group(2) + ", " + TIE0 + ", " + TIE1 + ");\n  input " + TIE0
        + ";\n  input " + TIE1 + ";" + out;
  }

  /** OpenSTA commands holding the two tie ports at activity 0 (duty 0 and 1). */
  static String activityTcl() {
    return "sta::set_power_input_port_activity [get_ports " + TIE0 + "] 0 0\n"
        + "sta::set_power_input_port_activity [get_ports " + TIE1 + "] 0 1\n";
  }

  /** {@code {tie, tie, ...}} for a literal of {@code width} bits, most significant first. */
  static String bits(int width, String radix, String digits) {
    int base = switch (radix) {
      case "h" -> 16;
      case "d" -> 10;
      case "o" -> 8;
      default -> 2;
    };
    java.math.BigInteger v = new java.math.BigInteger(digits, base);
    if (width == 1) {
      return v.testBit(0) ? TIE1 : TIE0;
    }
    StringBuilder s = new StringBuilder("{");
    for (int i = width - 1; i >= 0; i--) {
      s.append(v.testBit(i) ? TIE1 : TIE0).append(i > 0 ? ", " : "}");
    }
    return s.toString();
  }
}
