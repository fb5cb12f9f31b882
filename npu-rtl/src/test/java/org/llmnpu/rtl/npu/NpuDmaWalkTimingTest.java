package org.llmnpu.rtl.npu;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.llmnpu.hdl.SynthesisProbe;
import org.llmnpu.hdl.ToolsForTests;
import org.llmnpu.hdl.emit.Verilog;
import org.llmnpu.hdl.emit.VerilogDesign;
import org.llmnpu.hdl.tools.ExternalTool;

/**
 * The tiny NPU's {@link NpuDmaUnit} alone through the PPA flow's gate mapping (Yosys {@code synth} in two runs,
 * {@code dfflibmap}, {@code abc -D 5750 -constr} onto osu018, as {@code YosysSynthesis}) and OpenSTA: a walk's begin
 * pulse ({@code extBegin}, {@code spadBegin}, late in the NPU: the controller's dispatch decision from the command
 * register) reaches the walk's registers within 1.5 ns. A walk's begin writes its row and beat with constants
 * ({@link Walker#begin}): written as {@code row − row}, Yosys's {@code opt_share} merged the subtraction with the
 * advance's {@code row + 1} into one adder whose operand the begin selects, so the begin came before the carry
 * chain — 2.075 ns from {@code extBegin} (2.172 ns from {@code spadBegin}) in this unit, the tiny NPU's worst
 * flip-flop path {@code ctrl.command[0]} → {@code dma.ext_row[15]} (+0.014 ns at 5.75 ns, session 19); with the
 * constants 1.057 ns (0.958 ns).
 */
class NpuDmaWalkTimingTest {
  private static final double BOUND_NS = 1.5;

  @TempDir
  Path dir;

  @Test
  void aWalksBeginReachesItsRegistersEarly() throws IOException {
    ToolsForTests.require("yosys", "sta");
    VerilogDesign design = Verilog.emit(new NpuDmaUnit(NpuConfig.tiny()));
    design.writeTo(dir);
    String lib = SynthesisProbe.OSU018.toString();
    Files.writeString(dir.resolve("abc.constr"), "set_driving_cell BUFX2\nset_load 0.01\n");
    String top = design.top();
    String yosys = "read_verilog -sv " + String.join(" ", design.files().keySet()) + "; synth -top " + top
        + " -run begin:fine; synth -top " + top + " -run fine:check; dfflibmap -liberty " + lib
        + "; abc -D 5750 -constr abc.constr -liberty " + lib
        + "; opt_clean; write_verilog -noattr -noexpr -simple-lhs netlist.v";
    run(List.of("yosys", "-q", "-p", yosys));
    for (String port : List.of("extBegin", "spadBegin")) {
      Files.writeString(dir.resolve("sta.tcl"), String.join("\n",
          "read_liberty " + lib,
          "read_verilog netlist.v",
          "link_design " + top,
          "create_clock -name clk -period 5.75 [get_ports clk]",
          "set_input_delay 0 -clock clk [delete_from_list [all_inputs] [get_ports {clk reset}]]",
          "report_checks -path_delay max -from [get_ports " + port + "] -digits 3", ""));
      String out = run(List.of("sta", "-exit", "sta.tcl"));
      Matcher m = Pattern.compile("(\\d+\\.\\d+)\\s+data arrival time").matcher(out);
      assertTrue(m.find(), "OpenSTA reported no path from " + port + ":\n" + out);
      double arrival = Double.parseDouble(m.group(1));
      assertTrue(arrival <= BOUND_NS, String.format(Locale.ROOT,
          "%s reaches the walk's registers at %.3f ns (bound %.1f ns):%n%s", port, arrival, BOUND_NS, out));
    }
  }

  private String run(List<String> command) {
    ExternalTool.Result r = ExternalTool.run(command, dir, Duration.ofMinutes(20));
    if (!r.ok()) {
      throw new IllegalStateException(command.get(0) + " failed:\n" + r.output());
    }
    return r.output();
  }
}
