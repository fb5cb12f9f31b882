package org.llmnpu.pim;

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
import org.llmnpu.hdl.ToolsForTests;
import org.llmnpu.hdl.emit.Verilog;
import org.llmnpu.hdl.emit.VerilogDesign;
import org.llmnpu.hdl.gen.BlockGenerator;
import org.llmnpu.hdl.gen.BlockRegistry;
import org.llmnpu.hdl.gen.Params;
import org.llmnpu.hdl.tools.DesignChecks;

/** The registered pim-macro generator is -Wall clean in every mode and synthesizes at small sizes. */
class PimLintAndSynthesisTest {
  @TempDir
  Path dir;

  static Stream<Arguments> lintDesigns() {
    return Stream.of(
        Arguments.of(Map.of()),
        Arguments.of(Map.of("rows", "5", "cols", "3", "precision", "int4", "inBits", "6", "bitsPerCycle", "4")),
        Arguments.of(Map.of("rows", "1", "cols", "1", "mTile", "2", "bitsPerCycle", "8")),
        Arguments.of(Map.of("rows", "6", "cols", "3", "precision", "fp8_e4m3", "alignment", "pre", "alignBits", "6",
            "bitsPerCycle", "2")),
        Arguments.of(Map.of("rows", "6", "cols", "3", "precision", "fp8_e5m2", "alignment", "pre", "alignBits", "3")),
        Arguments.of(Map.of("rows", "6", "cols", "3", "precision", "fp8_e4m3", "alignment", "post")),
        Arguments.of(Map.of("rows", "7", "cols", "2", "precision", "fp8_e5m2", "alignment", "post", "bitsPerCycle", "3")),
        Arguments.of(Map.of("rows", "6", "cols", "3", "precision", "fp8_e4m3", "alignment", "pre", "alignBits", "6",
            "bitsPerCycle", "7", "weightBanks", "2")),
        Arguments.of(Map.of("rows", "4", "cols", "3", "precision", "int4", "weightBanks", "2")),
        Arguments.of(Map.of("rows", "5", "cols", "2", "precision", "fp8_e4m3", "alignment", "pre", "alignBits", "9",
            "input", "bf16", "bitsPerCycle", "3")),
        Arguments.of(Map.of("rows", "3", "cols", "2", "precision", "fp8_e4m3", "alignment", "post", "input", "bf16")),
        Arguments.of(Map.of("rows", "64", "cols", "1", "precision", "fp8_e5m2", "alignment", "pre", "input", "mxfp8")),
        Arguments.of(Map.of("rows", "4", "cols", "2", "precision", "fp8_e4m3", "alignment", "post", "input", "mxint8")),
        Arguments.of(Map.of("rows", "5", "cols", "2", "stages", "0")),
        Arguments.of(Map.of("rows", "5", "cols", "2", "stages", "1", "weightBanks", "2")),
        Arguments.of(Map.of("rows", "1", "cols", "2", "stages", "3", "bitsPerCycle", "8")),
        Arguments.of(Map.of("rows", "6", "cols", "2", "precision", "fp8_e4m3", "alignment", "post", "stages", "3",
            "weightBanks", "2")),
        Arguments.of(Map.of("rows", "6", "cols", "2", "precision", "fp8_e4m3", "alignment", "pre", "stages", "0")));
  }

  @ParameterizedTest(name = "lint {0}")
  @MethodSource("lintDesigns")
  void everyModeIsLintClean(Map<String, String> params) {
    ToolsForTests.require("verilator");
    VerilogDesign d = emit(params);
    d.writeTo(dir);
    assertEquals(List.of(), DesignChecks.lint(d, dir), "verilator -Wall findings");
  }

  static Stream<Arguments> synthDesigns() {
    return Stream.of(
        Arguments.of(Map.of("rows", "4", "cols", "2", "mTile", "2")),
        Arguments.of(Map.of("rows", "4", "cols", "2", "mTile", "2", "precision", "fp8_e4m3", "alignment", "pre",
            "alignBits", "4")),
        Arguments.of(Map.of("rows", "4", "cols", "2", "mTile", "2", "precision", "fp8_e4m3", "alignment", "post")));
  }

  @ParameterizedTest(name = "synth {0}")
  @MethodSource("synthDesigns")
  void smallConfigsSynthesize(Map<String, String> params) {
    ToolsForTests.require("yosys");
    VerilogDesign d = emit(params);
    d.writeTo(dir);
    assertTrue(DesignChecks.synthesize(d, dir) > 0, "yosys produced no cells");
    assertTrue(d.memories().stream().anyMatch(m -> m.name().equals("bitcells")), "bitcell array listed as a memory");
  }

  private static VerilogDesign emit(Map<String, String> params) {
    BlockGenerator g = BlockRegistry.find("pim-macro");
    return Verilog.emit(g.build(Params.resolve(g, params)));
  }
}
