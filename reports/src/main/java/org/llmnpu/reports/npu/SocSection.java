package org.llmnpu.reports.npu;

import java.util.List;

/**
 * The SoC section of the whole-NPU report: the NPU inside a heterogeneous SoC (module {@code soc}), computed from
 * the SoC model when the report is gathered. Plain data: {@code reports} renders it (horizontal bar charts and a
 * findings table), {@code soc} fills it ({@code SocReportSection}).
 *
 * @param intro    what was modelled (preset, model, prompt), one paragraph
 * @param charts   bar charts in page order
 * @param findings the seed papers' findings next to ours
 */
public record SocSection(String intro, List<Chart> charts, List<Finding> findings) {
  public SocSection {
    charts = List.copyOf(charts);
    findings = List.copyOf(findings);
  }

  /** A bar chart: one bar per label, values in {@code unit}. */
  public record Chart(String title, String unit, List<Bar> bars) {
    public Chart {
      bars = List.copyOf(bars);
    }
  }

  /** One bar. */
  public record Bar(String label, double value) {
  }

  /**
   * One finding.
   *
   * @param source which analysis (e.g. "seed 001, --npu ours")
   * @param id     stable key
   * @param ours   our figure
   * @param paper  the paper's figure
   * @param agrees whether our trend agrees
   * @param why    why it agrees or not
   */
  public record Finding(String source, String id, String ours, String paper, boolean agrees, String why) {
  }
}
