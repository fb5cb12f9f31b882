package org.llmnpu.rtl.vector;

import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.llmnpu.hdl.gen.BlockGenerator;
import org.llmnpu.hdl.gen.BlockRegistry;
import org.llmnpu.hdl.gen.Params;

/** {@code fp16-alu}, registered under its CLI name, is {@code verilator -Wall} clean and synthesizes in Yosys. */
class Fp16AluLintAndSynthesisTest {

  @ParameterizedTest(name = "lanes={0} latency={1} synth={2}")
  @CsvSource({"1, 1, true", "8, 1, true", "1, 0, false", "8, 0, false", "32, 1, false"})
  void fp16AluIsLintCleanAndSynthesizes(String lanes, String latency, boolean synthesize) {
    BlockGenerator g = BlockRegistry.find("fp16-alu");
    VectorSim.assertLintClean(g.build(Params.resolve(g, Map.of("lanes", lanes, "latency", latency))), synthesize);
  }
}
