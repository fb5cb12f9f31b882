package org.llmnpu.hdl.gen;

import java.util.List;

/**
 * One parameter of a block generator as the CLI and reports show it: name, kind, default
 * and the allowed values (a closed integer range, or an explicit list of choices).
 */
public record ParamSpec(String name, Kind kind, String defaultValue, long min, long max,
                        List<String> choices, String description) {

  /** What values a parameter takes. */
  public enum Kind { INT, BOOL, CHOICE }

  public ParamSpec {
    choices = List.copyOf(choices);
  }

  /** An integer parameter in {@code [min, max]}. */
  public static ParamSpec integer(String name, long defaultValue, long min, long max, String description) {
    return new ParamSpec(name, Kind.INT, Long.toString(defaultValue), min, max, List.of(), description);
  }

  /** An integer parameter that must be a power of two in {@code [min, max]}. */
  public static ParamSpec powerOfTwo(String name, long defaultValue, long min, long max, String description) {
    List<String> values = new java.util.ArrayList<>();
    for (long v = min; v <= max; v *= 2) {
      values.add(Long.toString(v));
    }
    return new ParamSpec(name, Kind.INT, Long.toString(defaultValue), min, max, values, description);
  }

  /** A boolean parameter ({@code true}/{@code false}). */
  public static ParamSpec bool(String name, boolean defaultValue, String description) {
    return new ParamSpec(name, Kind.BOOL, Boolean.toString(defaultValue), 0, 1,
        List.of("true", "false"), description);
  }

  /** A parameter taking one of the given names. */
  public static ParamSpec choice(String name, String defaultValue, List<String> choices, String description) {
    return new ParamSpec(name, Kind.CHOICE, defaultValue, 0, 0, choices, description);
  }

  /** The allowed values as one would write them in an error message. */
  public String allowed() {
    return switch (kind) {
      case INT -> choices.isEmpty() ? min + ".." + max : "a power of two in " + min + ".." + max;
      case BOOL -> "true or false";
      case CHOICE -> "one of " + String.join(", ", choices);
    };
  }

  /**
   * Checks and normalizes a value given as text.
   *
   * @throws ParamException naming the parameter and the allowed values when it does not fit
   */
  public String validate(String block, String value) {
    String v = value.trim();
    switch (kind) {
      case INT -> {
        long n;
        try {
          n = Long.parseLong(v);
        } catch (NumberFormatException e) {
          throw bad(block, value);
        }
        if (n < min || n > max || (!choices.isEmpty() && !choices.contains(Long.toString(n)))) {
          throw bad(block, value);
        }
        return Long.toString(n);
      }
      case BOOL -> {
        if (!v.equals("true") && !v.equals("false")) {
          throw bad(block, value);
        }
        return v;
      }
      default -> {
        if (!choices.contains(v)) {
          throw bad(block, value);
        }
        return v;
      }
    }
  }

  private ParamException bad(String block, String value) {
    return new ParamException(String.format("%s: parameter '%s' = '%s' is not allowed; allowed: %s",
        block, name, value, allowed()));
  }
}
