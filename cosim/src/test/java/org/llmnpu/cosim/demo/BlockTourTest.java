package org.llmnpu.cosim.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.llmnpu.hdl.emit.Verilog;
import org.llmnpu.hdl.gen.BlockGenerator;
import org.llmnpu.hdl.gen.BlockRegistry;
import org.llmnpu.hdl.gen.Params;
import org.llmnpu.hdl.tools.ExternalTool;

/** The block tour on two small blocks: a table row each, their Verilog written, lint clean, Yosys cells counted. */
class BlockTourTest {
  @TempDir
  Path tmp;

  /**
   * The NPU's unit blocks are toured at the small NPU's size, as the {@code npu} block is: the scratchpad unit at the
   * default NPU's would be 256 KiB of flip-flops, which Yosys does not finish in minutes.
   */
  @Test
  void theNpusUnitsAreTouredAtTheSmallNpusSize() {
    int units = 0;
    for (BlockGenerator g : BlockRegistry.all()) {
      if (g.name().startsWith("npu-")) {
        units++;
        Params.resolve(g, BlockTour.demoParams(g));
      }
    }
    assertTrue(units > 10, units + " npu-* unit blocks");
    BlockGenerator spad = BlockRegistry.find("npu-scratchpad");
    assertEquals("1", BlockTour.demoParams(spad).get("spadKiB"));
    String top = Verilog.emit(spad.build(Params.resolve(spad, BlockTour.demoParams(spad)))).top();
    assertTrue(top.contains("_s1k"), top);
  }

  @Test
  void eachBlockGetsARowWithItsLintFindingsAndCells() throws Exception {
    for (String tool : new String[] {"verilator", "yosys"}) {
      assumeTrue(ExternalTool.find(tool).isPresent() || "true".equalsIgnoreCase(System.getenv("CI")),
          tool + " not installed");
    }
    List<String> lines = new ArrayList<>();
    int failures = BlockTour.run(List.of(BlockRegistry.find("npu-watchdog"), BlockRegistry.find("npu-load4")), tmp,
        lines::add);
    assertEquals(0, failures, String.join("\n", lines));
    assertEquals(4, lines.size(), String.join("\n", lines));
    assertTrue(lines.get(0).startsWith("block ") && lines.get(0).contains("lint warnings"), lines.get(0));
    for (String row : lines.subList(1, 3)) {
      String[] f = row.trim().split("\\s+");
      assertTrue(f[0].startsWith("npu-") && f[1].startsWith("Npu"), row);
      assertEquals("0", f[3], "lint warnings: " + row);
      assertTrue(Long.parseLong(f[4]) > 0, "Yosys cells: " + row);
      assertTrue(Files.isRegularFile(tmp.resolve(f[0]).resolve(f[1] + ".v")), row);
    }
    assertEquals("Verilog, filelists and Yosys statistics are in " + tmp, lines.get(3));
  }
}
