package org.llmnpu.reports.ppa;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

/**
 * A Liberty library that gives OpenSTA the pin directions and an idealized timing model of
 * the SRAM macro black boxes: address, data and enable pins are endpoints with zero setup to
 * the write clock (or the read clock for read pins of a synchronous read port), and read data
 * is a startpoint with zero clock-to-output delay (or a zero-delay arc from the read address
 * for an asynchronous read port). So paths into and out of a macro are timed up to its pins,
 * and the macro's own access time is not included. Macros have no power in this library;
 * {@link SramModel} estimates it separately.
 */
public final class SramLiberty {
  private SramLiberty() {
  }

  /** The library text for the given macros (one cell per macro type). */
  public static String library(List<SramMacro> macros) {
    TreeSet<Integer> widths = new TreeSet<>();
    List<String> cells = new ArrayList<>();
    for (SramMacro m : macros) {
      cells.add(cell(m, widths));
    }
    StringBuilder s = new StringBuilder();
    s.append("library (llmnpu_sram_macros) {\n")
        .append("  delay_model : table_lookup;\n")
        .append("  time_unit : \"1ns\";\n  voltage_unit : \"1V\";\n  current_unit : \"1uA\";\n")
        .append("  leakage_power_unit : \"1nW\";\n  capacitive_load_unit (1,pf);\n")
        .append("  nom_process : 1;\n  nom_voltage : 1.8;\n  nom_temperature : 25;\n");
    for (String edge : List.of("rise", "fall")) {
      s.append("  input_threshold_pct_").append(edge).append(" : 50;\n")
          .append("  output_threshold_pct_").append(edge).append(" : 50;\n")
          .append("  slew_lower_threshold_pct_").append(edge).append(" : 20;\n")
          .append("  slew_upper_threshold_pct_").append(edge).append(" : 80;\n");
    }
    for (int w : widths) {
      s.append(String.format("  type (bus%d) { base_type : array; data_type : bit; bit_width : %d; "
          + "bit_from : %d; bit_to : 0; downto : true; }%n", w, w, w - 1));
    }
    cells.forEach(s::append);
    return s.append("}\n").toString();
  }

  private static String cell(SramMacro m, TreeSet<Integer> widths) {
    String writeClock = m.writePorts() == 1 ? "WR_CLK" : null;
    String readClock = m.readPorts() == 1 && m.readClocked() ? "RD_CLK" : writeClock;
    StringBuilder s = new StringBuilder("  cell (" + m.cellType() + ") {\n    area : 0;\n");
    int r = m.readPorts();
    int w = m.writePorts();
    pin(s, widths, "RD_CLK", r, "input", m.readClocked() && r == 1 ? "    clock : true;\n" : "");
    pin(s, widths, "RD_EN", r, "input", m.readClocked() ? setup(readClock) : "");
    pin(s, widths, "RD_ARST", r, "input", "");
    pin(s, widths, "RD_SRST", r, "input", "");
    pin(s, widths, "RD_ADDR", r * m.addressBits(), "input", m.readClocked() ? setup(readClock) : "");
    String readArc = m.readClocked() ? arc(readClock, "rising_edge") : arc("RD_ADDR", "combinational");
    pin(s, widths, "RD_DATA", r * m.width(), "output", readArc);
    pin(s, widths, "WR_CLK", w, "input", w == 1 ? "    clock : true;\n" : "");
    pin(s, widths, "WR_EN", w * m.width(), "input", setup(writeClock));
    pin(s, widths, "WR_ADDR", w * m.addressBits(), "input", setup(writeClock));
    pin(s, widths, "WR_DATA", w * m.width(), "input", setup(writeClock));
    return s.append("  }\n").toString();
  }

  private static void pin(StringBuilder s, TreeSet<Integer> widths, String name, int bits, String dir, String body) {
    if (bits <= 0) {
      return;
    }
    String cap = dir.equals("input") ? "    capacitance : 0.01;\n" : "";
    if (bits == 1) {
      s.append("    pin (").append(name).append(") {\n");
    } else {
      widths.add(bits);
      s.append("    bus (").append(name).append(") {\n      bus_type : bus").append(bits).append(";\n");
    }
    s.append("    direction : ").append(dir).append(";\n").append(cap).append(body).append("    }\n");
  }

  private static String setup(String clock) {
    if (clock == null) {
      return "";
    }
    return "    timing () {\n      related_pin : \"" + clock + "\";\n      timing_type : setup_rising;\n"
        + "      rise_constraint (scalar) { values (\"0.0\"); }\n"
        + "      fall_constraint (scalar) { values (\"0.0\"); }\n    }\n";
  }

  private static String arc(String from, String type) {
    if (from == null) {
      return "";
    }
    return "    timing () {\n      related_pin : \"" + from + "\";\n      timing_type : " + type + ";\n"
        + "      cell_rise (scalar) { values (\"0.0\"); }\n      cell_fall (scalar) { values (\"0.0\"); }\n"
        + "      rise_transition (scalar) { values (\"0.1\"); }\n"
        + "      fall_transition (scalar) { values (\"0.1\"); }\n    }\n";
  }
}
