package org.llmnpu.reports.ppa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.llmnpu.hdl.ClockGating;
import org.llmnpu.hdl.emit.Verilog;
import org.llmnpu.hdl.emit.VerilogDesign;
import org.llmnpu.reports.RequiredTools;
import org.llmnpu.reports.TestDesigns;

/**
 * A power-only OpenSTA run ({@link OpenSta#script} without the timing report, as the runs on a netlist changed for
 * power take it) reports the same power, digit for digit, as the run with the timing report before it: on a
 * clock-gated design (the gate's clock pins moved, {@link GatedClocks}), on a design with SRAM macros and on the same
 * with its constants tied ({@link ConstantTies}), at a stated input activity and per-port activities.
 */
class OpenStaPowerOnlyTest {
  @TempDir
  Path dir;

  @BeforeEach
  void tools() {
    RequiredTools.require("yosys", "sta");
  }

  @Test
  void thePowerOnlyScriptReportsTheSamePowerAsTheScriptWithTiming() throws Exception {
    PpaOptions o = TestDesigns.options();
    boolean[] seen = new boolean[3]; // gates, macros, constants tied
    for (VerilogDesign d : List.of(Verilog.emit(new ClockGatePpaTest.GatedSum(ClockGating.ON)),
        TestDesigns.regfile(), TestDesigns.mac8())) {
      SynthesisResult s = new YosysSynthesis(o.liberty(), o.cache(), o.flatten(), Math.round(o.clockNs() * 1000))
          .run(d);
      GateNetlist netlist = new GateNetlist(d.top(), s.netlist());
      TimingConstraints c = TimingConstraints.of(netlist.ports(), o.clockNs(), o.clockPort());
      GatedClocks gated = GatedClocks.of(s.netlist());
      String gatedTcl = gated.isEmpty() ? "" : gated.tcl(o.clockNs(), gated.duties(o, null));
      OpenSta sta = new OpenSta(o.liberty(), o.cache());
      boolean macros = !s.macros().isEmpty();
      String sram = macros ? SramLiberty.library(s.macros()) : "";
      seen[0] |= !gated.isEmpty();
      seen[1] |= macros;
      seen[2] |= !ConstantTies.tied(s.netlist()).equals(s.netlist());
      for (String netlistText : List.of(s.netlist(), ConstantTies.tied(s.netlist()))) {
        String activity = "set_power_activity -input -activity 0.3\n"
            + (netlistText.equals(s.netlist()) ? "" : ConstantTies.activityTcl());
        String full = sta.script(d.top(), macros, c, o, false, activity, gatedTcl, true);
        String powerOnly = sta.script(d.top(), macros, c, o, false, activity, gatedTcl, false);
        assertTrue(full.contains("report_checks"), full);
        assertFalse(powerOnly.contains("report_checks"), powerOnly);
        String a = power(run(full, netlistText, sram, o));
        String b = power(run(powerOnly, netlistText, sram, o));
        assertTrue(a.contains("Total"), a);
        assertEquals(a, b, d.top() + (netlistText.equals(s.netlist()) ? "" : " (constants tied)"));
      }
    }
    assertTrue(seen[0] && seen[1] && seen[2], "a gated design, one with macros, one with constants: "
        + java.util.Arrays.toString(seen));
  }

  private static String power(String out) {
    return out.substring(out.indexOf("==== power"));
  }

  private String run(String script, String netlist, String sram, PpaOptions o) throws Exception {
    Path work = Files.createTempDirectory(dir, "sta");
    Files.writeString(work.resolve("lib.lib"), Files.readString(o.liberty()), StandardCharsets.UTF_8);
    Files.writeString(work.resolve("sram.lib"), sram, StandardCharsets.UTF_8);
    Files.writeString(work.resolve("netlist.v"), netlist, StandardCharsets.UTF_8);
    Files.writeString(work.resolve("run.tcl"), script, StandardCharsets.UTF_8);
    return ToolRunner.run(List.of("sta", "-no_init", "-no_splash", "-exit", "run.tcl"), work, 600);
  }
}
