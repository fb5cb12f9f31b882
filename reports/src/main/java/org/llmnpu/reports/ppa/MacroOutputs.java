package org.llmnpu.reports.ppa;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The SRAM macro instances of a gate netlist as {@link YosysSynthesis} writes it, with the net bits on each of their
 * pins ({@link #instances}), for the activity of their read data in a simulated run ({@link MacroReadActivity}).
 */
final class MacroOutputs {
  private static final Pattern MODULE = Pattern.compile("(?s)\\bmodule\\s+(\\\\\\S+ |[\\w$]+)\\s*\\((.*?)\\bendmodule\\b");
  private static final Pattern MACRO = Pattern.compile(
      "(?s)\\n(\\s*)(LLMNPU_SRAM_\\S+)\\s+(\\\\\\S+ |[\\w$.\\[\\]]+)\\s*\\((.*?)\\n\\s*\\);");
  private static final Pattern PIN = Pattern.compile("(?s)\\.(\\w+)\\((.*?)\\)\\s*(?=,\\s*\\.|$)");
  private static final Pattern LITERAL = Pattern.compile("^(\\d+)'[hbdo][0-9a-fA-FxXzZ_]+$");
  private static final Pattern DECL = Pattern.compile(
      "(?m)^\\s*(?:wire|input|output|reg)\\s+(?:signed\\s+)?(?:\\[(\\d+):(\\d+)\\]\\s+)?(\\\\\\S+ |[\\w$]+)\\s*;");
  // an escaped name keeps its closing space unless it ends the expression (stripped)
  private static final Pattern PART = Pattern.compile(
      "^(\\\\\\S+ ?|[\\w$.]+)\\s*(?:\\[(\\d+)(?::(\\d+))?\\])?$");

  private MacroOutputs() {
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
