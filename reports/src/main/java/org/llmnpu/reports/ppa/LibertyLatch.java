package org.llmnpu.reports.ppa;

import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The library's D latch, for mapping the latches of clock-gating cells ({@code llmnpu_clock_gate}): Yosys 0.23's
 * {@code dfflibmap} maps flip-flops only, so {@link #techmap()} gives a Yosys techmap file that turns its
 * {@code $_DLATCH_P_} / {@code $_DLATCH_N_} cells into the library cell (with an inverter on the enable when the
 * polarity differs; ABC maps the inverter).
 *
 * @param cell       the cell's name ({@code LATCH} in OSU018)
 * @param data       its data pin
 * @param enable     its enable pin
 * @param enableHigh whether the latch is transparent while the enable is high
 * @param output     its output pin
 */
public record LibertyLatch(String cell, String data, String enable, boolean enableHigh, String output) {
  private static final Pattern CELL = Pattern.compile("\\bcell\\s*\\(\\s*\"?([^\")\\s]+)\"?\\s*\\)");
  private static final Pattern LATCH = Pattern.compile("\\blatch\\s*\\([^)]*\\)\\s*\\{([^}]*)}");
  private static final Pattern ATTRIBUTE =
      Pattern.compile("\\b(data_in|enable)\\s*:\\s*\"\\s*(!?)\\s*([A-Za-z0-9_]+)\\s*\"");
  private static final Pattern PIN =
      Pattern.compile("\\bpin\\s*\\(\\s*\"?([A-Za-z0-9_]+)\"?\\s*\\)\\s*\\{\\s*direction\\s*:\\s*output");

  /** The first single-latch cell of {@code liberty} whose enable and data are plain pins, if any. */
  public static Optional<LibertyLatch> find(String liberty) {
    Matcher cell = CELL.matcher(liberty);
    java.util.List<int[]> spans = new java.util.ArrayList<>();
    java.util.List<String> names = new java.util.ArrayList<>();
    while (cell.find()) {
      names.add(cell.group(1));
      spans.add(new int[] {cell.end(), 0});
    }
    for (int i = 0; i < names.size(); i++) {
      int to = i + 1 < names.size() ? spans.get(i + 1)[0] : liberty.length();
      String body = liberty.substring(spans.get(i)[0], to);
      Matcher latch = LATCH.matcher(body);
      Matcher pin = PIN.matcher(body);
      if (!latch.find() || !pin.find()) {
        continue;
      }
      String data = null;
      String enable = null;
      boolean high = true;
      Matcher a = ATTRIBUTE.matcher(latch.group(1));
      while (a.find()) {
        if (a.group(1).equals("data_in") && a.group(2).isEmpty()) {
          data = a.group(3);
        } else if (a.group(1).equals("enable")) {
          enable = a.group(3);
          high = a.group(2).isEmpty();
        }
      }
      if (data != null && enable != null) {
        return Optional.of(new LibertyLatch(names.get(i), data, enable, high, pin.group(1)));
      }
    }
    return Optional.empty();
  }

  /** The Yosys techmap file: {@code $_DLATCH_P_} and {@code $_DLATCH_N_} to this cell. */
  public String techmap() {
    return "// Yosys techmap: D latches to the library's " + cell + " (generated from the liberty)\n"
        + latchModule("P", enableHigh) + latchModule("N", !enableHigh);
  }

  private String latchModule(String polarity, boolean direct) {
    String instance = "  " + cell + " _TECHMAP_REPLACE_ (." + enable + "(" + (direct ? "E" : "enable_inverted") + "), ."
        + data + "(D), ." + output + "(Q));\n";
    return "module \\$_DLATCH_" + polarity + "_ (input E, input D, output Q);\n"
        + (direct ? "" : "  wire enable_inverted;\n  \\$_NOT_ invert (.A(E), .Y(enable_inverted));\n")
        + instance + "endmodule\n";
  }
}
