package org.llmnpu.rtl.dsp;

import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.llmnpu.hdl.DesignAssertions;
import org.llmnpu.hdl.gen.BlockGenerator;
import org.llmnpu.hdl.gen.BlockRegistry;
import org.llmnpu.hdl.gen.Params;

/** {@code vector-dsp}, registered under its CLI name, is {@code verilator -Wall} clean (and synthesizes in Yosys at 2 lanes). */
class VectorDspLintTest {

  @ParameterizedTest(name = "lanes={0} rows={1} synth={2}")
  @CsvSource({"2, 16, true", "1, 64, false", "8, 512, false", "16, 512, false"})
  void vectorDspIsLintClean(String lanes, String rows, boolean synthesize) {
    BlockGenerator g = BlockRegistry.find("vector-dsp");
    DesignAssertions.assertLintClean(g.build(Params.resolve(g, Map.of("lanes", lanes, "rows", rows,
        "programDepth", "64"))), synthesize);
  }
}
