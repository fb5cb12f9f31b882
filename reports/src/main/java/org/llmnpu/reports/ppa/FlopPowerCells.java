package org.llmnpu.reports.ppa;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Flip-flops whose output activity OpenSTA passes on, for the power analysis of a simulated run. Debian's OpenSTA
 * (2.0.17, source c018cb2 {@code Power::ensureActivities}) propagates activity breadth-first from the input ports and
 * never across a clock-to-output arc: a flip-flop's Q is reached only in a later pass, which sets it from its D pin's
 * propagated activity (overwriting the one the run measured) and which runs only when the last register the first pass
 * reached had no activity on its inputs yet. Inside a large design, where most D cones start at other registers, that
 * left the logic between registers without activity (the {@code -input} default, 0): the Vector DSP's datapath drew
 * almost nothing in its instruction runs.
 *
 * <p>For power analysis only, each flip-flop cell of the standard-cell library gets a copy ({@code
 * LLMNPU_PWR_DFFPOSX1}) with the same pins, state, timing and power tables, except that its state output is its own
 * function ({@code function : "Q"}, so it keeps the activity the run gave it) and is reached by a combinational arc
 * from an added, unconnected input pin {@link #SEED_PIN}. An unconnected pin has no driver, so it is a root of
 * OpenSTA's activity search: the search starts there, visits Q, keeps its activity and carries it through the logic Q
 * drives. The seed pin has no setup check against the clock, so OpenSTA does not take the copy for a latch (it infers
 * one from a clock-to-output arc, a combinational arc into the same output and a setup check between the two inputs).
 * Every flip-flop instance of the power netlist is renamed to its copy ({@link #netlist}); timing is analysed on the
 * netlist as synthesized with the library unchanged.
 */
final class FlopPowerCells {
  /** The added input pin whose arc leads OpenSTA's activity search to the state output. */
  static final String SEED_PIN = "LLMNPU_PWR_SEED";
  /** Prefix of the copies' cell names. */
  static final String PREFIX = "LLMNPU_PWR_";

  private static final Pattern CELL = Pattern.compile("(?m)^\\s*cell\\s*\\(\\s*\"?([\\w$]+)\"?\\s*\\)\\s*\\{");
  private static final Pattern STATE = Pattern.compile("\\bff\\s*\\(\\s*\"?([\\w$]+)\"?\\s*,\\s*\"?([\\w$]+)\"?\\s*\\)");
  private static final Pattern PIN = Pattern.compile("\\bpin\\s*\\(\\s*\"?([\\w$]+)\"?\\s*\\)\\s*\\{");
  private static final Pattern FUNCTION = Pattern.compile("function\\s*:\\s*\"([^\"]*)\"\\s*;");

  private FlopPowerCells() {
  }

  /** The flip-flop cells of {@code liberty} (cells with an {@code ff} group), in library order. */
  static Set<String> flipFlopCells(String liberty) {
    Set<String> out = new LinkedHashSet<>();
    for (int[] c : cells(liberty)) {
      String body = liberty.substring(c[0], c[1]);
      if (STATE.matcher(body).find()) {
        Matcher name = CELL.matcher(body);
        name.find();
        out.add(name.group(1));
      }
    }
    return out;
  }

  /** {@code liberty} with a power copy of each flip-flop cell added before the library's closing brace. */
  static String library(String liberty) {
    StringBuilder copies = new StringBuilder();
    for (int[] c : cells(liberty)) {
      String body = liberty.substring(c[0], c[1]);
      Matcher state = STATE.matcher(body);
      if (state.find()) {
        copies.append(copy(body, state.group(1), state.group(2))).append('\n');
      }
    }
    if (copies.length() == 0) {
      return liberty;
    }
    int close = liberty.lastIndexOf('}');
    return liberty.substring(0, close) + copies + liberty.substring(close);
  }

  /** The netlist with every instance of a flip-flop cell of {@code cells} an instance of its power copy. */
  static String netlist(String netlist, Set<String> cells) {
    if (cells.isEmpty()) {
      return netlist;
    }
    Pattern instance = Pattern.compile("(?m)^(\\s*)(" + String.join("|", cells.stream().map(Pattern::quote).toList())
        + ")(\\s+(?:\\\\\\S+ |[\\w$.\\[\\]]+)\\s*\\()");
    return instance.matcher(netlist).replaceAll("$1" + PREFIX + "$2$3");
  }

  /**
   * A copy of one flip-flop cell: renamed, the seed pin added, each output that is a function of the state ({@code
   * state} or {@code stateInverted}) its own function, reached from the seed pin.
   */
  private static String copy(String cell, String state, String stateInverted) {
    Matcher name = CELL.matcher(cell);
    name.find();
    StringBuilder out = new StringBuilder(cell.substring(0, name.start(1))).append(PREFIX).append(name.group(1));
    int at = name.end(1);
    Matcher pin = PIN.matcher(cell);
    boolean seeded = false;
    while (pin.find(at)) {
      int end = closing(cell, pin.end() - 1);
      String body = cell.substring(pin.start(), end + 1);
      Matcher f = FUNCTION.matcher(body);
      if (f.find() && dependsOn(f.group(1), state, stateInverted)) {
        String own = "function : \"" + pin.group(1) + "\";\n" + seedArc();
        body = body.substring(0, f.start()) + own + body.substring(f.end());
        if (!seeded) {
          out.append(cell, at, pin.start()).append("pin(").append(SEED_PIN).append(") {\n    direction : input;\n"
              + "    capacitance : 0;\n  }\n  ");
          seeded = true;
          at = pin.start();
        }
      }
      out.append(cell, at, pin.start()).append(body);
      at = end + 1;
    }
    return out.append(cell.substring(at)).toString();
  }

  private static boolean dependsOn(String function, String state, String stateInverted) {
    return Pattern.compile("\\b(" + Pattern.quote(state) + "|" + Pattern.quote(stateInverted) + ")\\b")
        .matcher(function).find();
  }

  private static String seedArc() {
    return "    timing() {\n      related_pin : \"" + SEED_PIN + "\";\n      timing_sense : positive_unate;\n"
        + "      timing_type : combinational;\n      cell_rise(scalar) { values (\"0.0\"); }\n"
        + "      cell_fall(scalar) { values (\"0.0\"); }\n      rise_transition(scalar) { values (\"0.0\"); }\n"
        + "      fall_transition(scalar) { values (\"0.0\"); }\n    }";
  }

  /** The [start, end) ranges of the library's top-level cell groups. */
  private static List<int[]> cells(String liberty) {
    List<int[]> out = new ArrayList<>();
    Matcher m = CELL.matcher(liberty);
    int from = 0;
    while (m.find(from)) {
      int end = closing(liberty, m.end() - 1) + 1;
      out.add(new int[] {m.start(), end});
      from = end;
    }
    return out;
  }

  /** The index of the brace closing the one at {@code open} (Liberty strings hold no braces in these libraries). */
  private static int closing(String s, int open) {
    int depth = 0;
    for (int i = open; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '{') {
        depth++;
      } else if (c == '}' && --depth == 0) {
        return i;
      }
    }
    throw new IllegalArgumentException("unbalanced braces in the liberty from offset " + open);
  }
}
