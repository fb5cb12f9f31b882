package org.llmnpu.reports.ppa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.llmnpu.hdl.emit.VerilogDesign;
import org.llmnpu.reports.RequiredTools;
import org.llmnpu.reports.TestDesigns;

/**
 * {@link ConstantTies} leaves OpenSTA's power as it is: designs with SRAM macros and constant literals report the same
 * power, digit for digit, with their constants driven from the held tie ports, at two input activities. {@link OpenSta}
 * relies on it when it ties a simulated run's power netlist before the first power run.
 */
class ConstantTiesPowerTest {
  @TempDir
  Path dir;

  @BeforeEach
  void tools() {
    RequiredTools.require("yosys", "sta");
  }

  @Test
  void tiedConstantsReportTheSamePower() throws Exception {
    PpaOptions o = TestDesigns.options();
    for (VerilogDesign d : List.of(TestDesigns.regfile(), TestDesigns.fifo(), TestDesigns.dualFifo())) {
      SynthesisResult s = new YosysSynthesis(o.liberty(), o.cache(), o.flatten(), Math.round(o.clockNs() * 1000))
          .run(d);
      TimingConstraints c = TimingConstraints.of(new GateNetlist(d.top(), s.netlist()).ports(), o.clockNs(),
          o.clockPort());
      OpenSta sta = new OpenSta(o.liberty(), o.cache());
      String sram = SramLiberty.library(s.macros());
      String tied = ConstantTies.tied(s.netlist());
      assertNotEquals(s.netlist(), tied, d.top() + " has constants");
      for (String activity : List.of("0.1", "0.3")) {
        String a = "set_power_activity -input -activity " + activity + "\n";
        String plain = total(run(sta.script(d.top(), true, c, o, false, a, ""), s.netlist(), sram, o));
        String withTies = total(run(sta.script(d.top(), true, c, o, false, a + ConstantTies.activityTcl(), ""), tied,
            sram, o));
        assertTrue(plain.startsWith("Total"), plain);
        assertEquals(plain, withTies, d.top() + " at activity " + activity);
      }
    }
  }

  private static String total(String out) {
    return out.lines().filter(l -> l.startsWith("Total")).findFirst().orElse(out).strip();
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
