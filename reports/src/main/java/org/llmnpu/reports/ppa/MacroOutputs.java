package org.llmnpu.reports.ppa;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A workaround for Debian's OpenSTA (2.0.17, 2019), which segfaults propagating switching
 * activity forward from the output of an SRAM black box into logic (seen on the GEMM
 * engine's activation buffer; the same netlist without that connection is fine). For power
 * analysis only, the read-data outputs of every SRAM macro are disconnected, and the input
 * pins their nets drove get the activity those nets had — from a simulated run where the net
 * has an RTL name, else a stated activity — so OpenSTA propagates onward from there, as from
 * primary inputs. Timing is analysed on the unmodified netlist.
 */
final class MacroOutputs {
  private static final Pattern MODULE = Pattern.compile("(?s)\\bmodule\\s+(\\\\\\S+ |[\\w$]+)\\s*\\((.*?)\\bendmodule\\b");
  private static final Pattern MACRO = Pattern.compile(
      "(?s)\\n(\\s*)(LLMNPU_SRAM_\\S+)\\s+(\\\\\\S+ |[\\w$.\\[\\]]+)\\s*\\((.*?)\\n\\s*\\);");
  private static final Pattern RD_DATA = Pattern.compile("(?s)\\.RD_DATA\\((.*?)\\)\\s*(,|$)");
  private static final Pattern PIN = Pattern.compile("(?s)\\.(\\w+)\\((.*?)\\)\\s*(?=,\\s*\\.|$)");
  private static final Pattern LITERAL = Pattern.compile("^(\\d+)'[hbdo][0-9a-fA-FxXzZ_]+$");
  private static final Pattern DECL = Pattern.compile(
      "(?m)^\\s*(?:wire|input|output|reg)\\s+(?:signed\\s+)?(?:\\[(\\d+):(\\d+)\\]\\s+)?(\\\\\\S+ |[\\w$]+)\\s*;");
  // an escaped name keeps its closing space unless it ends the expression (stripped)
  private static final Pattern PART = Pattern.compile(
      "^(\\\\\\S+ ?|[\\w$.]+)\\s*(?:\\[(\\d+)(?::(\\d+))?\\])?$");

  private MacroOutputs() {
  }

  /** The netlist with every SRAM macro's {@code RD_DATA} left unconnected. */
  static String disconnected(String netlist) {
    Matcher m = MACRO.matcher(netlist);
    StringBuilder out = new StringBuilder();
    while (m.find()) {
      String body = RD_DATA.matcher(m.group(4)).replaceAll(".RD_DATA()$2");
      m.appendReplacement(out, Matcher.quoteReplacement("\n" + m.group(1) + m.group(2) + " " + m.group(3) + " ("
          + body + "\n" + m.group(1) + ");"));
    }
    m.appendTail(out);
    return out.toString();
  }

  /** The prefix of the input ports {@link #drivenFromPorts} adds, one per read-data bit: {@code llmnpu_rd<i>}. */
  static final String READ_PORT = "llmnpu_rd";

  private static final Pattern HEADER = Pattern.compile("(?s)\\bmodule\\s+(\\\\\\S+ |[\\w$]+)\\s*\\((.*?)\\);");
  private static final Pattern SIMPLE = Pattern.compile("[A-Za-z_][A-Za-z0-9_$]*");
  private static final Pattern BIT = Pattern.compile("^(.*?)(\\[\\d+\\])?$");

  /**
   * The netlist (one flattened module, as {@link YosysSynthesis} writes it) with every macro's {@code RD_DATA} left
   * unconnected and each of {@code bits} (net bits as {@link #instances} names them) driven instead from an added
   * input port {@value #READ_PORT}{@code <i>}, {@code i} its index in {@code bits}: OpenSTA then propagates the
   * activity set on those ports like any input's (a net the cut left undriven would crash its propagation).
   */
  static String drivenFromPorts(String netlist, List<String> bits) {
    String cut = disconnected(netlist);
    Matcher h = HEADER.matcher(cut);
    if (!h.find()) {
      throw new IllegalArgumentException("no module header in the netlist");
    }
    StringBuilder ports = new StringBuilder();
    StringBuilder decls = new StringBuilder();
    StringBuilder assigns = new StringBuilder();
    for (int i = 0; i < bits.size(); i++) {
      ports.append(", ").append(READ_PORT).append(i);
      decls.append("\n  input ").append(READ_PORT).append(i).append(';');
      assigns.append("  assign ").append(escaped(bits.get(i))).append(" = ").append(READ_PORT).append(i)
          .append(";\n");
    }
    int end = cut.lastIndexOf("endmodule");
    return cut.substring(0, h.start(2)) + h.group(2) + ports + ");" + decls + cut.substring(h.end(), end) + assigns
        + cut.substring(end);
  }

  /** A net bit as Verilog writes it: {@code \\gemm.yData [3]} for {@code gemm.yData[3]}, {@code _07_} as it is. */
  static String escaped(String bit) {
    Matcher m = BIT.matcher(bit);
    m.matches();
    String base = m.group(1);
    String index = m.group(2) == null ? "" : m.group(2);
    return (SIMPLE.matcher(base).matches() ? base : "\\" + base + " ") + index;
  }

  /**
   * The net bits the macros' {@code RD_DATA} drove, per module that holds macros: the net
   * names as declared there ({@code streamer_word[3]}, {@code _3418_[0]}, a one-bit net
   * without index).
   */
  static Map<String, List<String>> drivenBits(String netlist) {
    Map<String, List<String>> out = new LinkedHashMap<>();
    Matcher mod = MODULE.matcher(netlist);
    while (mod.find()) {
      String body = mod.group(2);
      Map<String, int[]> widths = widths(body);
      List<String> bits = new ArrayList<>();
      Matcher m = MACRO.matcher(body);
      while (m.find()) {
        Matcher rd = RD_DATA.matcher(m.group(4));
        if (rd.find()) {
          bits.addAll(expand(rd.group(1).strip(), widths));
        }
      }
      if (!bits.isEmpty()) {
        out.put(GateNetlist.unescape(mod.group(1)), bits);
      }
    }
    return out;
  }

  /**
   * One SRAM macro instance of a module: its cell type and, per pin ({@code RD_DATA}, {@code RD_ADDR}, {@code WR_EN},
   * ...), the net bits connected, most significant first, a constant bit as null (so a bit's index is its pin bit's).
   */
  record Instance(String module, String cellType, String name, Map<String, List<String>> pins) {
  }

  /** Every SRAM macro instance of the netlist, with its pins' net bits. */
  static List<Instance> instances(String netlist) {
    List<Instance> out = new ArrayList<>();
    Matcher mod = MODULE.matcher(netlist);
    while (mod.find()) {
      String body = mod.group(2);
      Map<String, int[]> widths = widths(body);
      Matcher m = MACRO.matcher(body);
      while (m.find()) {
        Map<String, List<String>> pins = new LinkedHashMap<>();
        Matcher p = PIN.matcher(m.group(4));
        while (p.find()) {
          pins.put(p.group(1), expand(p.group(2).strip(), widths, true));
        }
        out.add(new Instance(GateNetlist.unescape(mod.group(1)), m.group(2), GateNetlist.unescape(m.group(3)), pins));
      }
    }
    return out;
  }

  private static Map<String, int[]> widths(String body) {
    Map<String, int[]> widths = new HashMap<>();
    Matcher d = DECL.matcher(body);
    while (d.find()) {
      String name = GateNetlist.unescape(d.group(3));
      widths.put(name, d.group(1) == null ? null : new int[] {Integer.parseInt(d.group(1)), Integer.parseInt(d.group(2))});
    }
    return widths;
  }

  private static List<String> expand(String expr, Map<String, int[]> widths) {
    return expand(expr, widths, false);
  }

  private static List<String> expand(String expr, Map<String, int[]> widths, boolean constantsAsNull) {
    String e = expr.startsWith("{") && expr.endsWith("}") ? expr.substring(1, expr.length() - 1) : expr;
    List<String> bits = new ArrayList<>();
    for (String part : e.split(",")) {
      String p = part.strip();
      if (p.isEmpty() || Character.isDigit(p.charAt(0))) {
        Matcher lit = LITERAL.matcher(p);
        if (constantsAsNull && lit.matches()) {
          bits.addAll(java.util.Collections.nCopies(Integer.parseInt(lit.group(1)), null));
        }
        continue; // a constant or an unconnected slot drives nothing
      }
      Matcher pm = PART.matcher(p);
      if (!pm.matches()) {
        continue;
      }
      String name = GateNetlist.unescape(pm.group(1));
      if (pm.group(2) != null && pm.group(3) == null) {
        bits.add(name + "[" + pm.group(2) + "]");
        continue;
      }
      int[] range = pm.group(2) != null ? new int[] {Integer.parseInt(pm.group(2)), Integer.parseInt(pm.group(3))}
          : widths.get(name);
      if (range == null) {
        bits.add(name);
        continue;
      }
      int step = range[0] >= range[1] ? -1 : 1;
      for (int i = range[0]; ; i += step) {
        bits.add(name + "[" + i + "]");
        if (i == range[1]) {
          break;
        }
      }
    }
    return bits;
  }
}
