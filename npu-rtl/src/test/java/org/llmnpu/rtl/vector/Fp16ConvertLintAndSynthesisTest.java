package org.llmnpu.rtl.vector;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.llmnpu.hdl.gen.BlockGenerator;
import org.llmnpu.hdl.gen.BlockRegistry;
import org.llmnpu.hdl.gen.Params;

/** {@code fp16-convert}, registered under its CLI name, is {@code verilator -Wall} clean and synthesizes in Yosys. */
class Fp16ConvertLintAndSynthesisTest {

  @Test
  void fp16ConvertIsLintCleanAndSynthesizes() {
    BlockGenerator g = BlockRegistry.find("fp16-convert");
    assertEquals(0, g.params().size());
    VectorSim.assertLintClean(g.build(Params.resolve(g, Map.of())), true);
  }
}
