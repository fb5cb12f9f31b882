package org.llmnpu.flow.dse;

import com.fasterxml.jackson.databind.JsonNode;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;

/**
 * The values of one swept parameter: a list ({@code [4, 8, 16]}), a single value, an arithmetic range
 * ({@code {from: 4, to: 16, step: 4}} → 4, 8, 12, 16) or a geometric one ({@code {from: 4, to: 64, times: 2}} → 4, 8,
 * 16, 32, 64). Ranges include {@code to} when a step lands on it; numbers are exact decimals, so 0.1 steps do not
 * drift. A range of more than {@link #MAX_VALUES} values is refused.
 */
final class ValueRange {
  static final int MAX_VALUES = 10_000;

  private ValueRange() {
  }

  static List<String> values(JsonNode node, String key) {
    List<String> out = new ArrayList<>();
    if (node.isArray()) {
      for (JsonNode v : node) {
        out.add(SweepFile.scalar(v, key));
      }
    } else if (node.isObject()) {
      out.addAll(range(node, key));
    } else {
      out.add(SweepFile.scalar(node, key));
    }
    if (out.isEmpty()) {
      throw new IllegalArgumentException(key + ": give at least one value");
    }
    if (out.stream().distinct().count() != out.size()) {
      throw new IllegalArgumentException(key + ": a value is listed twice in " + out);
    }
    return out;
  }

  private static List<String> range(JsonNode node, String key) {
    SweepFile.checkKeys(node, key + ".", List.of("from", "to", "step", "times"));
    BigDecimal from = decimal(node, "from", key);
    BigDecimal to = decimal(node, "to", key);
    boolean step = node.has("step");
    if (step == node.has("times")) {
      throw new IllegalArgumentException(key + ": a range takes exactly one of step (arithmetic) or times "
          + "(geometric)");
    }
    BigDecimal by = decimal(node, step ? "step" : "times", key);
    if (step ? by.signum() <= 0 : by.compareTo(BigDecimal.ONE) <= 0 || from.signum() <= 0) {
      throw new IllegalArgumentException(key + ": " + (step ? "step must be positive"
          : "times must be above 1 and from positive") + ", got " + node);
    }
    if (from.compareTo(to) > 0) {
      throw new IllegalArgumentException(key + ": from must not exceed to, got " + node);
    }
    List<String> out = new ArrayList<>();
    for (BigDecimal v = from; v.compareTo(to) <= 0; v = step ? v.add(by) : v.multiply(by)) {
      if (out.size() == MAX_VALUES) {
        throw new IllegalArgumentException(key + ": the range has more than " + MAX_VALUES + " values");
      }
      out.add(v.stripTrailingZeros().toPlainString());
    }
    return out;
  }

  private static BigDecimal decimal(JsonNode node, String field, String key) {
    JsonNode v = node.path(field);
    if (!v.isNumber()) {
      throw new IllegalArgumentException(key + "." + field + ": must be a number, got '" + v + "'");
    }
    return v.decimalValue();
  }
}
