package org.llmnpu.rtl.npu;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.llmnpu.hdl.HwModule;
import org.llmnpu.hdl.SynthesisProbe;
import org.llmnpu.hdl.ToolsForTests;
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

  /** Maps the tiny NPU's unit {@code unit} ({@link NpuConfig#tiny}) in {@code dir}; needs Yosys and OpenSTA. */
  static UnitTimingProbe tiny(Function<NpuConfig, HwModule> unit, Path dir) throws IOException {
    ToolsForTests.require("yosys", "sta");
    return new UnitTimingProbe(unit.apply(NpuConfig.tiny()), dir);
  }

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
    return report("report_checks -path_delay max -from [get_ports " + port + "] -digits 3", port, false);
  }

  /** OpenSTA's {@code check} on the netlist: the arrival time of its path ({@code what}; 0 if none and {@code mayLack}). */
  private Arrival report(String check, String what, boolean mayLack) throws IOException {
    Files.writeString(dir.resolve("sta.tcl"), String.join("\n",
        "read_liberty " + lib,
        "read_verilog netlist.v",
        "link_design " + top,
        "create_clock -name clk -period 5.75 [get_ports clk]",
        "set_input_delay 0 -clock clk [delete_from_list [all_inputs] [get_ports {clk reset}]]",
        "set_false_path -from [get_ports reset]",
        check, ""));
    String out = run(List.of("sta", "-exit", "sta.tcl"));
    Matcher m = Pattern.compile("(\\d+\\.\\d+)\\s+data arrival time").matcher(out);
    if (mayLack && !m.find(0) && out.contains("No paths found")) {
      return new Arrival(0, out);
    }
    assertTrue(m.find(0), "OpenSTA reported no path of " + what + ":\n" + out);
    return new Arrival(Double.parseDouble(m.group(1)), out);
  }

  /**
   * The data arrival time (ns) of the longest path from the registers {@code from} to the register {@code to} (each
   * the flip-flops whose outputs are its bits, {@code name[i]}); 0 when there is none. The report with it.
   */
  Arrival arrivalBetween(List<String> from, String to) throws IOException {
    List<String> starts = new ArrayList<>();
    for (String register : from) {
      starts.addAll(flops(register, "CLK"));
    }
    String check = "report_checks -path_delay max -from [get_pins {" + String.join(" ", starts) + "}] -to [get_pins {"
        + String.join(" ", flops(to, "D")) + "}] -digits 3";
    return report(check, from + " to " + to, true);
  }

  /** The pins {@code pin} of the flip-flops whose outputs are the bits of {@code register}. */
  private List<String> flops(String register, String pin) throws IOException {
    String netlist = Files.readString(dir.resolve("netlist.v"));
    Matcher flop = Pattern.compile("(DFF\\w*)\\s+(\\S+)\\s*\\(([^;]*)\\);").matcher(netlist);
    Pattern q = Pattern.compile("\\.Q\\(\\s*\\\\?" + Pattern.quote(register) + "\\s*(\\[\\d+\\])?\\s*\\)");
    List<String> pins = new ArrayList<>();
    while (flop.find()) {
      if (q.matcher(flop.group(3)).find()) {
        pins.add(flop.group(2).replace("\\", "") + "/" + pin);
      }
    }
    assertTrue(!pins.isEmpty(), "no flip-flop drives " + register + " in the netlist");
    return pins;
  }

  /** An arrival time in ns and OpenSTA's report of its path. */
  record Arrival(double ns, String report) {
    /** Prints the arrival and fails unless it is at most {@code boundNs}; {@code what} names the path. */
    void assertWithin(double boundNs, String what) {
      System.out.printf(Locale.ROOT, "%s at %.3f ns%n", what, ns);
      assertTrue(ns <= boundNs, String.format(Locale.ROOT, "%s at %.3f ns (bound %.1f ns):%n%s", what, ns, boundNs,
          report));
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
