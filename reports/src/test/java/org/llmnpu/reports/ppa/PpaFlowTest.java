package org.llmnpu.reports.ppa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.llmnpu.reports.RequiredTools;
import org.llmnpu.reports.TestDesigns;

class PpaFlowTest {
  @BeforeEach
  void tools() {
    RequiredTools.require("yosys", "sta");
  }

  @Test
  void fifoStorageIsAnSramMacroNotFlipFlops() {
    PpaResult r = PpaFlow.run(TestDesigns.fifo(), TestDesigns.options());
    SynthesisResult s = r.synthesis();
    assertEquals(1, s.macros().size(), s.macros().toString());
    SramMacro m = s.macros().get(0);
    assertEquals(8, m.width());
    assertEquals(16, m.depth());
    assertEquals(1, m.instances());
    // two 5-bit pointers only: the 128 storage bits are not flip-flops
    assertEquals(10, s.flipFlops(), s.cellsByType().toString());
    assertTrue(s.chipAreaUm2() > 0);
    assertTrue(r.sramAreaUm2(NodeScaling.Node.N180) > 128 * 5.59);
    assertTrue(s.notes().isEmpty(), s.notes().toString());
  }

  @Test
  void hierarchicalAndFlatSynthesisAgreeOnMacroCopiesAndRoughlyOnArea() {
    PpaResult hier = PpaFlow.run(TestDesigns.dualFifo(), TestDesigns.options());
    PpaResult flat = PpaFlow.run(TestDesigns.dualFifo(), TestDesigns.options().withFlatten(true));
    for (PpaResult r : List.of(hier, flat)) {
      assertEquals(1, r.synthesis().macros().size());
      assertEquals(2, r.synthesis().macros().get(0).instances(), "one memory definition, two copies");
      assertEquals(20, r.synthesis().flipFlops(), "two pairs of 5-bit pointers");
    }
    double ratio = hier.synthesis().chipAreaUm2() / flat.synthesis().chipAreaUm2();
    assertTrue(ratio > 0.9 && ratio < 1.2, "hierarchical/flat area " + ratio);
    assertTrue(hier.timing().startpoint().matches("register u_(lo|hi)\\.(wr|rd)_ptr.*"), hier.timing().startpoint());
  }

  @Test
  void macHasACriticalPathThroughTheMultiplierAndPositivePower() {
    PpaResult r = PpaFlow.run(TestDesigns.mac8(), TestDesigns.options());
    TimingResult t = r.timing();
    assertTrue(t.logicDepth() >= 10, "an 8x8 multiply-add is deep: " + t);
    assertTrue(t.startpoint().startsWith("register"), t.startpoint());
    assertTrue(t.endpoint().startsWith("register acc"), t.endpoint());
    assertEquals(t.clockNs() - t.slackNs(), t.criticalDelayNs(), 1e-9);
    assertTrue(t.fmaxMhz() > 10 && t.fmaxMhz() < 2000, "Fmax " + t.fmaxMhz());
    PowerResult p = r.power();
    assertTrue(p.internalMw() > 0 && p.switchingMw() > 0 && p.leakageMw() > 0, p.toString());
    assertEquals(p.internalMw() + p.switchingMw() + p.leakageMw(), p.totalMw(), 1e-3 * p.totalMw());
    assertTrue(r.synthesis().chipAreaUm2() > 10_000, "MAC area " + r.synthesis().chipAreaUm2());
  }

  @Test
  void higherActivityGivesMorePowerAndPortActivityIsApplied() {
    PpaResult low = PpaFlow.run(TestDesigns.mac8(), TestDesigns.options().withActivity(0.05, Map.of()));
    PpaResult high = PpaFlow.run(TestDesigns.mac8(), TestDesigns.options().withActivity(0.3, Map.of()));
    PpaResult port = PpaFlow.run(TestDesigns.mac8(), TestDesigns.options().withActivity(0.05, Map.of("a", 0.5)));
    assertTrue(high.power().totalMw() > low.power().totalMw());
    assertTrue(port.power().switchingMw() > low.power().switchingMw());
  }

  @Test
  void asynchronousReadRegisterFileIsTimedThroughTheMacro() {
    PpaResult r = PpaFlow.run(TestDesigns.regfile(), TestDesigns.options());
    SramMacro m = r.synthesis().macros().get(0);
    assertFalse(m.readClocked());
    assertEquals(16, r.synthesis().flipFlops(), "only 'last' is flip-flops");
    assertTrue(r.timing().logicDepth() >= 1);
  }

  @Test
  void widerCounterHasMoreAreaAndLowerFmax() {
    PpaResult small = PpaFlow.run(TestDesigns.counter(4), TestDesigns.options());
    PpaResult large = PpaFlow.run(TestDesigns.counter(32), TestDesigns.options());
    assertTrue(large.synthesis().chipAreaUm2() > 4 * small.synthesis().chipAreaUm2());
    assertTrue(large.timing().fmaxMhz() < small.timing().fmaxMhz());
  }

  @Test
  void combinationalDesignIsTimedInputToOutputOnAVirtualClock() {
    PpaResult r = PpaFlow.run(TestDesigns.adder(), TestDesigns.options());
    assertEquals("", r.timing().clockPort());
    assertTrue(r.timing().startpoint().startsWith("input "), r.timing().startpoint());
    assertTrue(r.timing().endpoint().startsWith("output sum"), r.timing().endpoint());
    assertTrue(r.timing().logicDepth() >= 8, "a 16-bit carry chain: " + r.timing());
    assertEquals(0, r.synthesis().flipFlops());
  }

  @Test
  void secondRunComesFromTheCacheWithIdenticalNumbers(@TempDir Path cacheDir) {
    PpaOptions o = TestDesigns.options().withCache(new ContentCache(cacheDir));
    PpaResult first = PpaFlow.run(TestDesigns.counter(8), o);
    long t0 = System.nanoTime();
    PpaResult second = PpaFlow.run(TestDesigns.counter(8), o);
    long ms = (System.nanoTime() - t0) / 1_000_000;
    assertEquals(first, second);
    // entries are named by their key; .locks holds the lock files of getOrCompute
    assertEquals(3, cacheDir.toFile().list((dir, name) -> !name.startsWith(".")).length,
        "one Yosys entry, one OpenSTA entry and the recorded timing (CachedTiming)");
    assertTrue(ms < 1000, "cached run took " + ms + " ms");
  }

  @Test
  void yosysErrorIsShownToTheUser() throws java.io.IOException {
    ToolFailure e = assertThrows(ToolFailure.class, () -> PpaFlow.run(TestDesigns.broken(), TestDesigns.options()));
    assertEquals("yosys", e.tool());
    assertTrue(e.toolErrors().stream().anyMatch(l -> l.contains("ERROR") && l.contains("broken.v:3")),
        e.getMessage());
    java.util.regex.Matcher dir = java.util.regex.Pattern.compile("in (\\S+llmnpu-yosys-\\d+):").matcher(e.getMessage());
    assertTrue(dir.find(), "the message names the kept work directory: " + e.getMessage());
    assertTrue(java.nio.file.Files.exists(Path.of(dir.group(1), "synth.ys")), "the script is kept for inspection");
    ContentCache.deleteTree(Path.of(dir.group(1)));
  }

  @Test
  void nonPositiveClockIsRejectedNamingTheOption() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> TestDesigns.options().withClockNs(0));
    assertTrue(e.getMessage().startsWith("--clock-ns"), e.getMessage());
  }

  @Test
  void unknownActivityPortIsRejectedListingThePorts() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> PpaFlow.run(TestDesigns.mac8(), TestDesigns.options().withActivity(0.1, Map.of("nope", 0.2))));
    assertTrue(e.getMessage().contains("'nope'") && e.getMessage().contains("a, b, clk, en, rst"), e.getMessage());
  }
}
