package org.llmnpu.reports.ppa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.llmnpu.hdl.emit.Verilog;
import org.llmnpu.hdl.gen.BlockGenerator;
import org.llmnpu.hdl.gen.BlockRegistry;
import org.llmnpu.hdl.gen.Params;
import org.llmnpu.reports.TestDesigns;
import org.llmnpu.rtl.TargetClock;
import org.llmnpu.rtl.npu.Npu;

/**
 * The whole NPU through the PPA flow in the tests' smallest configuration ({@link TestDesigns#tinyNpu}: 4×4
 * array, 2 KiB scratchpad, 1 DSP lane, no PPU; memories black-boxed as SRAM macros): Yosys synthesis, OpenSTA
 * timing and power, the JSON report; its critical delay is within the target clock ({@link TargetClock}). The energy calibration's NPU ({@code CalibrationTest}) is the same
 * Verilog, so the two share one synthesis through the PPA cache (whichever fork comes first synthesizes it; the
 * other waits for it).
 */
class NpuBlockPpaTest {
  static final String BLOCK = "npu";

  @TempDir
  Path tmp;

  @Test
  void theNpuHasAreaACriticalPathAndJsonNumbers() throws Exception {
    BlockGenerator npu = BlockRegistry.find(BLOCK);
    String generated = Verilog.emit(npu.build(Params.resolve(npu, TestDesigns.tinyNpuParams()))).files().toString();
    assertEquals(Verilog.emit(new Npu(TestDesigns.tinyNpu())).files().toString(), generated,
        "the generator's parameters give the calibration's NPU");
    PpaResult r = RegisteredBlocksTest.checkBlock(npu, TestDesigns.tinyNpuParams(), tmp);
    // the timing regression of the NPU top (TargetClockRegressionTest covers the blocks on their own)
    assertTrue(r.timing().criticalDelayNs() <= TargetClock.PERIOD_NS, "the tiny NPU meets the "
        + TargetClock.PERIOD_NS + " ns target clock: " + r.timing().criticalDelayNs() + " ns, "
        + r.timing().startpoint() + " -> " + r.timing().endpoint());
  }
}
