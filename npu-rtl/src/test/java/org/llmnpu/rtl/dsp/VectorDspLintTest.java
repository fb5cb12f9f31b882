package org.llmnpu.rtl.dsp;

import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.llmnpu.hdl.DesignAssertions;
import org.llmnpu.hdl.gen.BlockGenerator;
import org.llmnpu.hdl.gen.BlockRegistry;
import org.llmnpu.hdl.gen.Params;

/**
 * {@code vector-dsp}, registered under its CLI name, is {@code verilator -Wall} clean, also with the FP32 FMA and
 * the permutations. Its synthesis runs in the PPA flow: reports' {@code RegisteredBlocksTest} (its small
 * configuration) and cli's {@code TargetClockRegressionTest} (four execute stages at the target clock); with the
 * FP32 FMA and the permutations: {@code ./npu report ppa}, in the README.
 */
class VectorDspLintTest {

  @ParameterizedTest(name = "lanes={0} rows={1}")
  @CsvSource({"2, 16", "1, 64", "8, 512", "16, 512"})
  void vectorDspIsLintClean(String lanes, String rows) {
    BlockGenerator g = BlockRegistry.find("vector-dsp");
    DesignAssertions.assertLintClean(g.build(Params.resolve(g, Map.of("lanes", lanes, "rows", rows,
        "programDepth", "64"))), false);
  }

  /**
   * Every execute depth at 2 lanes and at 8 or 16. The four-stage DSP at 64 lanes is linted twice elsewhere:
   * in {@code NpuUnitsLintTest} (edge-64's DSP, the same generator with the NPU's buffer window and the pipelined
   * units' clock gates, behind a wide and a narrow line) and below with the FP32 FMA and the permutations (without
   * the gates); a third 64-lane lint here (about 10 s of Verilator on an idle core, 2026-12-06) checks no generator
   * path those two do not.
   */
  @ParameterizedTest(name = "executeStages={0} lanes={1}")
  @CsvSource({"2, 2", "2, 8", "3, 2", "3, 8", "4, 2", "4, 16"})
  void pipelinedExecuteIsLintClean(String executeStages, String lanes) {
    BlockGenerator g = BlockRegistry.find("vector-dsp");
    DesignAssertions.assertLintClean(g.build(Params.resolve(g, Map.of("lanes", lanes, "rows", "16",
        "programDepth", "64", "executeStages", executeStages))), false);
  }

  @ParameterizedTest(name = "fma32 and permute, executeStages={0} lanes={1}")
  @CsvSource({"1, 1", "2, 2", "1, 8", "2, 16", "3, 2", "4, 8", "4, 64"})
  void fma32AndPermuteAreLintClean(String executeStages, String lanes) {
    BlockGenerator g = BlockRegistry.find("vector-dsp");
    DesignAssertions.assertLintClean(g.build(Params.resolve(g, Map.of("lanes", lanes, "rows", "16",
        "programDepth", "64", "executeStages", executeStages, "fma32", "true", "permute", "true"))), false);
  }

  @ParameterizedTest(name = "tableSegments={0} tableDegree={1}")
  @CsvSource({"16, 3", "1, 0", "8, 1"})
  void everyTableCapacityIsLintClean(String segments, String degree) {
    BlockGenerator g = BlockRegistry.find("vector-dsp");
    DesignAssertions.assertLintClean(g.build(Params.resolve(g, Map.of("lanes", "2", "rows", "16", "programDepth", "16",
        "tableSegments", segments, "tableDegree", degree))), false);
  }
}
