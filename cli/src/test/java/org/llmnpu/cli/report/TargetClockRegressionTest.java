package org.llmnpu.cli.report;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
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
 * lanes) to keep the suite's synthesis time small. Results are cached by content
 * ({@code cli/target/ppa-test-cache}), so an unchanged block costs nothing on a second run.
 *
 * <p>Blocks not listed do not meet the target yet (see npu-rtl/README.md, "Timing closure"):
 * the Vector DSP (its execute stage holds a whole FP unit), the one-stage MX quantizer and dot
 * product.
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
        new Point("mac-array", Map.of(), "defines the target"),
        new Point("ppm", Map.of("cols", "1", "activation", "none"), "one lane: lanes are identical, no cross-lane path"),
        new Point("ppm", Map.of("cols", "1"), "one lane with the PPU"),
        new Point("mx-decode", Map.of(), ""),
        new Point("mx-encode", Map.of(), ""),
        new Point("mx-prealign", Map.of(), ""));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("shippedBlocks")
  void meetsTheTargetClock(Point p) {
    PpaCommandTest.requireTools();
    PpaOptions o = PpaOptions.defaults().withClockNs(TargetClock.PERIOD_NS)
        .withCache(new ContentCache(Path.of("target", "ppa-test-cache")));
    PpaResult r = PpaSweep.run(BlockDesigns.of(BlockRegistry.find(p.block())), p.params(), null, List.of(), o).get(0);
    assertTrue(r.timing().slackNs() >= 0, () -> String.format(
        "%s misses the %.2f ns target clock by %.3f ns (Fmax %.1f MHz): %s -> %s through %d cells", p,
        TargetClock.PERIOD_NS, -r.timing().slackNs(), r.timing().fmaxMhz(), r.timing().startpoint(),
        r.timing().endpoint(), r.timing().logicDepth()));
  }
}
