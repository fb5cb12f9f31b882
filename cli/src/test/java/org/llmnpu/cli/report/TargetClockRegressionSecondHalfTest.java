package org.llmnpu.cli.report;

import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The rest of {@link TargetClockRegressionTest}'s points (the Vector DSP, the one-lane PPMs, the MX quantizer), in a
 * class of its own so that the two halves' syntheses run in parallel test forks.
 */
class TargetClockRegressionSecondHalfTest {
  static Stream<TargetClockRegressionTest.Point> secondHalf() {
    return TargetClockRegressionTest.shippedBlocks().filter(p -> !TargetClockRegressionTest.inFirstHalf(p));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("secondHalf")
  void meetsTheTargetClock(TargetClockRegressionTest.Point p) {
    TargetClockRegressionTest.check(p);
  }
}
