package org.llmnpu.cosim.decoder;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.llmnpu.cosim.report.NpuReportPipeline;
import org.llmnpu.hdl.emit.VerilogDesign;
import org.llmnpu.hdl.gen.BlockRegistry;
import org.llmnpu.hdl.tools.ExternalTool;
import org.llmnpu.reports.ppa.BlockDesigns;
import org.llmnpu.reports.ppa.CachedTiming;
import org.llmnpu.reports.ppa.ContentCache;
import org.llmnpu.reports.ppa.PpaOptions;
import org.llmnpu.reports.ppa.TimingResult;
import org.llmnpu.rtl.npu.NpuConfig;

/**
 * The decoder's clock: this NPU's Fmax when a PPA result of exactly this NPU is cached (written here into a
 * temporary cache, as {@code report ppa npu} would leave it), at the target clock first; else the assumed clock,
 * said so with the command that measures it; a given clock wins.
 */
class DecoderClockTest {
  @TempDir
  Path dir;

  @BeforeEach
  void tools() {
    boolean present = ExternalTool.find("yosys").isPresent() && ExternalTool.find("sta").isPresent();
    if (!present && "true".equals(System.getenv("CI"))) {
      throw new AssertionError("CI needs yosys and sta");
    }
    assumeTrue(present, "yosys/sta not installed (they key the PPA cache)");
  }

  /** Leaves a timing of {@code npu}'s Verilog at {@code clockNs} in {@code cache}, as a PPA run does. */
  private static void cachePpa(ContentCache cache, NpuConfig npu, double clockNs, double fmaxMhz) {
    VerilogDesign design = BlockDesigns.of(BlockRegistry.find("npu")).design(NpuReportPipeline.generatorParams(npu));
    double delay = 1000 / fmaxMhz;
    CachedTiming.put(design, PpaOptions.defaults().withCache(cache).withClockNs(clockNs), new TimingResult(clockNs,
        "clk", "register a", "register b", 20, delay, clockNs - delay, delay, fmaxMhz));
  }

  @Test
  void aCachedPpaResultOfThisNpuGivesItsFmax() {
    ContentCache cache = new ContentCache(dir);
    cachePpa(cache, NpuConfig.tiny(), 5.75, 182.8);
    DecoderClock c = DecoderClock.of(NpuConfig.tiny(), cache);
    assertEquals(182.8, c.mhz(), 1e-9);
    assertEquals(DecoderClock.Source.PPA_CACHE, c.source());
    assertEquals("this NPU's Fmax: cached PPA result at 5.75 ns", c.basis());
  }

  @Test
  void theTargetClocksResultWinsOverTheFiveNanosecondOne() {
    ContentCache cache = new ContentCache(dir);
    cachePpa(cache, NpuConfig.tiny(), 5, 150.0);
    assertEquals("this NPU's Fmax: cached PPA result at 5 ns", DecoderClock.of(NpuConfig.tiny(), cache).basis());
    cachePpa(cache, NpuConfig.tiny(), 5.75, 160.0);
    assertEquals(160.0, DecoderClock.of(NpuConfig.tiny(), cache).mhz(), 1e-9);
  }

  @Test
  void anotherNpusResultIsNotThisNpus() {
    ContentCache cache = new ContentCache(dir);
    cachePpa(cache, NpuConfig.tiny(), 5.75, 182.8);
    DecoderClock c = DecoderClock.of(NpuConfig.tiny().withPpu(true), cache);
    assertEquals(DecoderClock.Source.ASSUMED, c.source());
    assertEquals(DecoderClock.ASSUMED_MHZ, c.mhz(), 1e-9);
  }

  @Test
  void withoutACachedResultTheClockIsAssumedAndTheCommandToMeasureItNamed() {
    DecoderClock c = DecoderClock.of(NpuConfig.tiny(), new ContentCache(dir));
    assertEquals(DecoderClock.Source.ASSUMED, c.source());
    assertEquals(173.9, c.mhz(), 1e-9);
    assertTrue(c.basis().startsWith("assumed: no PPA result cached for this NPU; run ./npu report ppa npu -p rows=4 "),
        c.basis());
    assertTrue(c.basis().endsWith(" --clock-ns 5.75 -o DIR"), c.basis());
    assertEquals("./npu report ppa npu --clock-ns 5.75 -o DIR",
        DecoderClock.ppaCommand(NpuReportPipeline.generatorParams(NpuConfig.defaults())), "the default NPU: no -p");
  }

  @Test
  void aGivenClockIsKeptAndCheckedForRange() {
    assertEquals(new DecoderClock(200, DecoderClock.Source.GIVEN, "--clock-mhz"), DecoderClock.given(200));
    assertTrue(assertThrows(IllegalArgumentException.class, () -> DecoderClock.given(0)).getMessage()
        .startsWith("--clock-mhz"));
    assertThrows(IllegalArgumentException.class, () -> DecoderClock.given(Double.NaN));
  }
}
