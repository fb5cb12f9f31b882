package org.llmnpu.reports.ppa;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reading OpenSTA's output ({@link OpenSta}'s script prints {@code ==== timing} before {@code report_checks} and
 * {@code ==== power} before {@code report_power}): the worst setup path as a {@link TimingResult} (startpoint,
 * endpoint, gates on the path, arrival, slack, Fmax) and the power totals as a {@link PowerResult} (mW).
 */
final class StaReports {
  private static final Pattern PATH_LINE = Pattern.compile(
      "^\\s*(-?[0-9.]+)\\s+(-?[0-9.]+)\\s+[\\^v]\\s+(\\S+)\\s+\\(([^)]*)\\)\\s*$");

  private StaReports() {
  }

  static TimingResult parseTiming(String out, double clockNs, String clockPort, GateNetlist netlist) {
    String report = worstPath(section(out, "==== timing", "==== power"));
    if (report.contains("No paths found")) {
      throw new ToolFailure("sta", "OpenSTA found no timing path (is the design purely constant?)", List.of());
    }
    String start = field(report, "Startpoint: ");
    String end = field(report, "Endpoint: ");
    String startInst = start.split(" ")[0];
    String endInst = end.split(" ")[0];
    Set<String> gates = new LinkedHashSet<>();
    double arrival = Double.NaN;
    for (String line : report.split("\n")) {
      if (line.contains("data arrival time")) {
        arrival = Double.parseDouble(line.strip().split("\\s+")[0]);
        break;
      }
      Matcher m = PATH_LINE.matcher(line);
      if (m.matches() && m.group(3).contains("/")) {
        String inst = m.group(3).substring(0, m.group(3).lastIndexOf('/'));
        if (!inst.equals(startInst) && !inst.equals(endInst)) {
          gates.add(inst);
        }
      }
    }
    Matcher slack = Pattern.compile("(?m)^\\s*(-?[0-9.]+)\\s+slack \\((MET|VIOLATED)\\)").matcher(report);
    if (!slack.find() || Double.isNaN(arrival)) {
      throw new ToolFailure("sta", "cannot read the critical path from OpenSTA's report", List.of(report.strip()));
    }
    double slackNs = Double.parseDouble(slack.group(1));
    double critical = clockNs - slackNs;
    return new TimingResult(clockNs, clockPort, describe(start, startInst, netlist), describe(end, endInst, netlist),
        gates.size(), arrival, slackNs, critical, 1000.0 / critical);
  }

  /**
   * The path of least slack in a report of one path per group: a design with clock gates has the group
   * {@code **clock_gating_default**} (a gate's latch to its AND, half a period) besides the clock's, and OpenSTA
   * may list it first.
   */
  static String worstPath(String report) {
    String[] blocks = report.split("(?m)(?=^Startpoint: )");
    Pattern slackLine = Pattern.compile("(?m)^\\s*(-?[0-9.]+)\\s+slack \\((MET|VIOLATED)\\)");
    String worst = null;
    double least = Double.POSITIVE_INFINITY;
    for (String b : blocks) {
      Matcher m = slackLine.matcher(b);
      if (b.startsWith("Startpoint: ") && m.find() && Double.parseDouble(m.group(1)) < least) {
        least = Double.parseDouble(m.group(1));
        worst = b;
      }
    }
    return worst == null ? report : worst;
  }

  private static String describe(String reportField, String inst, GateNetlist netlist) {
    String kind = reportField.substring(inst.length()).strip();
    String register = netlist.registerAt(inst);
    if (register != null) {
      return "register " + register + " (" + inst + ")";
    }
    if (kind.contains("input port") || kind.contains("output port")) {
      return (kind.contains("input") ? "input " : "output ") + inst;
    }
    return inst + " " + kind;
  }

  static PowerResult parsePower(String out, PpaOptions o, boolean global) {
    String report = section(out, "==== power", null);
    for (String line : report.split("\n")) {
      String[] f = line.strip().split("\\s+");
      if (f.length >= 5 && f[0].equals("Total")) {
        return new PowerResult(o.activity(), global ? PowerResult.GLOBAL : PowerResult.INPUTS,
            global ? new TreeMap<>() : new TreeMap<>(o.portActivities()), watt(f[1]), watt(f[2]), watt(f[3]),
            watt(f[4]));
      }
    }
    throw new ToolFailure("sta", "cannot read the power report from OpenSTA", List.of(report.strip()));
  }

  private static double watt(String w) {
    return Double.parseDouble(w) * 1e3;
  }

  private static String section(String out, String from, String to) {
    int a = out.indexOf(from);
    int b = to == null ? -1 : out.indexOf(to);
    if (a < 0) {
      throw new ToolFailure("sta", "OpenSTA output lacks the section '" + from + "'", List.of());
    }
    return b > a ? out.substring(a, b) : out.substring(a);
  }

  private static String field(String report, String label) {
    for (String line : report.split("\n")) {
      if (line.startsWith(label)) {
        return line.substring(label.length()).strip();
      }
    }
    throw new ToolFailure("sta", "OpenSTA's timing report has no '" + label.strip() + "' line", List.of());
  }
}
