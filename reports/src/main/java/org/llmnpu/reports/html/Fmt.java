package org.llmnpu.reports.html;

import java.util.Locale;

/** Number and text formatting shared by the report writers: locale-independent, so output is byte-stable. */
final class Fmt {
  private Fmt() {
  }

  /** Fixed decimals. */
  static String fixed(double v, int decimals) {
    return String.format(Locale.ROOT, "%." + decimals + "f", v);
  }

  /** Four significant digits, plain or scientific as fits. */
  static String sig(double v) {
    if (v == 0) {
      return "0";
    }
    double a = Math.abs(v);
    if (a >= 1e-3 && a < 1e7) {
      int decimals = Math.max(0, 3 - (int) Math.floor(Math.log10(a)));
      return String.format(Locale.ROOT, "%." + decimals + "f", v);
    }
    return String.format(Locale.ROOT, "%.3e", v);
  }

  /** Integer with thousands separators. */
  static String grouped(double v) {
    return String.format(Locale.ROOT, "%,.0f", v);
  }

  /** Text safe inside HTML and SVG. */
  static String esc(String s) {
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
  }

  /** A CSV field, quoted when needed. */
  static String csv(String s) {
    return s.contains(",") || s.contains("\"") || s.contains("\n") ? "\"" + s.replace("\"", "\"\"") + "\"" : s;
  }
}
