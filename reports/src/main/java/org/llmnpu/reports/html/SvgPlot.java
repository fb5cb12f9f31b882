package org.llmnpu.reports.html;

import java.util.List;

/**
 * Inline SVG charts with no external resources: a line chart of one or more series against
 * categorical x values (a swept parameter), and a horizontal bar chart (area by cell type).
 */
final class SvgPlot {
  private static final String[] COLORS = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd"};
  private static final int W = 520;
  private static final int H = 300;
  private static final int LEFT = 80;
  private static final int RIGHT = 20;
  private static final int TOP = 36;
  private static final int BOTTOM = 56;

  /** One named series of y values, one per x label. */
  record Series(String name, List<Double> values) {
  }

  private SvgPlot() {
  }

  /** A line chart; the y axis starts at zero so that differences are not exaggerated. */
  static String lines(String title, String xLabel, String yLabel, List<String> xs, List<Series> series) {
    return lines(title, xLabel, yLabel, xs, i -> true, series);
  }

  /**
   * A line chart that labels only the x values {@code tick} accepts (every point keeps its tooltip), for many
   * points such as one per token row.
   */
  static String lines(String title, String xLabel, String yLabel, List<String> xs,
                      java.util.function.IntPredicate tick, List<Series> series) {
    double max = series.stream().flatMap(s -> s.values().stream()).mapToDouble(Double::doubleValue).max().orElse(1);
    double top = niceCeiling(max > 0 ? max : 1);
    StringBuilder s = open(title);
    int plotW = W - LEFT - RIGHT;
    int plotH = H - TOP - BOTTOM;
    for (int i = 0; i <= 4; i++) {
      double v = top * i / 4;
      double y = TOP + plotH - plotH * i / 4.0;
      s.append(String.format(java.util.Locale.ROOT,
          "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>"
              + "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" font-size=\"11\">%s</text>%n",
          LEFT, y, W - RIGHT, y, LEFT - 6, y + 4,
          java.math.BigDecimal.valueOf(v).round(new java.math.MathContext(4)).stripTrailingZeros().toPlainString()));
    }
    for (int i = 0; i < xs.size(); i++) {
      if (!tick.test(i)) {
        continue;
      }
      double x = xPos(i, xs.size(), plotW);
      s.append(String.format(java.util.Locale.ROOT,
          "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" font-size=\"11\">%s</text>%n", x, TOP + plotH + 16,
          Fmt.esc(xs.get(i))));
    }
    axes(s, xLabel, yLabel, plotW, plotH);
    for (int k = 0; k < series.size(); k++) {
      Series ser = series.get(k);
      String color = COLORS[k % COLORS.length];
      StringBuilder pts = new StringBuilder();
      for (int i = 0; i < ser.values().size(); i++) {
        double x = xPos(i, xs.size(), plotW);
        double y = TOP + plotH - plotH * ser.values().get(i) / top;
        pts.append(String.format(java.util.Locale.ROOT, "%.1f,%.1f ", x, y));
        s.append(String.format(java.util.Locale.ROOT, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"%s\">"
            + "<title>%s = %s: %s</title></circle>%n", x, y, color, Fmt.esc(xLabel), Fmt.esc(xs.get(i)),
            Fmt.sig(ser.values().get(i))));
      }
      s.append("<polyline fill=\"none\" stroke=\"").append(color).append("\" stroke-width=\"2\" points=\"")
          .append(pts.toString().strip()).append("\"/>\n");
      s.append(String.format(java.util.Locale.ROOT,
          "<rect x=\"%d\" y=\"%d\" width=\"10\" height=\"10\" fill=\"%s\"/>"
              + "<text x=\"%d\" y=\"%d\" font-size=\"11\">%s</text>%n",
          LEFT + 10 + 150 * k, TOP - 16, color, LEFT + 24 + 150 * k, TOP - 7, Fmt.esc(ser.name())));
    }
    return s.append("</svg>\n").toString();
  }

  /** A horizontal bar chart of labelled values. */
  static String bars(String title, String valueLabel, List<String> labels, List<Double> values) {
    double max = values.stream().mapToDouble(Double::doubleValue).max().orElse(1);
    int rowH = 18;
    int height = TOP + rowH * labels.size() + 40;
    StringBuilder s = new StringBuilder(String.format(java.util.Locale.ROOT,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
            + "role=\"img\" aria-label=\"%s\">%n<text x=\"%d\" y=\"20\" font-size=\"14\" font-weight=\"bold\">%s</text>%n",
        W, height, W, height, Fmt.esc(title), LEFT, Fmt.esc(title)));
    int plotW = W - LEFT - RIGHT - 70;
    for (int i = 0; i < labels.size(); i++) {
      double w = max > 0 ? plotW * values.get(i) / max : 0;
      int y = TOP + rowH * i;
      s.append(String.format(java.util.Locale.ROOT,
          "<text x=\"%d\" y=\"%d\" text-anchor=\"end\" font-size=\"11\">%s</text>"
              + "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"/>"
              + "<text x=\"%.1f\" y=\"%d\" font-size=\"11\">%s</text>%n",
          LEFT - 6, y + 12, Fmt.esc(labels.get(i)), LEFT, y + 2, w, rowH - 4, COLORS[0], LEFT + w + 4, y + 12,
          Fmt.sig(values.get(i))));
    }
    s.append(String.format(java.util.Locale.ROOT, "<text x=\"%d\" y=\"%d\" font-size=\"11\">%s</text>%n", LEFT,
        height - 12, Fmt.esc(valueLabel)));
    return s.append("</svg>\n").toString();
  }

  private static StringBuilder open(String title) {
    return new StringBuilder(String.format(java.util.Locale.ROOT,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\" "
            + "aria-label=\"%s\">%n<text x=\"%d\" y=\"16\" font-size=\"14\" font-weight=\"bold\">%s</text>%n",
        W, H, W, H, Fmt.esc(title), LEFT, Fmt.esc(title)));
  }

  private static void axes(StringBuilder s, String xLabel, String yLabel, int plotW, int plotH) {
    s.append(String.format(java.util.Locale.ROOT,
        "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#333\"/>"
            + "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#333\"/>%n"
            + "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" font-size=\"12\">%s</text>%n"
            + "<text x=\"14\" y=\"%d\" text-anchor=\"middle\" font-size=\"12\" transform=\"rotate(-90 14 %d)\">%s</text>%n",
        LEFT, TOP, LEFT, TOP + plotH, LEFT, TOP + plotH, LEFT + plotW, TOP + plotH,
        LEFT + plotW / 2, H - 14, Fmt.esc(xLabel), TOP + plotH / 2, TOP + plotH / 2, Fmt.esc(yLabel)));
  }

  private static double xPos(int i, int n, int plotW) {
    return n == 1 ? LEFT + plotW / 2.0 : LEFT + 20 + (plotW - 40) * i / (double) (n - 1);
  }

  /** The smallest 1, 2, 2.5 or 5 times a power of ten that is at least v. */
  static double niceCeiling(double v) {
    double p = Math.pow(10, Math.floor(Math.log10(v)));
    for (double m : new double[] {1, 2, 2.5, 5, 10}) {
      if (m * p >= v * (1 - 1e-12)) {
        return m * p;
      }
    }
    return 10 * p;
  }
}
