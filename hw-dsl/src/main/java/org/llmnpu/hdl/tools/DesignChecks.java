package org.llmnpu.hdl.tools;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.llmnpu.hdl.emit.VerilogDesign;

/**
 * Runs the real tools on written Verilog: {@code verilator --lint-only -Wall} (every
 * warning is a finding), a Yosys generic synthesis ({@code synth -top}) and, for designs whose gate
 * mapping takes minutes, a Yosys coarse synthesis with its structural checks ({@link #elaborate}).
 */
public final class DesignChecks {
  private DesignChecks() {
  }

  /** Lint findings (lines starting with {@code %}); empty means clean. */
  public static List<String> lint(VerilogDesign design, Path dir) {
    List<String> cmd = new ArrayList<>(List.of("verilator", "--lint-only", "-Wall", "--top-module", design.top()));
    cmd.addAll(design.files().keySet());
    ExternalTool.Result r = ExternalTool.run(cmd, dir, Duration.ofMinutes(5));
    List<String> findings = new ArrayList<>();
    for (String line : r.output().split("\n")) {
      if (line.startsWith("%")) {
        findings.add(line);
      }
    }
    if (!r.ok() && findings.isEmpty()) {
      findings.add("verilator exited with " + r.exitCode() + ": " + r.output().strip());
    }
    return findings;
  }

  /** Synthesizes with Yosys; returns the cell count, or throws with Yosys's error lines. */
  public static long synthesize(VerilogDesign design, Path dir) {
    return yosys(design, dir, "synth -top " + design.top());
  }

  /**
   * Yosys's coarse synthesis ({@code synth -run :fine}: hierarchy, processes to flip-flops and
   * multiplexers, memory inference, word-level optimization) followed by {@code check -assert},
   * which fails on multiple drivers, combinational loops and undriven cell inputs. That is what a
   * full synthesis would refuse, without the gate mapping (techmap, ABC), which takes minutes on an
   * NPU with its FP units and checks nothing more. Returns the word-level cell count, or throws with
   * Yosys's error lines.
   */
  public static long elaborate(VerilogDesign design, Path dir) {
    return yosys(design, dir, "synth -top " + design.top() + " -run :fine; check -assert");
  }

  private static long yosys(VerilogDesign design, Path dir, String commands) {
    String script = "read_verilog " + String.join(" ", design.files().keySet()) + "; " + commands + "; stat";
    ExternalTool.Result r = ExternalTool.run(List.of("yosys", "-q", "-p", script + "; tee -o yosys-stat.txt stat"),
        dir, Duration.ofMinutes(10));
    if (!r.ok()) {
      throw new IllegalStateException("yosys failed on " + design.top() + ":\n" + errorLines(r.output()));
    }
    long cells = 0;
    try {
      for (String line : java.nio.file.Files.readAllLines(dir.resolve("yosys-stat.txt"))) {
        String t = line.trim();
        if (t.startsWith("Number of cells:")) {
          cells = Long.parseLong(t.substring("Number of cells:".length()).trim());
        }
      }
    } catch (java.io.IOException e) {
      throw new IllegalStateException("yosys wrote no statistics for " + design.top(), e);
    }
    return cells;
  }

  private static String errorLines(String output) {
    StringBuilder sb = new StringBuilder();
    for (String line : output.split("\n")) {
      if (line.contains("ERROR") || line.contains("rror:")) {
        sb.append(line).append('\n');
      }
    }
    return sb.length() == 0 ? output : sb.toString();
  }
}
