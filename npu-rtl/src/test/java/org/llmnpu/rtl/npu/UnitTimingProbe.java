package org.llmnpu.rtl.npu;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.llmnpu.hdl.HwModule;
import org.llmnpu.hdl.SynthesisProbe;
import org.llmnpu.hdl.emit.Verilog;
import org.llmnpu.hdl.emit.VerilogDesign;
import org.llmnpu.hdl.tools.ExternalTool;

/**
 * One NPU unit through the PPA flow's gate mapping (Yosys {@code synth} in two runs, {@code dfflibmap},
 * {@code abc -D 5750 -constr} onto osu018, as {@code YosysSynthesis}) and OpenSTA at 5.75 ns with every input
 * arriving at 0: {@link #arrival} is how long an input port's longest path to a register takes in the unit — the
 * depth a late signal of the NPU (a dispatch or request decision) meets after it arrives.
 */
final class UnitTimingProbe {
  private final Path dir;
  private final String top;
  private final String lib = SynthesisProbe.OSU018.toString();

  /** Maps {@code unit} in {@code dir}. */
  UnitTimingProbe(HwModule unit, Path dir) throws IOException {
    this.dir = dir;
    VerilogDesign design = Verilog.emit(unit);
    design.writeTo(dir);
    Files.writeString(dir.resolve("abc.constr"), "set_driving_cell BUFX2\nset_load 0.01\n");
    top = design.top();
    String yosys = "read_verilog -sv " + String.join(" ", design.files().keySet()) + "; synth -top " + top
        + " -run begin:fine; synth -top " + top + " -run fine:check; dfflibmap -liberty " + lib
        + "; abc -D 5750 -constr abc.constr -liberty " + lib
        + "; opt_clean; write_verilog -noattr -noexpr -simple-lhs netlist.v";
    run(List.of("yosys", "-q", "-p", yosys));
  }

  /** The data arrival time (ns) of the longest path from input {@code port} to a register; the report with it. */
  Arrival arrival(String port) throws IOException {
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
    return new Arrival(Double.parseDouble(m.group(1)), out);
  }

  /** An arrival time in ns and OpenSTA's report of its path. */
  record Arrival(double ns, String report) { }

  private String run(List<String> command) {
    ExternalTool.Result r = ExternalTool.run(command, dir, Duration.ofMinutes(20));
    if (!r.ok()) {
      throw new IllegalStateException(command.get(0) + " failed:\n" + r.output());
    }
    return r.output();
  }
}
