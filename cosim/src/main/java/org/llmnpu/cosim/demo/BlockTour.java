package org.llmnpu.cosim.demo;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.llmnpu.hdl.emit.Verilog;
import org.llmnpu.hdl.emit.VerilogDesign;
import org.llmnpu.hdl.gen.BlockGenerator;
import org.llmnpu.hdl.gen.Params;
import org.llmnpu.hdl.tools.DesignChecks;

/**
 * The demo's block tour ({@code npu demo --quick}): each registered block generated at its default parameters
 * (the NPU at {@link #DEMO_PARAMS}), its Verilog written to {@code <out>/<block>/}, linted with
 * {@code verilator --lint-only -Wall} and synthesized with Yosys ({@code synth}), one table row per block with
 * its lint findings below it.
 */
public final class BlockTour {
  /**
   * The whole NPU at its defaults holds 256 KiB of scratchpad and 128 KiB of engine buffers, which this
   * check synthesizes as flip-flops; the tour builds a small one ({@code ./npu report ppa npu} black-boxes
   * the memories of the default one).
   */
  static final Map<String, Map<String, String>> DEMO_PARAMS = Map.of("npu", Map.ofEntries(
      Map.entry("rows", "4"), Map.entry("spadKiB", "1"), Map.entry("spadBanks", "2"), Map.entry("extMemMiB", "1"),
      Map.entry("maxM", "8"), Map.entry("maxK", "8"), Map.entry("maxN", "8"), Map.entry("mTile", "4"),
      Map.entry("dspLanes", "1"), Map.entry("dspRows", "16"), Map.entry("dspProgramDepth", "16")));

  private BlockTour() {
  }

  /**
   * The tour's parameters of {@code g}: its own entry in {@link #DEMO_PARAMS}; for the NPU's unit blocks
   * ({@code npu-…}, generated with the {@code npu} parameters) the small NPU's, those the unit declares, so that
   * no unit is built at the default NPU's size (its 256 KiB scratchpad as flip-flops); none for the others.
   */
  static Map<String, String> demoParams(BlockGenerator g) {
    Map<String, String> own = DEMO_PARAMS.get(g.name());
    if (own != null || !g.name().startsWith("npu-")) {
      return own == null ? Map.of() : own;
    }
    Map<String, String> small = new java.util.TreeMap<>();
    DEMO_PARAMS.get("npu").forEach((name, value) -> {
      if (g.params().stream().anyMatch(p -> p.name().equals(name))) {
        small.put(name, value);
      }
    });
    return small;
  }

  /**
   * Tours {@code blocks}, writing each under {@code out} and each printed line (the table, lint findings) to
   * {@code print}; returns the number of blocks with lint findings. A block Yosys refuses throws.
   */
  public static int run(List<BlockGenerator> blocks, Path out, Consumer<String> print) {
    int failures = 0;
    int nameWidth = blocks.stream().mapToInt(g -> g.name().length()).max().orElse(5) + 1;
    String row = "%-" + nameWidth + "s %-44s %5s %13s %9s   %s";
    print.accept(String.format(row, "block", "top module", "files", "lint warnings", "cells", "emit time"));
    for (BlockGenerator g : blocks) {
      Path dir = out.resolve(g.name());
      long start = System.nanoTime();
      VerilogDesign d = Verilog.emit(g.build(Params.resolve(g, demoParams(g))));
      double emitMs = (System.nanoTime() - start) / 1e6;
      d.writeTo(dir);
      List<String> lint = DesignChecks.lint(d, dir);
      long cells = DesignChecks.synthesize(d, dir);
      failures += lint.isEmpty() ? 0 : 1;
      print.accept(String.format(row, g.name(), d.top(), d.files().size(), lint.size(), cells,
          String.format("%.1f ms", emitMs)));
      lint.forEach(l -> print.accept("    " + l));
    }
    print.accept("Verilog, filelists and Yosys statistics are in " + out);
    return failures;
  }
}
