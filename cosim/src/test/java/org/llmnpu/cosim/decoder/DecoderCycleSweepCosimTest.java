package org.llmnpu.cosim.decoder;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The cycle model equals the RTL's cycles on a sweep of NPU configurations ({@link DecoderSweep#ci}:
 * memory latency and bandwidth, a 4×4 array whose engine limit maxK 48 needs K tiling, the
 * int4-g32 format): stories260K, a 2-token prefill and one decode step on the RTL in Verilator,
 * memory, status and every counter bit-exact with the golden ISA simulator.
 */
class DecoderCycleSweepCosimTest {
  static java.util.List<DecoderSweep.Point> points() {
    return DecoderSweep.ci();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("points")
  void cycleModelEqualsTheRtl(DecoderSweep.Point p) throws Exception {
    DecoderSweep.Row row = DecoderSweep.run(p, 2, 2);
    assertEquals(2, row.result().steps().size());
    DecoderRtlSteps.assertExact(p.name(), row.result().steps());
  }
}
