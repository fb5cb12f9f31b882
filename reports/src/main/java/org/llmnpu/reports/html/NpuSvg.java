package org.llmnpu.reports.html;

import java.util.List;
import java.util.Locale;

/**
 * The whole-NPU report's inline SVG charts (no scripts, no external resources): a pie with a
 * legend, horizontal bars, a log-log scatter with the diagonal, stacked bars and a roofline.
 */
final class NpuSvg {
  static final String[] COLORS = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
      "#7f7f7f", "#bcbd22", "#17becf"};

  /** A labelled value. */
  record Slice(String label, double value) {
  }

  /** A point of a scatter plot. */
  record Point(String label, double x, double y, boolean good) {
  }

  /** One stacked bar: a category and its parts in series order. */
  record Stack(String category, List<Double> parts) {
  }

  private NpuSvg() {
  }

  private static String f(double v) {
    return String.format(Locale.ROOT, "%.1f", v);
  }

  private static StringBuilder open(int w, int h, String title) {
    StringBuilder s = new StringBuilder();
    s.append("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"").append(w).append("\" height=\"").append(h)
        .append("\" viewBox=\"0 0 ").append(w).append(' ').append(h).append("\" role=\"img\">\n<title>")
        .append(Fmt.esc(title)).append("</title>\n<rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>\n")
        .append("<text x=\"").append(w / 2).append("\" y=\"20\" text-anchor=\"middle\" font-size=\"14\" "
            + "font-weight=\"bold\">").append(Fmt.esc(title)).append("</text>\n");
    return s;
  }

  /** A pie chart of positive values with a legend (label, value, share). */
  static String pie(String title, List<Slice> slices, String unit) {
    int w = 720;
    int h = Math.max(300, 60 + 22 * slices.size());
    StringBuilder s = open(w, h, title);
    double total = slices.stream().mapToDouble(x -> Math.max(0, x.value())).sum();
    double cx = 150;
    double cy = 165;
    double r = 120;
    double a = -Math.PI / 2;
    for (int i = 0; i < slices.size(); i++) {
      Slice sl = slices.get(i);
      double v = Math.max(0, sl.value());
      String color = COLORS[i % COLORS.length];
      String tip = "<title>" + Fmt.esc(sl.label()) + ": " + Fmt.grouped(v) + " " + Fmt.esc(unit) + "</title>";
      if (total > 0 && v / total > 0.9999) {
        s.append("<circle cx=\"").append(f(cx)).append("\" cy=\"").append(f(cy)).append("\" r=\"").append(f(r))
            .append("\" fill=\"").append(color).append("\">").append(tip).append("</circle>\n");
      } else if (total > 0 && v > 0) {
        double b = a + 2 * Math.PI * v / total;
        s.append("<path d=\"M").append(f(cx)).append(',').append(f(cy)).append(" L")
            .append(f(cx + r * Math.cos(a))).append(',').append(f(cy + r * Math.sin(a))).append(" A")
            .append(f(r)).append(',').append(f(r)).append(" 0 ").append(b - a > Math.PI ? 1 : 0).append(",1 ")
            .append(f(cx + r * Math.cos(b))).append(',').append(f(cy + r * Math.sin(b)))
            .append(" Z\" fill=\"").append(color).append("\" stroke=\"#fff\">").append(tip).append("</path>\n");
        a = b;
      }
      double ly = 50 + 22 * i;
      s.append("<rect x=\"300\" y=\"").append(f(ly - 11)).append("\" width=\"14\" height=\"14\" fill=\"")
          .append(color).append("\"/><text x=\"320\" y=\"").append(f(ly)).append("\" font-size=\"12\">")
          .append(Fmt.esc(sl.label())).append(": ").append(Fmt.sig(total == 0 ? 0 : 100 * v / total))
          .append(" %</text>\n");
    }
    return s.append("</svg>\n").toString();
  }

  /** Horizontal bars from zero. */
  static String bars(String title, List<Slice> bars, String unit) {
    return bars(title, bars, unit, 300);
  }

  /**
   * Horizontal bars from zero, the labels' column at least {@code minLeft} pixels and wide enough for the longest
   * label (7 px a character at 12 px).
   */
  static String bars(String title, List<Slice> bars, String unit, int minLeft) {
    int left = Math.max(minLeft, 10 + 7 * bars.stream().mapToInt(b -> b.label().length()).max().orElse(0));
    int w = Math.max(720, left + 420);
    int h = 60 + 26 * bars.size();
    StringBuilder s = open(w, h, title);
    double max = bars.stream().mapToDouble(Slice::value).max().orElse(1);
    double plotW = w - left - 90;
    for (int i = 0; i < bars.size(); i++) {
      Slice b = bars.get(i);
      double y = 36 + 26 * i;
      double len = max > 0 ? plotW * Math.max(0, b.value()) / max : 0;
      s.append("<text x=\"").append(left - 6).append("\" y=\"").append(f(y + 14))
          .append("\" text-anchor=\"end\" font-size=\"12\">").append(Fmt.esc(b.label())).append("</text>")
          .append("<rect x=\"").append(left).append("\" y=\"").append(f(y)).append("\" width=\"").append(f(len))
          .append("\" height=\"18\" fill=\"").append(COLORS[i % COLORS.length]).append("\"/>")
          .append("<text x=\"").append(f(left + len + 4)).append("\" y=\"").append(f(y + 14))
          .append("\" font-size=\"12\">").append(Fmt.sig(b.value())).append(' ').append(Fmt.esc(unit))
          .append("</text>\n");
    }
    return s.append("</svg>\n").toString();
  }

  /** Decade bounds covering the values (at least one decade). */
  private static double[] decades(double lo, double hi) {
    double a = Math.pow(10, Math.floor(Math.log10(Math.max(lo, 1e-30))));
    double b = Math.pow(10, Math.ceil(Math.log10(Math.max(hi, 1e-30))));
    if (b <= a) {
      b = a * 10;
    }
    return new double[] {a, b};
  }

  private static void logAxes(StringBuilder s, double[] xr, double[] yr, int left, int top, int pw, int ph,
                              String xLabel, String yLabel) {
    for (double v = xr[0]; v <= xr[1] * 1.0001; v *= 10) {
      double x = left + pw * Math.log10(v / xr[0]) / Math.log10(xr[1] / xr[0]);
      s.append("<line x1=\"").append(f(x)).append("\" y1=\"").append(top).append("\" x2=\"").append(f(x))
          .append("\" y2=\"").append(top + ph).append("\" stroke=\"#e4e4e4\"/><text x=\"").append(f(x))
          .append("\" y=\"").append(top + ph + 16).append("\" text-anchor=\"middle\" font-size=\"11\">")
          .append(Fmt.sig(v)).append("</text>\n");
    }
    for (double v = yr[0]; v <= yr[1] * 1.0001; v *= 10) {
      double y = top + ph - ph * Math.log10(v / yr[0]) / Math.log10(yr[1] / yr[0]);
      s.append("<line x1=\"").append(left).append("\" y1=\"").append(f(y)).append("\" x2=\"").append(left + pw)
          .append("\" y2=\"").append(f(y)).append("\" stroke=\"#e4e4e4\"/><text x=\"").append(left - 6)
          .append("\" y=\"").append(f(y + 4)).append("\" text-anchor=\"end\" font-size=\"11\">")
          .append(Fmt.sig(v)).append("</text>\n");
    }
    s.append("<rect x=\"").append(left).append("\" y=\"").append(top).append("\" width=\"").append(pw)
        .append("\" height=\"").append(ph).append("\" fill=\"none\" stroke=\"#444\"/>\n")
        .append("<text x=\"").append(left + pw / 2).append("\" y=\"").append(top + ph + 38)
        .append("\" text-anchor=\"middle\" font-size=\"12\">").append(Fmt.esc(xLabel)).append("</text>\n")
        .append("<text x=\"16\" y=\"").append(top + ph / 2).append("\" text-anchor=\"middle\" font-size=\"12\" "
            + "transform=\"rotate(-90 16 ").append(top + ph / 2).append(")\">").append(Fmt.esc(yLabel))
        .append("</text>\n");
  }

  private static double lx(double v, double[] r, int left, int pw) {
    return left + pw * Math.log10(v / r[0]) / Math.log10(r[1] / r[0]);
  }

  private static double ly(double v, double[] r, int top, int ph) {
    return top + ph - ph * Math.log10(v / r[0]) / Math.log10(r[1] / r[0]);
  }

  /** Model (x) against RTL (y) cycles, log-log, with the line y = x; a failed point is red. */
  static String scatter(String title, String xLabel, String yLabel, List<Point> points) {
    int w = 560;
    int h = 420;
    int left = 80;
    int top = 36;
    int pw = w - left - 24;
    int ph = h - top - 64;
    StringBuilder s = open(w, h, title);
    double lo = points.stream().mapToDouble(p -> Math.min(p.x(), p.y())).filter(v -> v > 0).min().orElse(1);
    double hi = points.stream().mapToDouble(p -> Math.max(p.x(), p.y())).max().orElse(10);
    double[] r = decades(lo, hi);
    logAxes(s, r, r, left, top, pw, ph, xLabel, yLabel);
    s.append("<line x1=\"").append(left).append("\" y1=\"").append(top + ph).append("\" x2=\"").append(left + pw)
        .append("\" y2=\"").append(top).append("\" stroke=\"#999\" stroke-dasharray=\"4 3\"/>\n");
    for (Point p : points) {
      double x = lx(Math.max(p.x(), r[0]), r, left, pw);
      double y = ly(Math.max(p.y(), r[0]), r, top, ph);
      s.append("<circle cx=\"").append(f(x)).append("\" cy=\"").append(f(y)).append("\" r=\"5\" fill=\"")
          .append(p.good() ? "#1f77b4" : "#d62728").append("\" fill-opacity=\"0.7\"><title>")
          .append(Fmt.esc(p.label())).append(": model ").append(Fmt.grouped(p.x())).append(", RTL ")
          .append(Fmt.grouped(p.y())).append("</title></circle>\n");
    }
    return s.append("</svg>\n").toString();
  }

  /** Vertical stacked bars, one per category, parts in series order, with a legend. */
  static String stacked(String title, String yLabel, List<String> series, List<Stack> stacks) {
    int w = 620;
    int h = 380;
    int left = 80;
    int top = 36;
    int ph = h - top - 60;
    int legendX = 60 + 130 * stacks.size() + 40;
    StringBuilder s = open(w, h, title);
    double max = stacks.stream().mapToDouble(st -> st.parts().stream().mapToDouble(d -> Math.max(0, d)).sum())
        .max().orElse(1);
    double topV = max > 0 ? max * 1.1 : 1;
    for (int i = 0; i <= 4; i++) {
      double v = topV * i / 4;
      double y = top + ph - ph * i / 4.0;
      s.append("<line x1=\"").append(left).append("\" y1=\"").append(f(y)).append("\" x2=\"")
          .append(legendX - 20).append("\" y2=\"").append(f(y)).append("\" stroke=\"#e4e4e4\"/><text x=\"")
          .append(left - 6).append("\" y=\"").append(f(y + 4)).append("\" text-anchor=\"end\" font-size=\"11\">")
          .append(Fmt.sig(v)).append("</text>\n");
    }
    s.append("<text x=\"16\" y=\"").append(top + ph / 2).append("\" text-anchor=\"middle\" font-size=\"12\" "
        + "transform=\"rotate(-90 16 ").append(top + ph / 2).append(")\">").append(Fmt.esc(yLabel))
        .append("</text>\n");
    for (int c = 0; c < stacks.size(); c++) {
      Stack st = stacks.get(c);
      double x = left + 30 + 130 * c;
      double y = top + ph;
      for (int k = 0; k < st.parts().size(); k++) {
        double v = Math.max(0, st.parts().get(k));
        double hh = ph * v / topV;
        y -= hh;
        s.append("<rect x=\"").append(f(x)).append("\" y=\"").append(f(y)).append("\" width=\"70\" height=\"")
            .append(f(hh)).append("\" fill=\"").append(COLORS[k % COLORS.length]).append("\"><title>")
            .append(Fmt.esc(st.category())).append(", ").append(Fmt.esc(series.get(k))).append(": ")
            .append(Fmt.sig(v)).append("</title></rect>\n");
      }
      s.append("<text x=\"").append(f(x + 35)).append("\" y=\"").append(top + ph + 16)
          .append("\" text-anchor=\"middle\" font-size=\"12\">").append(Fmt.esc(st.category())).append("</text>\n");
    }
    for (int k = 0; k < series.size(); k++) {
      double yy = top + 10 + 22 * k;
      s.append("<rect x=\"").append(legendX).append("\" y=\"").append(f(yy - 11))
          .append("\" width=\"14\" height=\"14\" fill=\"").append(COLORS[k % COLORS.length])
          .append("\"/><text x=\"").append(legendX + 20).append("\" y=\"").append(f(yy))
          .append("\" font-size=\"12\">").append(Fmt.esc(series.get(k))).append("</text>\n");
    }
    return s.append("</svg>\n").toString();
  }

  /**
   * A roofline: attainable ops/s = min(peak, bandwidth × intensity), log-log, with points at
   * (ops per byte, achieved ops/s); prefill points blue, decode orange.
   */
  static String roofline(String title, double peak, double bandwidth, List<Point> points) {
    int w = 620;
    int h = 420;
    int left = 90;
    int top = 36;
    int pw = w - left - 24;
    int ph = h - top - 64;
    StringBuilder s = open(w, h, title);
    double ridge = peak / bandwidth;
    double xlo = Math.min(ridge / 100, points.stream().mapToDouble(Point::x).filter(v -> v > 0).min().orElse(1));
    double xhi = Math.max(ridge * 10, points.stream().mapToDouble(Point::x).max().orElse(1));
    double[] xr = decades(xlo, xhi);
    double ylo = Math.min(bandwidth * xr[0], points.stream().mapToDouble(Point::y).filter(v -> v > 0).min()
        .orElse(peak));
    double[] yr = decades(ylo, peak * 1.5);
    logAxes(s, xr, yr, left, top, pw, ph, "arithmetic intensity (ops per external-memory byte)",
        "ops per second");
    double x0 = lx(xr[0], xr, left, pw);
    double xRidge = lx(ridge, xr, left, pw);
    double xEnd = left + pw;
    s.append("<polyline fill=\"none\" stroke=\"#222\" stroke-width=\"2\" points=\"").append(f(x0)).append(',')
        .append(f(ly(bandwidth * xr[0], yr, top, ph))).append(' ').append(f(xRidge)).append(',')
        .append(f(ly(peak, yr, top, ph))).append(' ').append(f(xEnd)).append(',').append(f(ly(peak, yr, top, ph)))
        .append("\"><title>roof: peak ").append(Fmt.sig(peak)).append(" ops/s, ").append(Fmt.sig(bandwidth))
        .append(" B/s</title></polyline>\n");
    s.append("<text x=\"").append(left + pw - 4).append("\" y=\"").append(f(ly(peak, yr, top, ph) - 6))
        .append("\" text-anchor=\"end\" font-size=\"11\">peak ").append(Fmt.sig(peak / 1e9)).append(" GOPS, ridge ")
        .append(Fmt.sig(ridge)).append(" ops/B</text>\n");
    for (Point p : points) {
      if (p.x() <= 0 || p.y() <= 0) {
        continue;
      }
      s.append("<circle cx=\"").append(f(lx(p.x(), xr, left, pw))).append("\" cy=\"")
          .append(f(ly(p.y(), yr, top, ph))).append("\" r=\"5\" fill=\"").append(p.good() ? "#1f77b4" : "#ff7f0e")
          .append("\" fill-opacity=\"0.75\"><title>").append(Fmt.esc(p.label())).append(": ")
          .append(Fmt.sig(p.x())).append(" ops/B, ").append(Fmt.sig(p.y() / 1e9)).append(" GOPS</title></circle>\n");
    }
    s.append("<circle cx=\"").append(left + 12).append("\" cy=\"").append(top + 14)
        .append("\" r=\"5\" fill=\"#1f77b4\"/><text x=\"").append(left + 22).append("\" y=\"").append(top + 18)
        .append("\" font-size=\"11\">prefill GEMMs</text><circle cx=\"").append(left + 12).append("\" cy=\"")
        .append(top + 32).append("\" r=\"5\" fill=\"#ff7f0e\"/><text x=\"").append(left + 22).append("\" y=\"")
        .append(top + 36).append("\" font-size=\"11\">decode GEMMs</text>\n");
    return s.append("</svg>\n").toString();
  }
}
