package org.llmnpu.reports.npu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.llmnpu.reports.ppa.PowerResult;
import org.llmnpu.reports.ppa.PpaResult;
import org.llmnpu.reports.ppa.SynthesisResult;
import org.llmnpu.reports.ppa.TimingResult;

/** The area split's arithmetic and its tolerance, on given areas (the tiny NPU's real split: InstanceDesignsTest). */
class UnitAreaSplitTest {
  private static PpaResult ppa(String design, double area) {
    SynthesisResult s = new SynthesisResult(area, 100, new TreeMap<>(Map.of("DFFPOSX1", 10)),
        new TreeMap<>(Map.of("DFFPOSX1", area)), List.of(), List.of(), "", "");
    TimingResult t = new TimingResult(5, "clk", "a", "b", 12, 5, 1, 4, 250);
    PowerResult p = new PowerResult(0.1, PowerResult.INPUTS, new TreeMap<>(), 1, 1, 0.001, 2.001);
    return new PpaResult(design, Map.of(), s, t, p);
  }

  private static NpuReport.Unit unit(String name, double area, String... instances) {
    return new NpuReport.Unit(name, name + "_module", Map.of(), List.of(instances), ppa(name + "_module", area));
  }

  @Test
  void unitsTimesTheirInstancesPlusTheGlueAddUpToTheTop() {
    UnitAreaSplit s = UnitAreaSplit.of(ppa("Npu", 1000), List.of(unit("engine", 500, "gemm"),
        unit("lane", 100, "lane0", "lane1"), unit("beside the top", 5000)));
    assertEquals(List.of("engine logic", "lane logic", UnitAreaSplit.GLUE),
        s.slices().stream().map(NpuReport.AreaSlice::name).toList(), "a unit outside the top is left out");
    assertEquals(200, s.slices().get(1).um2(), 1e-9, "two instances");
    assertEquals(300, s.slices().get(2).um2(), 1e-9, "glue = top - units");
    assertEquals(1000, s.slices().stream().mapToDouble(NpuReport.AreaSlice::um2).sum(), 1e-9);
    assertTrue(s.note().contains("70.0 %") && s.note().contains("5 %"), s.note());
  }

  @Test
  void unitsAboveTheTopWithinTheToleranceGiveANegativeGlue() {
    UnitAreaSplit s = UnitAreaSplit.of(ppa("Npu", 1000), List.of(unit("engine", 1040, "gemm")));
    assertEquals(-40, s.slices().get(1).um2(), 1e-9);
  }

  @Test
  void unitsAboveTheTopBeyondTheToleranceFailNamingTheFigures() {
    UnitAreaMismatch e = assertThrows(UnitAreaMismatch.class, () -> UnitAreaSplit.of(ppa("Npu_x", 1000),
        List.of(unit("engine", 700, "gemm"), unit("PPM", 400, "ppm"))));
    assertTrue(e.getMessage().contains("1,100 µm²") && e.getMessage().contains("110.0 %")
        && e.getMessage().contains("105.0 %") && e.getMessage().contains("Npu_x") && e.getMessage().contains("PPM"),
        e.getMessage());
  }
}
