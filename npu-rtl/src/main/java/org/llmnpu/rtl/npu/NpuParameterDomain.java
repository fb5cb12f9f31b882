package org.llmnpu.rtl.npu;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.llmnpu.hdl.gen.ParamSpec;

/**
 * The values one NPU parameter takes: an integer range (optionally powers of two only), a boolean, or a closed set
 * of names (with accepted aliases). It parses text (a YAML/JSON value, a {@code -p name=value}) into the canonical
 * text and checks values, with errors of the form {@code <name> must be <allowed>, got <value>}.
 *
 * @param kind       integer, boolean or choice
 * @param min        smallest integer value
 * @param max        largest integer value
 * @param powerOfTwo integers must be powers of two
 * @param choices    the canonical names of a choice, in the order they are listed
 * @param aliases    other accepted spellings of a choice (lower case) and the canonical name each stands for
 */
public record NpuParameterDomain(ParamSpec.Kind kind, long min, long max, boolean powerOfTwo, List<String> choices,
                                 Map<String, String> aliases) {

  public NpuParameterDomain {
    choices = List.copyOf(choices);
    aliases = Map.copyOf(aliases);
  }

  /** Integers in {@code min..max}. */
  static NpuParameterDomain range(long min, long max) {
    return new NpuParameterDomain(ParamSpec.Kind.INT, min, max, false, List.of(), Map.of());
  }

  /** Powers of two in {@code min..max}. */
  static NpuParameterDomain powersOfTwo(long min, long max) {
    return new NpuParameterDomain(ParamSpec.Kind.INT, min, max, true, List.of(), Map.of());
  }

  /** {@code true} or {@code false}. */
  static NpuParameterDomain bool() {
    return new NpuParameterDomain(ParamSpec.Kind.BOOL, 0, 1, false, List.of("true", "false"), Map.of());
  }

  /** One of {@code choices}, or an alias of one. */
  static NpuParameterDomain choice(List<String> choices, Map<String, String> aliases) {
    return new NpuParameterDomain(ParamSpec.Kind.CHOICE, 0, 0, false, choices, aliases);
  }

  /** The allowed values as an error message says them: {@code a power of two in 4..64}, {@code one of on, off}. */
  public String allowed() {
    return switch (kind) {
      case INT -> (powerOfTwo ? "a power of two in " : "in ") + bound(min) + ".." + bound(max);
      case BOOL -> "true or false";
      case CHOICE -> "one of " + String.join(", ", choices);
    };
  }

  /** {@code 2^k} for the large powers of two, so that {@code 4294967296} reads {@code 2^32}. */
  private static String bound(long v) {
    return v >= (1L << 20) && Long.bitCount(v) == 1 ? "2^" + Long.numberOfTrailingZeros(v) : Long.toString(v);
  }

  /** Whether the integer {@code v} is allowed. */
  boolean accepts(long v) {
    return v >= min && v <= max && (!powerOfTwo || Long.bitCount(v) == 1);
  }

  /**
   * The canonical text of {@code text} ({@code 16}, {@code true}, {@code 2:4}): surrounding blanks dropped, an alias
   * replaced by its name, booleans and choices case-insensitive.
   *
   * @throws IllegalArgumentException {@code <name> must be <allowed>, got '<text>'}
   */
  String canonical(String name, String text) {
    String t = text == null ? "" : text.strip();
    switch (kind) {
      case INT -> {
        try {
          long v = Long.parseLong(t);
          if (accepts(v)) {
            return Long.toString(v);
          }
        } catch (NumberFormatException e) {
          // reported below with the allowed values
        }
      }
      case BOOL -> {
        String b = t.toLowerCase(Locale.ROOT);
        if (b.equals("true") || b.equals("false")) {
          return b;
        }
      }
      case CHOICE -> {
        String c = t.toLowerCase(Locale.ROOT);
        if (choices.contains(c)) {
          return c;
        }
        if (aliases.containsKey(c)) {
          return aliases.get(c);
        }
      }
    }
    throw new IllegalArgumentException(name + " must be " + allowed() + ", got '" + text + "'");
  }

  /** @throws IllegalArgumentException {@code <name> must be <allowed>, got <v>} when {@code v} is not allowed */
  void check(String name, long v) {
    if (!accepts(v)) {
      throw new IllegalArgumentException(name + " must be " + allowed() + ", got " + v);
    }
  }
}
