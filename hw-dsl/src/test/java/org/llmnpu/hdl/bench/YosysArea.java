package org.llmnpu.hdl.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.llmnpu.hdl.emit.VerilogDesign;
import org.llmnpu.hdl.tools.ExternalTool;

/** Chip area of a design after Yosys synthesis and mapping onto the osu018 cells. */
final class YosysArea {
  static final Path LIBERTY = Path.of("/usr/share/qflow/tech/osu018/osu018_stdcells.lib");

  private YosysArea() {
  }

  /** Area in square micrometres of {@code design} written into {@code dir}. */
  static double of(VerilogDesign design, Path dir) {
    design.writeTo(dir);
    String lib = LIBERTY.toString();
    String script = "read_verilog " + String.join(" ", design.files().keySet()) + "; synth -flatten -top "
        + design.top() + "; dfflibmap -liberty " + lib + "; abc -liberty " + lib + "; opt_clean; tee -o area.txt stat -liberty "
        + lib;
    ExternalTool.Result r = ExternalTool.run(List.of("yosys", "-q", "-p", script), dir, Duration.ofMinutes(30));
    if (!r.ok()) {
      throw new IllegalStateException("yosys failed on " + design.top() + ":\n" + r.output());
    }
    try {
      for (String line : Files.readAllLines(dir.resolve("area.txt"))) {
        if (line.trim().startsWith("Chip area")) {
          return Double.parseDouble(line.substring(line.indexOf(':') + 1).trim());
        }
      }
    } catch (java.io.IOException e) {
      throw new IllegalStateException(e);
    }
    throw new IllegalStateException("no chip area in Yosys statistics of " + design.top());
  }
}
