package org.llmnpu.rtl.npu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.llmnpu.hdl.ToolsForTests;
import org.llmnpu.hdl.emit.Verilog;
import org.llmnpu.hdl.emit.VerilogDesign;
import org.llmnpu.hdl.tools.DesignChecks;

/**
 * The NPU top is -Wall clean (small and default configurations); the small NPU with the PiM engine
 * passes Yosys's coarse synthesis and structural checks ({@link DesignChecks#elaborate}). The small
 * NPU with the MAC array goes through the whole PPA flow (Yosys gate mapping, OpenSTA timing and
 * power) in the reports module's {@code NpuBlockPpaTest}, so it is not synthesized twice.
 */
class NpuLintAndSynthesisTest {
  @TempDir
  Path dir;

  @Test
  void smallNpuIsLintClean() {
    ToolsForTests.require("verilator");
    NpuConfig tiny = new NpuConfig(4, 1, 2, 1, 4, 24, 0, 8, 8, 8, 2, 4, 64, 1, 16, 16, 64).withPpu(false);
    VerilogDesign d = Verilog.emit(new Npu(tiny));
    d.writeTo(dir);
    assertEquals(List.of(), DesignChecks.lint(d, dir), "verilator -Wall findings");
  }

  @Test
  void npuWithThePimEngineIsLintCleanAndElaborates() {
    ToolsForTests.require("verilator", "yosys");
    // Yosys infers the memories here (the PPA flow black-boxes them), so keep them tiny. Gate mapping
    // of this NPU took 3 minutes alone and over 10 on a loaded machine; the coarse synthesis takes 30 s.
    NpuConfig tiny = new NpuConfig(4, 1, 2, 1, 4, 24, 0, 8, 8, 8, 2, 4, 64, 1, 16, 16, 64, "pim-k2");
    VerilogDesign d = Verilog.emit(new Npu(tiny));
    d.writeTo(dir);
    assertEquals(List.of(), DesignChecks.lint(d, dir), "verilator -Wall findings");
    assertTrue(DesignChecks.elaborate(d, dir) > 0, "yosys produced no cells");
  }

  @Test
  void defaultNpuIsLintClean() {
    ToolsForTests.require("verilator");
    VerilogDesign d = Verilog.emit(new Npu(NpuConfig.defaults()));
    d.writeTo(dir);
    assertEquals(List.of(), DesignChecks.lint(d, dir), "verilator -Wall findings");
  }

  @Test
  void npuCopyingSeveralWeightRowsPerCycleOrWithAnNmArrayIsLintClean() {
    ToolsForTests.require("verilator");
    for (NpuConfig c : List.of(NpuConfig.small().withWeightRowsPerCycle(4), NpuConfig.defaults().withMxLoad(true),
        NpuConfig.small().withEngine("pim-k4").withWeightRowsPerCycle(2), NpuConfig.small().withSparsity("2:4"),
        NpuConfig.defaults().withSparsity("4:8"))) {
      VerilogDesign d = Verilog.emit(new Npu(c));
      Path out = dir.resolve(d.top());
      d.writeTo(out);
      assertEquals(List.of(), DesignChecks.lint(d, out), c + ": verilator -Wall findings");
    }
  }

  @Test
  void everyCommandQueueDepthIsLintClean() {
    ToolsForTests.require("verilator");
    // 1: no prefetch and no queue; 2: a one-entry queue; 3, 24: queues whose length is not a power of two (an odd
    // entry in the oldest-slot mux tree); 64: the largest
    for (int depth : new int[] {1, 2, 3, 24, 64}) {
      NpuConfig c = NpuConfig.small().withCommandQueueDepth(depth);
      VerilogDesign d = Verilog.emit(new Npu(c));
      Path out = dir.resolve(d.top());
      d.writeTo(out);
      assertEquals(List.of(), DesignChecks.lint(d, out), "commandQueueDepth " + depth + ": verilator -Wall findings");
    }
  }
}
