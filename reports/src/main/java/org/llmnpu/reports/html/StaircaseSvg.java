package org.llmnpu.reports.html;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The NPU's staircase as an SVG chart: one panel a machine, a denoiser pass's cycles against its token rows (row 1
 * up to a few row tiles), the whole program and the array alone as two series. The x axis is labelled at row 1 and at
 * each tile boundary, where the array starts another pass over the weights and both series step up; every point has
 * a tooltip with its exact cycles. Pure function of its input: the same panels give the same bytes.
 */
public final class StaircaseSvg {
  private static final int PANEL_W = 520;
  private static final int PANEL_H = 300;

  /**
   * One machine's staircase.
   *
   * @param machine the machine's name, as the panel's title shows it
   * @param tileRows the rows a tile (mTile), where the steps fall
   * @param programCycles the whole pass's cycles for 1, 2, ... rows
   * @param arrayCycles the array's share of them for the same rows
   */
  public record Panel(String machine, int tileRows, List<Long> programCycles, List<Long> arrayCycles) {
    /** Checks the series have one value a row and the same length. */
    public Panel {
      if (tileRows < 1) {
        throw new IllegalArgumentException("tileRows must be >= 1, got " + tileRows);
      }
      if (programCycles.isEmpty() || programCycles.size() != arrayCycles.size()) {
        throw new IllegalArgumentException("programCycles and arrayCycles need the same, non-zero number of rows, got "
            + programCycles.size() + " and " + arrayCycles.size());
      }
      programCycles = List.copyOf(programCycles);
      arrayCycles = List.copyOf(arrayCycles);
    }
  }

  private StaircaseSvg() {
  }

  /** A standalone SVG document with the panels stacked top to bottom. */
  public static String svg(String title, List<Panel> panels) {
    if (panels.isEmpty()) {
      throw new IllegalArgumentException("panels: need at least one machine");
    }
    int h = PANEL_H * panels.size();
    StringBuilder s = new StringBuilder(String.format(Locale.ROOT,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\">%n"
            + "<title>%s</title>%n<rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>%n",
        PANEL_W, h, PANEL_W, h, Fmt.esc(title)));
    for (int k = 0; k < panels.size(); k++) {
      s.append("<g transform=\"translate(0,").append(PANEL_H * k).append(")\">\n").append(panel(panels.get(k)))
          .append("</g>\n");
    }
    return s.append("</svg>\n").toString();
  }

  private static String panel(Panel p) {
    int n = p.programCycles().size();
    List<String> xs = new ArrayList<>(n);
    List<Double> program = new ArrayList<>(n);
    List<Double> array = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      xs.add(Integer.toString(i + 1));
      program.add(p.programCycles().get(i).doubleValue());
      array.add(p.arrayCycles().get(i).doubleValue());
    }
    int tile = p.tileRows();
    return SvgPlot.lines(p.machine() + ": a denoiser pass", "token rows (tile of " + tile + ")", "cycles", xs,
        i -> i == 0 || (i + 1) % tile == 0,
        List.of(new SvgPlot.Series("whole program", program), new SvgPlot.Series("array only", array)));
  }
}
