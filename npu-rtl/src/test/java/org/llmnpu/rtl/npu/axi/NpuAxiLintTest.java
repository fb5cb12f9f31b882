package org.llmnpu.rtl.npu.axi;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.llmnpu.hdl.DesignAssertions;
import org.llmnpu.hdl.ToolsForTests;
import org.llmnpu.hdl.emit.Verilog;
import org.llmnpu.hdl.emit.VerilogDesign;
import org.llmnpu.hdl.tools.DesignChecks;
import org.llmnpu.rtl.npu.NpuConfig;
import org.llmnpu.spinal.LintWaivers;
import org.llmnpu.spinal.SpinalIp;

/**
 * The AXI top's units are -Wall clean alone; the whole AXI NPU is -Wall clean except the imported registers' reviewed
 * waivers ({@code NpuControlRegs.lint-waivers.txt} of spinal-ip, and {@code NpuAxi.lint-waivers.txt} here). The master
 * and the status unit synthesize in Yosys here, the imported registers in spinal-ip's test and the native NPU in
 * {@code NpuLintAndSynthesisTest}; the whole AXI NPU's synthesis (over 10 minutes for the tiny one on the loaded
 * machine) is the PPA flow's ({@code ./npu report ppa npu -p bus=axi}).
 */
class NpuAxiLintTest {
  @TempDir
  Path dir;

  @Test
  void unitsAreLintCleanAlone() {
    for (int line : new int[] {4, 16, 64}) {
      DesignAssertions.assertLintClean(new NpuAxiMaster(line), line == 16);
    }
    DesignAssertions.assertLintClean(new NpuAxiStatus(), true);
  }

  @Test
  void theAxiNpuIsLintCleanWithTheReviewedWaivers() {
    ToolsForTests.require("verilator");
    for (NpuConfig c : List.of(NpuConfig.tiny().toBuilder().bus("axi").build(),
        NpuConfig.defaults().toBuilder().bus("axi").build())) {
      VerilogDesign d = Verilog.emit(new NpuAxi(c));
      Path out = dir.resolve(d.top());
      d.writeTo(out);
      List<String> findings = DesignChecks.lint(d, out).stream().filter(f -> !f.startsWith("%Error: Exiting"))
          .toList();
      List<String> waived = new ArrayList<>(LintWaivers.read(SpinalIp.class, "NpuControlRegs.lint-waivers.txt"));
      waived.addAll(LintWaivers.read(NpuAxi.class, "NpuAxi.lint-waivers.txt"));
      List<String> unwaived = findings.stream()
          .filter(f -> waived.stream().noneMatch(w -> LintWaivers.matches(w, f))).toList();
      List<String> stale = waived.stream()
          .filter(w -> findings.stream().noneMatch(f -> LintWaivers.matches(w, f))).toList();
      assertEquals(List.of(), unwaived, c.bus() + ": verilator -Wall findings not in the reviewed waiver lists");
      assertEquals(List.of(), stale, "waivers that no longer match a finding");
    }
  }
}
