package org.llmnpu.reports.energy;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Collections;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import org.llmnpu.reports.JsonOutput;
import org.llmnpu.reports.ppa.NodeScaling;
import org.llmnpu.reports.ppa.SramMacro;
import org.llmnpu.reports.ppa.SramModel;

/**
 * Energy per action (pJ), measured at 180 nm and scaled to 45 and 7 nm with Stillmaker &amp;
 * Baas (2017); each entry says how it was obtained. SRAM accesses are charged per access of
 * a given macro geometry from {@link SramModel} ({@link #sramAccessPj}); external memory per
 * byte from {@link #DRAM_PJ_PER_BYTE}.
 *
 * @param entries     the measured or modelled actions with their basis
 * @param notMeasured actions the calibration could not measure, with the reason
 */
public record EnergyTable(Map<EnergyAction, Entry> entries, Map<EnergyAction, String> notMeasured) {
  /**
   * External memory energy per byte, pJ: M. Horowitz, "Computing's energy problem (and what we
   * can do about it)", ISSCC 2014, gives 1.3–2.6 nJ per 64-bit DRAM access; the low end,
   * 1.3 nJ / 8 bytes ≈ 160 pJ/byte (20 pJ/bit), is used. It is a DDR3-era figure for the
   * memory device and interface and is not scaled with the logic node; mobile LPDDR parts are
   * lower — set the figure you trust with {@link #withDramPjPerByte}.
   */
  public static final double DRAM_PJ_PER_BYTE = 1300.0 / 8;
  public static final String DRAM_SOURCE = "Horowitz, ISSCC 2014: 1.3-2.6 nJ per 64-bit DRAM access; low end used "
      + "(20 pJ/bit), not node-scaled";

  /** One action: energy at 180 nm (pJ) and how it was obtained. */
  public record Entry(EnergyAction action, double pj180, String basis) {
  }

  public EnergyTable {
    entries = Collections.unmodifiableMap(new EnumMap<>(entries));
    notMeasured = Collections.unmodifiableMap(notMeasured.isEmpty() ? new EnumMap<>(EnergyAction.class)
        : new EnumMap<>(notMeasured));
  }

  /** A table with every listed action measured or modelled. */
  public EnergyTable(Map<EnergyAction, Entry> entries) {
    this(entries, Map.of());
  }

  /** Energy of one {@code action} at {@code node}, pJ (DRAM is not node-scaled). */
  public double pj(EnergyAction action, NodeScaling.Node node) {
    Entry e = entries.get(action);
    if (e == null) {
      String why = notMeasured.get(action);
      throw new IllegalArgumentException("the energy table has no entry for " + action
          + (why != null ? " (not measured: " + why + ")" : "; it has " + entries.keySet()));
    }
    return action == EnergyAction.DRAM_BYTE ? e.pj180() : e.pj180() * scale(node);
  }

  /** The factor from 180 nm (1.8 V) to {@code node} at its assumed supply. */
  public static double scale(NodeScaling.Node node) {
    return NodeScaling.energy(NodeScaling.Node.N180, NodeScaling.Node.N180.vdd, node);
  }

  /** The table with the external-memory energy per byte set to {@code pj}. */
  public EnergyTable withDramPjPerByte(double pj, String source) {
    Map<EnergyAction, Entry> m = new EnumMap<>(entries);
    m.put(EnergyAction.DRAM_BYTE, new Entry(EnergyAction.DRAM_BYTE, pj, source));
    return new EnergyTable(m, notMeasured);
  }

  /** Energy of one access (read or write of a word) of an SRAM of {@code width}×{@code depth}, pJ. */
  public static double sramAccessPj(int width, int depth, NodeScaling.Node node) {
    SramMacro m = new SramMacro("model", "model", "model", width, depth,
        Math.max(1, 32 - Integer.numberOfLeadingZeros(Math.max(1, depth - 1))), 1, 1, true, 1);
    return SramModel.accessEnergyPj(m, node);
  }

  /** The table as indented JSON: per action its unit, the basis and pJ at each node. */
  public String json() {
    ObjectNode root = JsonOutput.object();
    root.put("scaling", NodeScaling.CITATION);
    root.put("sramModel", SramModel.SOURCES);
    ArrayNode rows = root.putArray("actions");
    for (Entry e : entries.values()) {
      ObjectNode r = rows.addObject();
      r.put("action", e.action().name()).put("block", e.action().block).put("title", e.action().title)
          .put("unit", e.action().unit).put("basis", e.basis());
      for (NodeScaling.Node n : NodeScaling.Node.values()) {
        r.put("pj" + n.nm + "nm", pj(e.action(), n));
      }
    }
    ArrayNode missing = root.putArray("notMeasured");
    notMeasured.forEach((a, why) -> missing.addObject().put("action", a.name()).put("reason", why));
    return JsonOutput.indented(root) + "\n";
  }

  /**
   * Reads a table that {@link #json()} wrote ({@code energy.json} of {@code npu report energy}):
   * each action's 180 nm figure and basis, and the actions not measured with their reasons.
   *
   * @throws IllegalArgumentException naming {@code what} when the text is not such a table
   */
  public static EnergyTable fromJson(String text, String what) {
    try {
      com.fasterxml.jackson.databind.JsonNode root = new com.fasterxml.jackson.databind.ObjectMapper().readTree(text);
      com.fasterxml.jackson.databind.JsonNode actions = root == null ? null : root.get("actions");
      if (actions == null || !actions.isArray() || actions.isEmpty()) {
        throw new IllegalArgumentException(what + ": not an energy table (no \"actions\" array); write one with "
            + "npu report energy -o DIR (DIR/energy.json)");
      }
      Map<EnergyAction, Entry> m = new EnumMap<>(EnergyAction.class);
      for (com.fasterxml.jackson.databind.JsonNode a : actions) {
        EnergyAction action = action(a.path("action").asText(), what);
        com.fasterxml.jackson.databind.JsonNode pj = a.get("pj180nm");
        if (pj == null || !pj.isNumber()) {
          throw new IllegalArgumentException(what + ": action " + action + " has no numeric pj180nm");
        }
        m.put(action, new Entry(action, pj.doubleValue(), a.path("basis").asText("")));
      }
      Map<EnergyAction, String> missing = new EnumMap<>(EnergyAction.class);
      for (com.fasterxml.jackson.databind.JsonNode a : root.path("notMeasured")) {
        missing.put(action(a.path("action").asText(), what), a.path("reason").asText(""));
      }
      return new EnergyTable(m, missing);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalArgumentException(what + ": not valid JSON: " + e.getOriginalMessage(), e);
    }
  }

  private static EnergyAction action(String name, String what) {
    try {
      return EnergyAction.valueOf(name);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(what + ": unknown energy action '" + name + "'; allowed: "
          + java.util.Arrays.toString(EnergyAction.values()), e);
    }
  }

  /** The table as CSV: action, block, unit, pJ at 180/45/7 nm, basis. */
  public String csv() {
    StringBuilder s = new StringBuilder("action,block,unit,pj_180nm,pj_45nm,pj_7nm,basis\n");
    for (Entry e : entries.values()) {
      s.append(String.format(Locale.ROOT, "%s,%s,\"%s\",%.6g,%.6g,%.6g,\"%s\"%n", e.action().name(), e.action().block,
          e.action().unit, pj(e.action(), NodeScaling.Node.N180), pj(e.action(), NodeScaling.Node.N45),
          pj(e.action(), NodeScaling.Node.N7), e.basis().replace("\"", "'")));
    }
    return s.toString();
  }

  /** A text table for the terminal. */
  public String text() {
    StringBuilder s = new StringBuilder(String.format(Locale.ROOT, "%-16s %12s %12s %12s  %s%n", "action",
        "pJ 180 nm", "pJ 45 nm", "pJ 7 nm", "unit"));
    for (Entry e : entries.values()) {
      s.append(String.format(Locale.ROOT, "%-16s %12.4g %12.4g %12.4g  %s%n", e.action().name(),
          pj(e.action(), NodeScaling.Node.N180), pj(e.action(), NodeScaling.Node.N45),
          pj(e.action(), NodeScaling.Node.N7), e.action().unit));
    }
    notMeasured.forEach((a, why) -> s.append(String.format(Locale.ROOT, "%-16s not measured: %s%n", a.name(), why)));
    return s.toString();
  }
}
