package org.llmnpu.hdl;

import java.util.Map;

/**
 * Integer expressions of a module header (ranges, parameter defaults): numbers (decimal, {@code 8'd200},
 * {@code 'hff}, {@code 4'b1010}), parameter names, {@code + - * / % ** << >>}, unary minus, parentheses and
 * {@code $clog2(x)}, with Verilog's precedence. Evaluated in 64-bit integers.
 */
final class HeaderExpr {
  private final String[] tokens;
  private final Map<String, Long> values;
  private int pos;

  private HeaderExpr(String text, Map<String, Long> values) {
    this.tokens = text.split(" ");
    this.values = values;
  }

  /** The value of {@code text} (tokens separated by single spaces). */
  static long evaluate(String text, Map<String, Long> values) {
    HeaderExpr e = new HeaderExpr(text, values);
    long v = e.shift();
    if (e.pos != e.tokens.length) {
      throw new IllegalArgumentException("cannot evaluate `" + text + "` at `" + e.tokens[e.pos] + "`");
    }
    return v;
  }

  /** The value, or null when it is not an integer expression (a string parameter, for example). */
  static Long tryEvaluate(String text, Map<String, Long> values) {
    try {
      return evaluate(text, values);
    } catch (IllegalArgumentException | ArithmeticException e) {
      return null;
    }
  }

  private long shift() {
    long v = additive();
    while (peek("<<") || peek(">>")) {
      String op = tokens[pos++];
      long r = additive();
      v = op.equals("<<") ? v << r : v >> r;
    }
    return v;
  }

  private long additive() {
    long v = multiplicative();
    while (peek("+") || peek("-")) {
      String op = tokens[pos++];
      long r = multiplicative();
      v = op.equals("+") ? v + r : v - r;
    }
    return v;
  }

  private long multiplicative() {
    long v = power();
    while (peek("*") || peek("/") || peek("%")) {
      String op = tokens[pos++];
      long r = power();
      v = switch (op) {
        case "*" -> v * r;
        case "/" -> v / r;
        default -> v % r;
      };
    }
    return v;
  }

  private long power() {
    long base = unary();
    if (peek("**")) {
      pos++;
      long exp = power();
      long v = 1;
      for (long i = 0; i < exp; i++) {
        v *= base;
      }
      return v;
    }
    return base;
  }

  private long unary() {
    if (peek("-")) {
      pos++;
      return -unary();
    }
    if (peek("+")) {
      pos++;
      return unary();
    }
    return primary();
  }

  private long primary() {
    if (pos >= tokens.length) {
      throw new IllegalArgumentException("expression ends early");
    }
    String t = tokens[pos++];
    if (t.equals("(")) {
      long v = shift();
      expect(")");
      return v;
    }
    if (t.equals("$clog2")) {
      expect("(");
      long v = shift();
      expect(")");
      return v <= 1 ? 0 : 64 - Long.numberOfLeadingZeros(v - 1);
    }
    if (Character.isDigit(t.charAt(0)) || t.charAt(0) == '\'') {
      return number(t);
    }
    Long v = values.get(t);
    if (v == null) {
      throw new IllegalArgumentException("`" + t + "` is not an integer parameter or number");
    }
    return v;
  }

  private static long number(String t) {
    String s = t.replace("_", "");
    int tick = s.indexOf('\'');
    if (tick < 0) {
      return Long.parseLong(s);
    }
    String rest = s.substring(tick + 1).toLowerCase(java.util.Locale.ROOT);
    if (rest.startsWith("s")) {
      rest = rest.substring(1);
    }
    int radix = switch (rest.isEmpty() ? ' ' : rest.charAt(0)) {
      case 'd' -> 10;
      case 'h' -> 16;
      case 'b' -> 2;
      case 'o' -> 8;
      default -> throw new IllegalArgumentException("number `" + t + "` has no base d, h, b or o");
    };
    try {
      return Long.parseLong(rest.substring(1), radix);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("number `" + t + "` is not an integer (x and z digits are not supported)");
    }
  }

  private boolean peek(String op) {
    return pos < tokens.length && tokens[pos].equals(op);
  }

  private void expect(String op) {
    if (!peek(op)) {
      throw new IllegalArgumentException("`" + op + "` expected");
    }
    pos++;
  }
}
