package org.llmnpu.cli.report;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.llmnpu.hdl.gen.BlockRegistry;
import org.llmnpu.reports.ppa.BlockDesigns;
import org.llmnpu.reports.ppa.ContentCache;
import org.llmnpu.reports.ppa.PpaOptions;
import org.llmnpu.reports.ppa.PpaResult;
import org.llmnpu.reports.ppa.PpaSweep;
import org.llmnpu.rtl.TargetClock;

/**
 * PPA regression: each shipped NPU block meets the NPU's target clock ({@link TargetClock},
 * 5.75 ns at 180 nm) in OpenSTA after Yosys timing-driven mapping on osu018 — slack ≥ 0 — so a
 * change that lengthens a critical path fails the build. Blocks run at their default parameters
 * unless a comment says which smaller configuration stands in (same stage structure, fewer
 * lanes) to keep the suite's synthesis time small. Results are cached by content in the tests' shared cache
 * ({@code target/ppa-test-cache} at the root), so an unchanged block costs nothing on a second run.
 *
 * <p>The PPM meets it at its default stages ({@code requantStages} 8, {@code hornerStages} 5) at one
 * lane, with and without the PPU, and at the 16 lanes the default {@code npu} (16×16 array) uses.
 * The MX dot product and quantizer meet it with their deeper {@code stages} (4 and 5), which are
 * tested here, and so does the Vector DSP with the NPU's four execute stages (one lane; the
 * standalone block's default is one stage, 89 MHz). Not in the test: the one-stage MX quantizer and dot
 * product (54–83 MHz at their defaults). See npu-rtl/README.md, "Target clock".
 */
class TargetClockRegressionTest {

  /** A block, its parameters (empty: the defaults) and why they are what they are. */
  record Point(String block, Map<String, String> params, String note) {
    @Override
    public String toString() {
      return block + (params.isEmpty() ? " (defaults)" : " " + params) + (note.isEmpty() ? "" : " — " + note);
    }
  }

  static Stream<Point> shippedBlocks() {
    return Stream.of(
        new Point("mac-array", Map.of(), "the NPU's array; meets the target with about 0.55 ns to spare (192 MHz)"),
        new Point("ppm", Map.of("cols", "1", "activation", "none"), "one lane, requantizer only"),
        new Point("ppm", Map.of("cols", "1"), "one lane with the PPU"),
        new Point("ppm", Map.of("cols", "16"), "the default npu's 16 lanes with the PPU: shared channel-port and "
            + "table fan-out (about 1.5 min of synthesis)"),
        new Point("mx-decode", Map.of(), ""),
        new Point("mx-encode", Map.of(), ""),
        new Point("mx-prealign", Map.of(), ""),
        new Point("mx-dot", Map.of("formatA", "fp4_e2m1", "formatB", "fp4_e2m1", "stages", "4"),
            "FP4 x FP4 stands in for the wider formats (same stage structure, seconds of synthesis instead of minutes)"),
        new Point("mx-quantizer", Map.of("stages", "5"), "the stages that reach the target"),
        new Point("vector-dsp", Map.of("lanes", "1", "rows", "64", "programDepth", "64", "executeStages", "4"),
            "the NPU's DSP stages (dspStages 4) at one lane: 177 MHz; the lanes are copies"));
  }

  /**
   * The points this class checks: about half of the synthesis time (the 16-lane PPM, the array, the MX codecs and
   * the dot product); {@link TargetClockRegressionSecondHalfTest} checks the others, so the two run in parallel
   * test forks (together they took over 5 minutes of one fork).
   */
  static Stream<Point> firstHalf() {
    return shippedBlocks().filter(TargetClockRegressionTest::inFirstHalf);
  }

  static boolean inFirstHalf(Point p) {
    return p.block().equals("mac-array") || p.block().startsWith("mx-") && !p.block().equals("mx-quantizer")
        || p.block().equals("ppm") && "16".equals(p.params().get("cols"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("firstHalf")
  void meetsTheTargetClock(Point p) {
    check(p);
  }

  /** Synthesizes {@code p} and fails unless it meets the target clock. */
  static void check(Point p) {
    PpaCommandTest.requireTools();
    PpaOptions o = PpaOptions.defaults().withClockNs(TargetClock.PERIOD_NS)
        .withCache(new ContentCache(PpaCommandTest.sharedPpaCache()));
    PpaResult r = PpaSweep.run(BlockDesigns.of(BlockRegistry.find(p.block())), p.params(), null, List.of(), o).get(0);
    assertTrue(r.timing().slackNs() >= 0, () -> String.format(
        "%s misses the %.2f ns target clock by %.3f ns (Fmax %.1f MHz): %s -> %s through %d cells", p,
        TargetClock.PERIOD_NS, -r.timing().slackNs(), r.timing().fmaxMhz(), r.timing().startpoint(),
        r.timing().endpoint(), r.timing().logicDepth()));
  }
}
