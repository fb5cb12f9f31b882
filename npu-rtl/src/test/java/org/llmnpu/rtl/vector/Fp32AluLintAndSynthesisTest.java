package org.llmnpu.rtl.vector;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.llmnpu.hdl.gen.BlockGenerator;
import org.llmnpu.hdl.gen.BlockRegistry;
import org.llmnpu.hdl.gen.Params;

/** {@code fp32-alu}, registered under its CLI name, is {@code verilator -Wall} clean and synthesizes in Yosys. */
class Fp32AluLintAndSynthesisTest {

  @Test
  void fp32AluIsLintCleanAndSynthesizes() {
    BlockGenerator g = BlockRegistry.find("fp32-alu");
    assertEquals(0, g.params().size());
    VectorSim.assertLintClean(g.build(Params.resolve(g, Map.of())), true);
  }
}
