package org.llmnpu.soc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.llmnpu.reports.html.SocSectionHtml;
import org.llmnpu.reports.npu.SocSection;

/** The SoC section of the whole-NPU report, from the soc model (no synthesis), rendered as the report renders it. */
class SocReportSectionTest {
  private static final SocSection SECTION = SocReportSection.build();

  private static int count(String text, String regex) {
    Matcher m = Pattern.compile(regex).matcher(text);
    int n = 0;
    while (m.find()) {
      n++;
    }
    return n;
  }

  @Test
  void rendersEveryChartAsSvgAndEveryFindingAsARow() {
    String html = SocSectionHtml.html(SECTION);
    assertEquals(SECTION.charts().size(), count(html, "<svg "), "one SVG per chart");
    assertEquals(6, SECTION.charts().size(), "prefill/decode time and energy, call vs op, partition plan");
    assertEquals(SECTION.findings().size(), count(html, "<tr class=\"(agrees|disagrees)\">"), "one row per finding");
    for (SocSection.Finding f : SECTION.findings()) {
      assertTrue(html.contains(">" + f.id() + "<"), f.id());
    }
    List<String> ids = SECTION.findings().stream().map(SocSection.Finding::id).toList();
    for (String id : List.of("prefill-cpu-vs-npu", "decode-operators-npu-vs-cpu", "light-call-to-op", "comm-share",
        "dynamic-quantization-share", "fallback-vs-cpu", "full-offload-energy", "per-stage-choice",
        "prefill-speedup", "decode-speedup", "decode-bandwidth", "fast-sync", "decode-partition",
        "shadow-full-int8-attention", "shadow-topk-recall", "shadow-sparse-attention-accuracy",
        "shadow-pipeline-vs-dense")) {
      assertTrue(ids.contains(id), "finding " + id + " in " + ids);
    }
    assertEquals(ids.size(), ids.stream().distinct().count(), "each finding once");
    assertTrue(html.contains("call vs op") && html.contains("partition plan") && html.contains("prefill time"));
  }

  @Test
  void stageChartsAreTheAnalysisFigures() {
    StageAnalysis.Result r = StageAnalysis.run(new StageAnalysis.Options("sd8gen3", "llama-3.2-3b", 321, 128, "int4",
        "full", "ours", true, true, List.of("cpu", "gpu", "npu")));
    SocSection.Chart prefillTime = SECTION.charts().get(0);
    SocSection.Chart decodeEnergy = SECTION.charts().get(3);
    for (String backend : List.of("cpu", "gpu", "npu", "npu-per-op")) {
      assertEquals(1e3 * StageFindings.row(r, "prefill", backend).orElseThrow().timeS(), bar(prefillTime, backend),
          1e-9, backend);
      assertEquals(1e3 * StageFindings.row(r, "decode", backend).orElseThrow().energyJ(), bar(decodeEnergy, backend),
          1e-9, backend);
    }
  }

  @Test
  void lightOperatorsCallLongerThanTheyRunAndThePlanSplitsProducts() {
    List<SocSection.Bar> bars = SECTION.charts().get(4).bars();
    assertTrue(bars.size() >= 4 && bars.size() % 2 == 0, "call and op bar per light operator: " + bars);
    for (int i = 0; i < bars.size(); i += 2) {
      assertTrue(bars.get(i).label().endsWith(" call") && bars.get(i + 1).label().endsWith(" op"));
      assertTrue(bars.get(i).value() > bars.get(i + 1).value() && bars.get(i + 1).value() > 0, bars.get(i).label());
    }
    List<SocSection.Bar> plan = SECTION.charts().get(5).bars();
    assertTrue(plan.stream().allMatch(b -> b.value() >= 0 && b.value() <= 100), "NPU shares in [0, 100] %");
    assertTrue(plan.stream().anyMatch(b -> b.value() > 0 && b.value() < 100), "at least one product split");
    assertTrue(plan.stream().anyMatch(b -> b.label().startsWith("prefill"))
        && plan.stream().anyMatch(b -> b.label().startsWith("decode")), "both stages planned");
  }

  private static double bar(SocSection.Chart c, String label) {
    return c.bars().stream().filter(b -> b.label().equals(label)).findFirst().orElseThrow().value();
  }
}
