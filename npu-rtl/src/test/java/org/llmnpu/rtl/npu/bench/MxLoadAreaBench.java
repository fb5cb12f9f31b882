package org.llmnpu.rtl.npu.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.llmnpu.hdl.ToolsForTests;
import org.llmnpu.hdl.bench.BenchRecord;
import org.llmnpu.hdl.emit.Verilog;
import org.llmnpu.hdl.emit.VerilogDesign;
import org.llmnpu.hdl.tools.ExternalTool;
import org.llmnpu.rtl.npu.MxLoadLanes;

/**
 * Area of the {@code loadmx} decoders of one 16-byte line (the default NPU's {@code mxLoad} logic),
 * Yosys onto osu018. Run with {@code mvn -q -B -o test -pl npu-rtl -am -Pbench -Dbench
 * -Dtest='MxLoadAreaBench' -Dsurefire.failIfNoSpecifiedTests=false}.
 */
@ExtendWith(BenchRecord.class)
class MxLoadAreaBench {
  @Test
  void areaOfTheDecodersOfOneLine() throws Exception {
    ToolsForTests.require("yosys");
    String lib = "/usr/share/qflow/tech/osu018/osu018_stdcells.lib";
    for (int line : new int[] {4, 16}) {
      VerilogDesign d = Verilog.emit(new MxLoadLanes(line));
      Path dir = Files.createTempDirectory("mxload");
      d.writeTo(dir);
      String script = "read_verilog " + String.join(" ", d.files().keySet()) + "; synth -flatten -top " + d.top()
          + "; abc -liberty " + lib + "; opt_clean; tee -o area.txt stat -liberty " + lib
          + "; write_verilog -noattr netlist.v";
      ExternalTool.Result r = ExternalTool.run(List.of("yosys", "-q", "-p", script), dir, Duration.ofMinutes(20));
      if (!r.ok()) {
        throw new IllegalStateException(r.output());
      }
      for (String l : Files.readAllLines(dir.resolve("area.txt"))) {
        if (l.contains("Chip area") || l.contains("Number of cells")) {
          System.out.println("loadmx decoders, " + line + "-byte line: " + l.trim());
        }
      }
      // longest input-to-output path (a virtual 10 ns clock, zero I/O delays, as the PPA flow)
      Files.writeString(dir.resolve("sta.tcl"), "read_liberty " + lib + "\nread_verilog netlist.v\nlink_design "
          + d.top() + "\ncreate_clock -name clk -period 10\nset_input_delay 0 -clock clk [all_inputs]\n"
          + "set_output_delay 0 -clock clk [all_outputs]\nreport_checks -path_delay max -digits 3\nexit\n");
      ExternalTool.Result t = ExternalTool.run(List.of("sta", "sta.tcl"), dir, Duration.ofMinutes(10));
      for (String l : t.output().split("\n")) {
        if (l.contains("data arrival time") || l.contains("slack")) {
          System.out.println("loadmx decoders, " + line + "-byte line: " + l.trim());
        }
      }
    }
  }
}
