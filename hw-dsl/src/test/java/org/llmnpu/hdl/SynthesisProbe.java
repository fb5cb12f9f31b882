package org.llmnpu.hdl;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.llmnpu.hdl.emit.VerilogDesign;
import org.llmnpu.hdl.tools.ExternalTool;

/**
 * The multipliers Yosys infers from written Verilog, after its word-level width reduction
 * ({@code proc; opt; wreduce}) and before any mapping: what the later synthesis turns into gates.
 * Shared with other modules' tests through hw-dsl's test jar.
 */
public final class SynthesisProbe {
  /** osu018 standard cells, the library every area figure of the project is measured on. */
  public static final Path OSU018 = Path.of("/usr/share/qflow/tech/osu018/osu018_stdcells.lib");

  private static final Pattern PARAMETER = Pattern.compile("parameter \\\\(\\w+) (\\d+)");

  /** One {@code $mul} cell: operand widths and signedness, product width. */
  public record Multiplier(int aWidth, boolean aSigned, int bWidth, boolean bSigned, int yWidth) {
    /** As Yosys would print its shape, e.g. {@code signed 8x8->16}. */
    @Override
    public String toString() {
      return (aSigned && bSigned ? "signed " : aSigned || bSigned ? "mixed " : "unsigned ") + aWidth + "x" + bWidth
          + "->" + yWidth;
    }
  }

  private SynthesisProbe() {
  }

  /** The {@code $mul} cells of module {@code module} of {@code design}, written into {@code dir}. */
  public static List<Multiplier> multipliers(VerilogDesign design, String module, Path dir) {
    design.writeTo(dir);
    String script = "read_verilog " + String.join(" ", design.files().keySet()) + "; hierarchy -top " + design.top()
        + "; proc; opt_expr; opt_clean; wreduce; opt_clean; tee -q -o multipliers.il dump " + module + "/t:$mul";
    ExternalTool.Result r = ExternalTool.run(List.of("yosys", "-q", "-p", script), dir, Duration.ofMinutes(5));
    if (!r.ok()) {
      throw new IllegalStateException("yosys failed on " + design.top() + ":\n" + r.output());
    }
    List<Multiplier> out = new ArrayList<>();
    try {
      int[] p = null;
      for (String line : Files.readAllLines(dir.resolve("multipliers.il"))) {
        String t = line.trim();
        if (t.startsWith("cell $mul ")) {
          p = new int[5];
        } else if (p != null && t.startsWith("parameter ")) {
          Matcher m = PARAMETER.matcher(t);
          if (m.matches()) {
            int v = Integer.parseInt(m.group(2));
            switch (m.group(1)) {
              case "A_WIDTH" -> p[0] = v;
              case "A_SIGNED" -> p[1] = v;
              case "B_WIDTH" -> p[2] = v;
              case "B_SIGNED" -> p[3] = v;
              case "Y_WIDTH" -> p[4] = v;
              default -> { }
            }
          }
        } else if (p != null && t.equals("end")) {
          out.add(new Multiplier(p[0], p[1] == 1, p[2], p[3] == 1, p[4]));
          p = null;
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("yosys wrote no cell dump for " + module, e);
    }
    return out;
  }

  /** Chip area in square micrometres of {@code design} after flattened synthesis onto {@link #OSU018}. */
  public static double area(VerilogDesign design, Path dir) {
    return area(design, dir, true);
  }

  /**
   * The same, flattened ({@code synth -flatten}: optimization across module boundaries) or per
   * module ({@code stat -top} sums each module's area over its instances; an array of identical
   * PEs then maps one PE, minutes faster on a loaded machine).
   */
  public static double area(VerilogDesign design, Path dir, boolean flatten) {
    design.writeTo(dir);
    String lib = OSU018.toString();
    String script = "read_verilog " + String.join(" ", design.files().keySet()) + "; synth " + (flatten ? "-flatten "
        : "") + "-top " + design.top() + "; dfflibmap -liberty " + lib + "; abc -liberty " + lib
        + "; opt_clean; tee -q -o area.txt stat -liberty " + lib + (flatten ? "" : " -top " + design.top());
    ExternalTool.Result r = ExternalTool.run(List.of("yosys", "-q", "-p", script), dir, Duration.ofMinutes(60));
    if (!r.ok()) {
      throw new IllegalStateException("yosys failed on " + design.top() + ":\n" + r.output());
    }
    try {
      double area = Double.NaN;
      for (String line : Files.readAllLines(dir.resolve("area.txt"))) {
        if (line.trim().startsWith("Chip area")) {
          area = Double.parseDouble(line.substring(line.indexOf(':') + 1).trim());  // the last one is the top's total
        }
      }
      if (!Double.isNaN(area)) {
        return area;
      }
    } catch (IOException e) {
      throw new UncheckedIOException("yosys wrote no statistics for " + design.top(), e);
    }
    throw new IllegalStateException("no chip area in the Yosys statistics of " + design.top());
  }
}
