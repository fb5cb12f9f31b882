package org.llmnpu.cli.report;

import java.util.ArrayList;
import java.util.List;

/**
 * The {@code --sweep name=v1,v2,...} option: one parameter and its values in plot order.
 *
 * @param param  the parameter to vary
 * @param values its values, at least one, no duplicates
 */
record SweepSpec(String param, List<String> values) {

  /** Parses the option text, or returns null when the option is absent. */
  static SweepSpec parse(String text) {
    if (text == null) {
      return null;
    }
    int eq = text.indexOf('=');
    if (eq <= 0 || eq == text.length() - 1) {
      throw new IllegalArgumentException("--sweep: expected name=v1,v2,... (e.g. depth=16,32,64), got '" + text + "'");
    }
    List<String> values = new ArrayList<>();
    for (String v : text.substring(eq + 1).split(",", -1)) {
      String t = v.strip();
      if (t.isEmpty() || values.contains(t)) {
        throw new IllegalArgumentException("--sweep: values must be non-empty and distinct, got '" + text + "'");
      }
      values.add(t);
    }
    return new SweepSpec(text.substring(0, eq).strip(), List.copyOf(values));
  }
}
