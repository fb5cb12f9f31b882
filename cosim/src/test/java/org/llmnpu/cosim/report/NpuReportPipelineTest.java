package org.llmnpu.cosim.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.llmnpu.hdl.emit.Verilog;
import org.llmnpu.hdl.emit.VerilogDesign;
import org.llmnpu.reports.npu.NpuReport;
import org.llmnpu.reports.ppa.InstanceDesigns;
import org.llmnpu.reports.ppa.PowerResult;
import org.llmnpu.reports.ppa.PpaResult;
import org.llmnpu.reports.ppa.SynthesisResult;
import org.llmnpu.reports.ppa.TimingResult;
import org.llmnpu.rtl.npu.Npu;
import org.llmnpu.rtl.npu.NpuConfig;

/**
 * The report's units are the top's instances: the GEMM engine row is the engine the top instantiates (the PiM engine
 * on a PiM NPU, never the systolic one), each unit named once. The syntheses themselves: {@code InstanceDesignsTest}
 * in reports and cli's {@code NpuReportCommandTest}.
 */
class NpuReportPipelineTest {
  private static PpaResult ppa(String design) {
    SynthesisResult s = new SynthesisResult(1, 1, new TreeMap<>(), new TreeMap<>(), List.of(), List.of(), "", "");
    return new PpaResult(design, Map.of(), s, new TimingResult(5, "clk", "a", "b", 1, 5, 1, 4, 250),
        new PowerResult(0.1, PowerResult.INPUTS, new TreeMap<>(), 1, 1, 0.001, 2.001));
  }

  /** The units as the pipeline names them, each with a stand-in PPA (its design's top). */
  private static List<NpuReport.Unit> units(Npu top) {
    VerilogDesign d = Verilog.emit(top);
    return InstanceDesigns.of(top, d).stream().map(u -> new NpuReport.Unit(NpuUnits.unitName(u.instances()),
        u.module(), Map.of(), u.instances(), ppa(u.design().top()))).toList();
  }

  @Test
  void aPimNpusEngineRowIsThePimEngine() {
    Npu top = new Npu(NpuConfig.tiny().withEngine("pim"));
    NpuReport.Unit engine = NpuUnits.engine(top, units(top));
    assertEquals("GEMM engine", engine.name());
    assertTrue(engine.block().startsWith("PimGemmBackend") && engine.ppa().design().equals(engine.block()),
        engine.block());
  }

  @Test
  void aSystolicNpusEngineRowIsTheSystolicEngine() {
    Npu top = new Npu(NpuConfig.tiny());
    List<NpuReport.Unit> units = units(top);
    assertTrue(NpuUnits.engine(top, units).block().startsWith("GemmEngine"));
    List<String> names = units.stream().map(NpuReport.Unit::name).toList();
    assertEquals(names.size(), names.stream().distinct().count(), "one row per unit: " + names);
    assertTrue(names.containsAll(List.of("GEMM engine", "Vector DSP", "PPM (bias, requant, PPU)", "scratchpad")),
        names.toString());
  }
}
