package org.llmnpu.rtl.mx;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.llmnpu.hdl.gen.BlockGenerator;
import org.llmnpu.hdl.gen.BlockRegistry;
import org.llmnpu.hdl.gen.Params;

/**
 * Every MX generator, registered under its CLI name, is {@code verilator -Wall} clean for every
 * element format; each also synthesizes in Yosys at its defaults (mx-dot with FP4 operands).
 */
class MxLintAndSynthesisTest {
  private static final List<String> BLOCKS = List.of("mx-decode", "mx-encode", "mx-dequantizer", "mx-quantizer",
      "mx-prealign", "mx-dot");

  static Stream<Arguments> designs() {
    List<Arguments> cases = new ArrayList<>();
    for (String block : BLOCKS) {
      // mx-dot synthesizes with FP4 operands: at its FP8 default Yosys takes over a minute (the PPA tests run it
      // through the whole flow: reports' registered blocks, cli's target-clock regression)
      cases.add(block.equals("mx-dot") ? Arguments.of(block, Map.of("formatA", "fp4_e2m1", "formatB", "fp4_e2m1"), true)
          : Arguments.of(block, Map.of(), true));
      for (MxFormat f : MxFormat.values()) {
        Map<String, String> p = block.equals("mx-prealign") && f == MxFormat.FP8_E5M2
            ? Map.of("format", f.cliName(), "magnitudeBits", "8")
            : block.equals("mx-dot") ? Map.of("formatA", f.cliName(), "formatB", f.cliName()) : Map.of("format", f.cliName());
        cases.add(Arguments.of(block, p, false));
      }
    }
    cases.add(Arguments.of("mx-decode", Map.of("format", "fp8_e5m2", "output", "fp16"), false));
    cases.add(Arguments.of("mx-encode", Map.of("format", "int8", "input", "fp16", "rounding", "nearest_away"), false));
    cases.add(Arguments.of("mx-quantizer", Map.of("format", "fp6_e3m2", "input", "fp16"), false));
    cases.add(Arguments.of("mx-quantizer", Map.of("format", "fp4_e2m1", "stages", "2"), false));
    cases.add(Arguments.of("mx-quantizer", Map.of("format", "fp4_e2m1", "stages", "3"), false));
    cases.add(Arguments.of("mx-quantizer", Map.of("stages", "1"), false));
    cases.add(Arguments.of("mx-prealign", Map.of("format", "fp6_e2m3", "magnitudeBits", "3", "rounding", "nearest_even"),
        false));
    cases.add(Arguments.of("mx-dot", Map.of("formatA", "fp8_e4m3", "formatB", "int8"), false));
    cases.add(Arguments.of("mx-dot", Map.of("formatA", "fp4_e2m1", "formatB", "fp4_e2m1", "stages", "2"), false));
    cases.add(Arguments.of("mx-dot", Map.of("formatA", "fp4_e2m1", "formatB", "fp4_e2m1", "stages", "3"), false));
    cases.add(Arguments.of("mx-dot", Map.of("stages", "5"), false));
    cases.add(Arguments.of("mx-dot", Map.of("stages", String.valueOf(MxDotProduct.MAX_STAGES)), false));
    cases.add(Arguments.of("mx-dot", Map.of("formatA", "fp8_e5m2", "formatB", "int8", "stages",
        String.valueOf(MxDotProduct.MAX_STAGES)), false));
    return cases.stream();
  }

  @ParameterizedTest(name = "{0} {1} synth={2}")
  @MethodSource("designs")
  void mxBlockIsLintCleanAndSynthesizes(String block, Map<String, String> params, boolean synthesize) {
    BlockGenerator g = BlockRegistry.find(block);
    MxSim.assertLintClean(g.build(Params.resolve(g, params)), synthesize);
  }
}
