package org.llmnpu.cli.report;

import java.util.regex.Pattern;

/**
 * A numeric option written as a plain decimal number ({@code 5}, {@code 2.5}, {@code .25}) in
 * a stated range. Exponents, hexadecimal floats, type suffixes ({@code 5d}), NaN and
 * infinities are refused, so a value never reaches a tool it would break.
 */
public final class DecimalOption {
  private static final Pattern DECIMAL = Pattern.compile("[0-9]+(\\.[0-9]*)?|\\.[0-9]+");

  private DecimalOption() {
  }

  /**
   * The value of {@code option}.
   *
   * @throws IllegalArgumentException naming the option and the allowed values
   */
  public static double parse(String option, String text, double min, double max) {
    String t = text == null ? "" : text.strip();
    String allowed = "allowed: a decimal number in " + plain(min) + ".." + plain(max);
    if (!DECIMAL.matcher(t).matches()) {
      throw new IllegalArgumentException(option + " = '" + text + "' is not a plain decimal number; " + allowed);
    }
    double v = Double.parseDouble(t);
    if (v < min || v > max) {
      throw new IllegalArgumentException(option + " = " + t + " is out of range; " + allowed);
    }
    return v;
  }

  private static String plain(double v) {
    return v == Math.rint(v) ? String.valueOf((long) v) : String.valueOf(v);
  }
}
