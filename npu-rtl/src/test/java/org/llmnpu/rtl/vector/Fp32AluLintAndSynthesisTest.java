package org.llmnpu.rtl.vector;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.llmnpu.hdl.gen.BlockGenerator;
import org.llmnpu.hdl.gen.BlockRegistry;
import org.llmnpu.hdl.gen.ParamSpec;
import org.llmnpu.hdl.gen.Params;

/**
 * {@code fp32-alu}, registered under its CLI name with one parameter ({@code stages}, default {@link FpStages#DEFAULT}),
 * is {@code verilator -Wall} clean at every depth and synthesizes in Yosys at its default.
 */
class Fp32AluLintAndSynthesisTest {

  @ParameterizedTest(name = "stages {0}")
  @ValueSource(ints = {0, 1, 2, 3})
  void fp32AluIsLintCleanAndSynthesizes(int stages) {
    BlockGenerator g = BlockRegistry.find("fp32-alu");
    assertEquals(List.of("stages"), g.params().stream().map(ParamSpec::name).toList());
    VectorSim.assertLintClean(g.build(Params.resolve(g, Map.of("stages", "" + stages))), stages == FpStages.DEFAULT);
  }
}
