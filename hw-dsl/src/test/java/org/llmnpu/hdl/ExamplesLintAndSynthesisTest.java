package org.llmnpu.hdl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.llmnpu.hdl.emit.Verilog;
import org.llmnpu.hdl.emit.VerilogDesign;
import org.llmnpu.hdl.gen.BlockGenerator;
import org.llmnpu.hdl.gen.BlockRegistry;
import org.llmnpu.hdl.gen.Params;
import org.llmnpu.hdl.tools.DesignChecks;

/** Every shipped example, at its defaults and at other parameters, is -Wall clean and synthesizes. */
class ExamplesLintAndSynthesisTest {
  @TempDir
  Path dir;

  static Stream<Arguments> designs() {
    List<Arguments> cases = new java.util.ArrayList<>();
    for (BlockGenerator g : BlockRegistry.all()) {
      cases.add(Arguments.of(g.name(), Map.of()));
    }
    cases.add(Arguments.of("fifo", Map.of("width", "8", "depth", "16")));
    cases.add(Arguments.of("fifo", Map.of("width", "1", "depth", "2")));
    cases.add(Arguments.of("arbiter", Map.of("ports", "2")));
    cases.add(Arguments.of("arbiter", Map.of("ports", "7")));
    cases.add(Arguments.of("multiplier", Map.of("aWidth", "16", "bWidth", "5", "stages", "1")));
    cases.add(Arguments.of("regfile", Map.of("width", "8", "depth", "3", "readPorts", "1")));
    cases.add(Arguments.of("counter", Map.of("limit", "2")));
    cases.add(Arguments.of("pe-array", Map.of("rows", "3", "cols", "2")));
    return cases.stream();
  }

  @ParameterizedTest(name = "{0} {1}")
  @MethodSource("designs")
  void exampleIsLintCleanAndSynthesizes(String block, Map<String, String> params) {
    ToolsForTests.require("verilator");
    ToolsForTests.require("yosys");
    BlockGenerator g = BlockRegistry.find(block);
    VerilogDesign d = Verilog.emit(g.build(Params.resolve(g, params)));
    d.writeTo(dir);
    assertEquals(List.of(), DesignChecks.lint(d, dir), "verilator -Wall findings");
    assertTrue(DesignChecks.synthesize(d, dir) > 0, "yosys produced no cells");
  }
}
