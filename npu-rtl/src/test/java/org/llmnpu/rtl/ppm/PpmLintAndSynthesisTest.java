package org.llmnpu.rtl.ppm;

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

/** The registered {@code ppm} generator is {@code verilator -Wall} clean across its parameters and synthesizes in Yosys. */
class PpmLintAndSynthesisTest {
  @TempDir
  Path dir;

  /** Every configuration is linted; synthesis (the slow part) runs on the defaults and the widest datapaths. */
  static Stream<Arguments> configurations() {
    return Stream.of(
        Arguments.of(Map.of(), true),
        Arguments.of(Map.of("cols", "1", "activation", "none", "outBits", "4"), true),
        Arguments.of(Map.of("cols", "3", "activation", "relu"), false),
        Arguments.of(Map.of("cols", "2", "activation", "relu6", "outBits", "4"), true),
        Arguments.of(Map.of("cols", "2", "segments", "2", "degree", "0", "coeffBits", "8"), false),
        Arguments.of(Map.of("cols", "1", "segments", "5", "degree", "4", "coeffBits", "24"), true),
        Arguments.of(Map.of("cols", "1", "segments", "64", "degree", "1", "coeffBits", "12"), false),
        Arguments.of(Map.of("cols", "2", "segments", "1", "degree", "1"), false));
  }

  @ParameterizedTest(name = "{0} synthesis={1}")
  @MethodSource("configurations")
  void ppmIsLintCleanAndSynthesizes(Map<String, String> params, boolean synthesize) {
    PpmToolchain.require("verilator");
    if (synthesize) {
      PpmToolchain.require("yosys");
    }
    BlockGenerator g = BlockRegistry.find("ppm");
    VerilogDesign d = Verilog.emit(g.build(Params.resolve(g, params)));
    d.writeTo(dir);
    assertEquals(List.of(), DesignChecks.lint(d, dir), "verilator -Wall findings");
    if (synthesize) {
      assertTrue(DesignChecks.synthesize(d, dir) > 0, "yosys produced no cells");
    }
  }
}
