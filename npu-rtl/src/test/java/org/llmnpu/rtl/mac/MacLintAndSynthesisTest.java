package org.llmnpu.rtl.mac;

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

/** The registered mac-array and gemm-engine generators are -Wall clean and synthesize at small sizes. */
class MacLintAndSynthesisTest {
  @TempDir
  Path dir;

  static Stream<Arguments> designs() {
    return Stream.of(
        Arguments.of("mac-array", Map.of()),
        Arguments.of("gemm-engine", Map.of()),
        Arguments.of("mac-array", Map.of("rows", "4", "cols", "3", "sparsity", "s2_4", "accWidth", "12")),
        Arguments.of("mac-array", Map.of("rows", "4", "cols", "3", "sparsity", "s4_8", "accWidth", "12")),
        Arguments.of("mac-array", Map.of("rows", "1", "cols", "1", "mTile", "2")),
        Arguments.of("gemm-engine", Map.of("rows", "4", "cols", "4", "maxM", "16", "maxK", "16", "maxN", "8")),
        Arguments.of("gemm-engine", Map.of("rows", "4", "cols", "2", "icAccumDepth", "2", "maxM", "8",
            "maxK", "32", "maxN", "8", "sparsity", "s2_4", "accWidth", "16")),
        Arguments.of("gemm-engine", Map.of("rows", "4", "cols", "2", "icAccumDepth", "1", "maxM", "8",
            "maxK", "40", "maxN", "5", "sparsity", "s4_8", "accWidth", "16")),
        Arguments.of("gemm-engine", Map.of("rows", "3", "cols", "5", "icAccumDepth", "1", "mTile", "3",
            "maxM", "7", "maxK", "9", "maxN", "11")));
  }

  @ParameterizedTest(name = "{0} {1}")
  @MethodSource("designs")
  void generatorIsLintCleanAndSynthesizes(String block, Map<String, String> params) {
    MacSim.requireTool("verilator");
    MacSim.requireTool("yosys");
    BlockGenerator g = BlockRegistry.find(block);
    VerilogDesign d = Verilog.emit(g.build(Params.resolve(g, params)));
    d.writeTo(dir);
    assertEquals(List.of(), DesignChecks.lint(d, dir), "verilator -Wall findings");
    assertTrue(DesignChecks.synthesize(d, dir) > 0, "yosys produced no cells");
  }

  /** With the PPM (its multipliers make synthesis slow; the PPM's own tests synthesize it): lint only. */
  @ParameterizedTest(name = "ppm {0}")
  @org.junit.jupiter.params.provider.ValueSource(strings = {"none", "relu6", "ppu"})
  void engineWithPpmIsLintClean(String activation) {
    MacSim.requireTool("verilator");
    BlockGenerator g = BlockRegistry.find("gemm-engine");
    VerilogDesign d = Verilog.emit(g.build(Params.resolve(g, Map.of("rows", "2", "cols", "3", "mTile", "4",
        "maxM", "8", "maxK", "8", "maxN", "5", "ppm", activation))));
    d.writeTo(dir);
    assertEquals(List.of(), DesignChecks.lint(d, dir), "verilator -Wall findings");
  }
}
