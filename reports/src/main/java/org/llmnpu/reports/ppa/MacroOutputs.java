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
  private static final Pattern DECL = Pattern.compile(
      "(?m)^\\s*(?:wire|input|output|reg)\\s+(?:signed\\s+)?(?:\\[(\\d+):(\\d+)\\]\\s+)?(\\\\\\S+ |[\\w$]+)\\s*;");
  private static final Pattern PART = Pattern.compile(
      "^(\\\\\\S+ |[\\w$.]+)\\s*(?:\\[(\\d+)(?::(\\d+))?\\])?$");

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
      Map<String, int[]> widths = new HashMap<>();
      Matcher d = DECL.matcher(body);
      while (d.find()) {
        String name = GateNetlist.unescape(d.group(3));
        widths.put(name, d.group(1) == null ? null : new int[] {Integer.parseInt(d.group(1)), Integer.parseInt(d.group(2))});
      }
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

  private static List<String> expand(String expr, Map<String, int[]> widths) {
    String e = expr.startsWith("{") && expr.endsWith("}") ? expr.substring(1, expr.length() - 1) : expr;
    List<String> bits = new ArrayList<>();
    for (String part : e.split(",")) {
      String p = part.strip();
      if (p.isEmpty() || Character.isDigit(p.charAt(0))) {
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
