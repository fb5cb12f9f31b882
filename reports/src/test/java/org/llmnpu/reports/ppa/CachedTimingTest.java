package org.llmnpu.reports.ppa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.llmnpu.reports.RequiredTools;
import org.llmnpu.reports.TestDesigns;

/**
 * A PPA run leaves its timing in the cache under the design and clock, and only that design at that clock finds it.
 */
class CachedTimingTest {
  @TempDir
  Path cache;

  @BeforeEach
  void tools() {
    RequiredTools.require("yosys", "sta");
  }

  @Test
  void aRunIsFoundByItsDesignAndClockOnly() {
    PpaOptions o = TestDesigns.options().withCache(new ContentCache(cache)).withClockNs(4);
    assertEquals(Optional.empty(), CachedTiming.find(TestDesigns.mac8(), o), "nothing before the run");
    PpaResult r = PpaFlow.run(TestDesigns.mac8(), o);
    TimingResult t = CachedTiming.find(TestDesigns.mac8(), o).orElseThrow();
    assertEquals(r.timing(), t, "the run's timing, read back field for field");
    assertTrue(t.fmaxMhz() > 10, t.toString());
    assertEquals(Optional.empty(), CachedTiming.find(TestDesigns.mac8(), o.withClockNs(5)), "another clock");
    assertEquals(Optional.empty(), CachedTiming.find(TestDesigns.fifo(), o), "another design");
    assertEquals(Optional.empty(), CachedTiming.find(TestDesigns.mac8(), o.withFlatten(true)), "another synthesis");
  }
}
