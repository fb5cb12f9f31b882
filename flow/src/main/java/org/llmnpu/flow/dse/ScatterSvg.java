package org.llmnpu.flow.dse;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/**
 * An inline SVG scatter plot of two objectives, with no external resources: every finished point as a dot (its id
 * and values in a tooltip), the points on the sweep's Pareto front filled red and larger, the others grey, and the
 * two-objective front of this pair as a dashed staircase. An axis whose values span more than a factor of 20 is
 * logarithmic (said in its label). Coordinates are printed with one decimal, so the same points give the same bytes.
 */
final class ScatterSvg {
  private static final int W = 460;
  private static final int H = 320;
  private static final int LEFT = 78;
  private static final int RIGHT = 30;
  private static final int TOP = 30;
  private static final int BOTTOM = 52;

  /** One plotted point. */
  record Dot(String id, double x, double y, boolean onFront) {
  }

  private ScatterSvg() {
  }

  static String plot(Objective xo, Objective yo, List<Dot> dots) {
    Axis ax = Axis.of(dots.stream().mapToDouble(Dot::x).toArray(), W - LEFT - RIGHT, false);
    Axis ay = Axis.of(dots.stream().mapToDouble(Dot::y).toArray(), H - TOP - BOTTOM, true);
    StringBuilder s = new StringBuilder();
    s.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
        + "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\">%n", W, H, W, H));
    s.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"18\" font-size=\"13\" font-weight=\"bold\">%s vs %s</text>%n",
        LEFT, DseHtml.esc(yo.label), DseHtml.esc(xo.label)));
    s.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" "
        + "stroke=\"#444\"/>%n", LEFT, TOP, W - LEFT - RIGHT, H - TOP - BOTTOM));
    for (int i = 0; i <= 4; i++) {
      double fx = LEFT + ax.pixels * i / 4.0;
      double fy = TOP + ay.pixels - ay.pixels * i / 4.0;
      s.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#e4e4e4\"/>"
          + "<text x=\"%.1f\" y=\"%d\" font-size=\"10\" text-anchor=\"middle\">%s</text>%n", fx, TOP, fx,
          TOP + ay.pixels, fx, TOP + ay.pixels + 14, DseHtml.sig(ax.valueAt(i / 4.0))));
      s.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#e4e4e4\"/>"
          + "<text x=\"%d\" y=\"%.1f\" font-size=\"10\" text-anchor=\"end\">%s</text>%n", LEFT, fy,
          LEFT + ax.pixels, fy, LEFT - 4, fy + 3, DseHtml.sig(ay.valueAt(i / 4.0))));
    }
    s.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" font-size=\"11\" text-anchor=\"middle\">%s (%s)%s"
        + "</text>%n", LEFT + ax.pixels / 2, H - 12, DseHtml.esc(xo.label), DseHtml.esc(xo.unit),
        ax.log ? ", log scale" : ""));
    s.append(String.format(Locale.ROOT, "<text transform=\"translate(14,%d) rotate(-90)\" font-size=\"11\" "
        + "text-anchor=\"middle\">%s (%s)%s</text>%n", TOP + ay.pixels / 2, DseHtml.esc(yo.label),
        DseHtml.esc(yo.unit), ay.log ? ", log scale" : ""));
    List<Dot> stairs = pairFront(dots);
    if (stairs.size() > 1) {
      StringBuilder pts = new StringBuilder();
      for (int i = 0; i < stairs.size(); i++) {
        Dot d = stairs.get(i);
        if (i > 0) {
          pts.append(String.format(Locale.ROOT, "%.1f,%.1f ", LEFT + ax.pos(d.x()),
              TOP + ay.pixels - ay.pos(stairs.get(i - 1).y())));
        }
        pts.append(String.format(Locale.ROOT, "%.1f,%.1f ", LEFT + ax.pos(d.x()), TOP + ay.pixels - ay.pos(d.y())));
      }
      s.append("<polyline fill=\"none\" stroke=\"#d62728\" stroke-dasharray=\"4 3\" points=\"")
          .append(pts.toString().trim()).append("\"/>\n");
    }
    for (Dot d : dots) {
      s.append(String.format(Locale.ROOT, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%s\" fill=\"%s\" stroke=\"#222\" "
              + "stroke-width=\"0.6\"><title>%s: %s %s %s, %s %s %s%s</title></circle>%n", LEFT + ax.pos(d.x()),
          TOP + ay.pixels - ay.pos(d.y()), d.onFront() ? "5" : "3.5", d.onFront() ? "#d62728" : "#bbbbbb",
          DseHtml.esc(d.id()), DseHtml.esc(xo.label), DseHtml.sig(d.x()), DseHtml.esc(xo.unit),
          DseHtml.esc(yo.label), DseHtml.sig(d.y()), DseHtml.esc(yo.unit), d.onFront() ? " (on the front)" : ""));
    }
    return s.append("</svg>\n").toString();
  }

  /** The points no other point beats in both coordinates, by increasing x. */
  static List<Dot> pairFront(List<Dot> dots) {
    List<Dot> sorted = new ArrayList<>(dots);
    sorted.sort(Comparator.comparingDouble(Dot::x).thenComparingDouble(Dot::y).thenComparing(Dot::id));
    List<Dot> out = new ArrayList<>();
    double best = Double.POSITIVE_INFINITY;
    for (Dot d : sorted) {
      if (d.y() < best) {
        out.add(d);
        best = d.y();
      }
    }
    return out;
  }

  /** A linear or logarithmic axis over the values with a 5 % margin each side. */
  private record Axis(double lo, double hi, boolean log, int pixels) {
    static Axis of(double[] values, int pixels, boolean vertical) {
      double min = java.util.Arrays.stream(values).min().orElse(0);
      double max = java.util.Arrays.stream(values).max().orElse(1);
      boolean log = min > 0 && max / min > 20;
      double lo = log ? Math.log10(min) : min;
      double hi = log ? Math.log10(max) : max;
      if (hi - lo < 1e-12 * Math.max(1, Math.abs(hi))) {
        double pad = Math.abs(hi) > 0 ? Math.abs(hi) * 0.1 : 1;
        lo -= pad;
        hi += pad;
      } else {
        double pad = (hi - lo) * 0.05;
        lo -= pad;
        hi += pad;
      }
      return new Axis(lo, hi, log, pixels);
    }

    double pos(double v) {
      double t = log ? Math.log10(v) : v;
      return pixels * (t - lo) / (hi - lo);
    }

    double valueAt(double fraction) {
      double t = lo + (hi - lo) * fraction;
      return log ? Math.pow(10, t) : t;
    }
  }
}
