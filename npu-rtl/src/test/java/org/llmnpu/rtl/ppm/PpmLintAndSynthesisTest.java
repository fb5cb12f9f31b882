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

/** The registered {@code ppm} generator is {@code verilator -Wall} clean and synthesizes in Yosys across its parameters. */
class PpmLintAndSynthesisTest {
  @TempDir
  Path dir;

  static Stream<Arguments> configurations() {
    return Stream.of(
        Arguments.of(Map.of()),
        Arguments.of(Map.of("cols", "1", "activation", "none", "outBits", "4")),
        Arguments.of(Map.of("cols", "3", "activation", "relu")),
        Arguments.of(Map.of("cols", "2", "activation", "relu6", "outBits", "4")),
        Arguments.of(Map.of("cols", "2", "segments", "2", "degree", "0", "coeffBits", "8")),
        Arguments.of(Map.of("cols", "2", "segments", "5", "degree", "4", "coeffBits", "24")),
        Arguments.of(Map.of("cols", "2", "segments", "64", "degree", "1", "coeffBits", "12")),
        Arguments.of(Map.of("cols", "2", "segments", "1", "degree", "1")));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("configurations")
  void ppmIsLintCleanAndSynthesizes(Map<String, String> params) {
    PpmToolchain.require("verilator");
    PpmToolchain.require("yosys");
    BlockGenerator g = BlockRegistry.find("ppm");
    VerilogDesign d = Verilog.emit(g.build(Params.resolve(g, params)));
    d.writeTo(dir);
    assertEquals(List.of(), DesignChecks.lint(d, dir), "verilator -Wall findings");
    assertTrue(DesignChecks.synthesize(d, dir) > 0, "yosys produced no cells");
  }
}
