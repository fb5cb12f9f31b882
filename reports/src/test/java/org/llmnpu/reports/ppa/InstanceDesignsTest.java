package org.llmnpu.reports.ppa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.llmnpu.hdl.emit.Verilog;
import org.llmnpu.hdl.emit.VerilogDesign;
import org.llmnpu.hdl.gen.BlockGenerator;
import org.llmnpu.hdl.gen.BlockRegistry;
import org.llmnpu.hdl.gen.Params;
import org.llmnpu.reports.RequiredTools;
import org.llmnpu.reports.TestDesigns;
import org.llmnpu.reports.npu.NpuReport;
import org.llmnpu.reports.npu.UnitAreaSplit;
import org.llmnpu.rtl.npu.Npu;
import org.llmnpu.rtl.npu.NpuConfig;

/**
 * The NPU top's units cut out as designs of their own ({@link InstanceDesigns}), and the tiny NPU's area split
 * ({@link UnitAreaSplit}) from their real syntheses. The syntheses go to the tests' shared PPA cache, where cli's
 * {@code npu report npu} test finds them (same Verilog, same 5 ns clock).
 */
class InstanceDesignsTest {
  @Test
  void everyUnitOfTheTopIsCutOutWithTheModulesBelowIt() {
    Npu npu = new Npu(TestDesigns.tinyNpu());
    VerilogDesign d = Verilog.emit(npu);
    List<InstanceDesigns.Unit> units = InstanceDesigns.of(npu, d);
    assertEquals(npu.ir().children().size(), units.stream().mapToInt(u -> u.instances().size()).sum(),
        "every instance of the top, none twice");
    for (InstanceDesigns.Unit u : units) {
      VerilogDesign cut = u.design();
      assertEquals(u.module(), cut.top());
      assertTrue(cut.files().containsKey(u.module() + ".v"));
      assertTrue(!cut.files().containsKey(d.top() + ".v"), "the NPU top is not part of " + u.module());
      cut.files().forEach((f, text) -> assertEquals(d.files().get(f), text, "the same Verilog as in the top: " + f));
      assertTrue(!cut.flattened().contains(u.module()), "a unit's own synthesis does not flatten its top away");
    }
    InstanceDesigns.Unit engine = units.stream().filter(u -> u.instances().contains("gemm")).findFirst().orElseThrow();
    assertTrue(engine.design().files().size() > 1, "the engine keeps its array and buffers: "
        + engine.design().files().keySet());
  }

  @Test
  void aRegisteredUnitBlockIsTheVerilogTheTopInstantiates() {
    Npu npu = new Npu(TestDesigns.tinyNpu());
    VerilogDesign d = Verilog.emit(npu);
    Map<String, VerilogDesign> byModule = new java.util.HashMap<>();
    InstanceDesigns.of(npu, d).forEach(u -> byModule.put(u.module(), u.design()));
    int compared = 0;
    for (BlockGenerator g : BlockRegistry.all()) {
      if (!g.name().startsWith("npu-")) {
        continue;
      }
      VerilogDesign block = Verilog.emit(g.build(Params.resolve(g, TestDesigns.tinyNpuParams())));
      VerilogDesign cut = byModule.get(block.top());
      if (cut != null) {
        assertEquals(block.files(), cut.files(), g.name());
        compared++;
      }
    }
    assertTrue(compared >= 5, "units compared with their npu-<unit> block: " + compared);
  }

  @Test
  void aPimNpusEngineUnitIsThePimEngine() {
    Npu npu = new Npu(TestDesigns.tinyNpu().withEngine("pim"));
    List<InstanceDesigns.Unit> units = InstanceDesigns.of(npu, Verilog.emit(npu));
    InstanceDesigns.Unit engine = units.stream().filter(u -> u.instances().contains("gemm")).findFirst().orElseThrow();
    assertTrue(engine.module().startsWith("PimGemmBackend"), engine.module());
    assertTrue(engine.design().files().keySet().stream().anyMatch(f -> f.startsWith("PimMacro")),
        engine.design().files().keySet().toString());
    assertTrue(units.stream().noneMatch(u -> u.module().startsWith("GemmEngine")), "no systolic engine in a PiM NPU");
  }

  /**
   * The tiny NPU's units synthesized one by one add up to its top within {@link UnitAreaSplit#TOLERANCE}, and the
   * top's SRAM macros are all in its units.
   */
  @Test
  void theTinyNpusUnitsAddUpToItsTopWithinTheTolerance() {
    TinyTop t = TinyTop.synthesize();
    Npu npu = t.npu();
    VerilogDesign d = t.design();
    PpaOptions o = t.options();
    PpaResult top = t.top();
    List<NpuReport.Unit> units = new ArrayList<>();
    for (InstanceDesigns.Unit u : InstanceDesigns.of(npu, d)) {
      units.add(new NpuReport.Unit(u.module(), u.module(), Map.of(), u.instances(), PpaFlow.run(u.design(), o)));
    }
    UnitAreaSplit split = UnitAreaSplit.of(top, units);
    double sum = split.slices().stream().mapToDouble(NpuReport.AreaSlice::um2).sum();
    assertEquals(top.synthesis().chipAreaUm2() + top.sramAreaUm2(NodeScaling.Node.N180), sum, 1e-6 * sum);
    assertTrue(split.unitsStdUm2() <= top.synthesis().chipAreaUm2() * (1 + UnitAreaSplit.TOLERANCE), split.note());
    assertEquals(split.topSramUm2(), split.unitsSramUm2(), 1e-6 * split.topSramUm2(),
        "the top's memories are all in its units");
  }

  /**
   * A unit the top keeps as a module (GEMM engine, PPM, Vector DSP): its share of the top's own synthesis
   * ({@link ModuleAreas}, what {@code npu report npu} and {@code npu demo} use instead of a second run) against the same
   * module synthesized alone — the same modules mapped one by one; only ABC's buffering and sizing at the unit's ports
   * differ — within {@link UnitAreaSplit#TOLERANCE}, with the same SRAM macros.
   */
  @Test
  void aKeptUnitsShareOfTheTopMatchesItsOwnSynthesisWithinTheTolerance() {
    TinyTop t = TinyTop.synthesize();
    VerilogDesign d = t.design();
    PpaResult top = t.top();
    ModuleAreas areas = ModuleAreas.parse(top.synthesis().yosysLog());
    int kept = 0;
    for (InstanceDesigns.Unit u : InstanceDesigns.of(t.npu(), d)) {
      if (d.flattened().contains(u.module())) {
        assertTrue(areas.of(u.module(), top.synthesis()).isEmpty(), u.module() + " is flattened: no share");
        continue;
      }
      kept++;
      SynthesisResult share = areas.of(u.module(), top.synthesis()).orElseThrow();
      SynthesisResult alone = PpaFlow.run(u.design(), t.options()).synthesis();
      double ratio = share.chipAreaUm2() / alone.chipAreaUm2();
      System.out.printf(java.util.Locale.ROOT, "%s: share of the top %.0f um2, alone %.0f um2 (%.4f); flip-flops %d / %d%n",
          u.module(), share.chipAreaUm2(), alone.chipAreaUm2(), ratio, share.flipFlops(), alone.flipFlops());
      assertTrue(Math.abs(ratio - 1) <= UnitAreaSplit.TOLERANCE, u.module() + ": share/alone " + ratio);
      assertEquals(alone.macros().stream().mapToInt(SramMacro::instances).sum(),
          share.macros().stream().mapToInt(SramMacro::instances).sum(), u.module() + " SRAM macros");
      assertTrue(Math.abs(share.flipFlops() - alone.flipFlops()) <= UnitAreaSplit.TOLERANCE * alone.flipFlops(),
          u.module() + " flip-flops " + share.flipFlops() + " / " + alone.flipFlops());
    }
    assertTrue(kept >= 3, "the GEMM engine, the PPM and the Vector DSP are kept as modules: " + kept);
  }

  /** The tests' tiny NPU, its Verilog and its top's PPA (the tests' shared cache). */
  private record TinyTop(Npu npu, VerilogDesign design, PpaOptions options, PpaResult top) {
    static TinyTop synthesize() {
      RequiredTools.require("yosys", "sta");
      Npu npu = new Npu(TestDesigns.tinyNpu());
      VerilogDesign d = Verilog.emit(npu);
      PpaOptions o = TestDesigns.options();
      return new TinyTop(npu, d, o, PpaFlow.run(d, TestDesigns.tinyNpuParams(), o));
    }
  }
}
