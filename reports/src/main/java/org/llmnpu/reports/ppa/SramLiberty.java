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
 *
 * <p>{@link #powerLibrary} is the library of a simulated run's power analysis (on the netlist with its constants
 * tied, {@link ConstantTies}): each read-data bit is its own function ({@code pin (RD_DATA[3]) { function :
 * "RD_DATA[3]"; }}; Debian's OpenSTA 2.0.17 gives a bus's function to the bus, not to its bits). OpenSTA's activity
 * propagation evaluates the function of every output pin it reaches without checking that there is one, so the read
 * data, reached through an asynchronous port's address arcs, crashed {@code report_power} with a segmentation fault
 * (source of OpenSTA c018cb2, {@code PropActivityVisitor::visit}; checked on a one-macro netlist). A bit that is its
 * own function keeps the activity set on its pin ({@code sta::set_power_pin_activity}) and passes it to the logic it
 * drives. Not in the timing library: OpenSTA times an instance with constant pins (an asynchronous port's
 * {@code RD_CLK} tied to 0) by its outputs' functions, and one that does not depend on the address disables the
 * address-to-data arcs.
 */
public final class SramLiberty {
  private SramLiberty() {
  }

  /** The library text for the given macros (one cell per macro type), for timing and stated-activity power. */
  public static String library(List<SramMacro> macros) {
    return library(macros, false);
  }

  /**
   * The library for the power run of a simulated activity: as {@link #library}, with every read-data bit its own
   * function, and an asynchronous read port's data reached from every address bit ({@code related_bus_pins}):
   * {@code related_pin} pairs bus bits one to one and OpenSTA drops the arc with a warning when the widths differ,
   * so that data had no arc, no clock, and the logic fed only by it drew nothing. A clocked read port's data keeps
   * its clock-to-output arc, which the propagation does not follow, and is reached instead from an added unconnected
   * input pin ({@link FlopPowerCells#SEED_PIN}, a root of the search, as for the flip-flops' power copies).
   */
  static String powerLibrary(List<SramMacro> macros) {
    return library(macros, true);
  }

  private static String library(List<SramMacro> macros, boolean forPower) {
    TreeSet<Integer> widths = new TreeSet<>();
    List<String> cells = new ArrayList<>();
    for (SramMacro m : macros) {
      cells.add(cell(m, widths, forPower));
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

  private static String cell(SramMacro m, TreeSet<Integer> widths, boolean forPower) {
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
    String readArc = m.readClocked() ? arc(readClock, "rising_edge")
        : arc("RD_ADDR", "combinational", forPower ? "related_bus_pins" : "related_pin");
    if (forPower && m.readClocked()) {
      // OpenSTA's activity search does not cross the clock-to-output arc: the added unconnected pin is a root of the
      // search, and its arc leads the search to the read data (no setup check: not taken for a latch)
      pin(s, widths, FlopPowerCells.SEED_PIN, 1, "input", "");
      readArc += arc(FlopPowerCells.SEED_PIN, "combinational");
    }
    pin(s, widths, "RD_DATA", r * m.width(), "output", readArc + (forPower ? ownFunction("RD_DATA", r * m.width()) : ""));
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

  /** Each bit of an output its own function: {@code pin (RD_DATA[3]) { function : "RD_DATA[3]"; }}. */
  private static String ownFunction(String name, int bits) {
    if (bits == 1) {
      return "      function : \"" + name + "\";\n";
    }
    StringBuilder s = new StringBuilder();
    for (int i = bits - 1; i >= 0; i--) {
      s.append("      pin (").append(name).append('[').append(i).append("]) { function : \"").append(name).append('[')
          .append(i).append("]\"; }\n");
    }
    return s.toString();
  }

  private static String arc(String from, String type) {
    return arc(from, type, "related_pin");
  }

  private static String arc(String from, String type, String relation) {
    if (from == null) {
      return "";
    }
    return "    timing () {\n      " + relation + " : \"" + from + "\";\n      timing_type : " + type + ";\n"
        + "      cell_rise (scalar) { values (\"0.0\"); }\n      cell_fall (scalar) { values (\"0.0\"); }\n"
        + "      rise_transition (scalar) { values (\"0.1\"); }\n"
        + "      fall_transition (scalar) { values (\"0.1\"); }\n    }\n";
  }
}
