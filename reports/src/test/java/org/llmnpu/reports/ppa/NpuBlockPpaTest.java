package org.llmnpu.reports.ppa;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.llmnpu.hdl.gen.BlockRegistry;

/**
 * The whole NPU through the PPA flow in the small configuration of {@link RegisteredBlocksTest}
 * (4×4 array, 4 KiB scratchpad, 4 DSP lanes, PPU on; memories black-boxed as SRAM macros): Yosys
 * synthesis, OpenSTA timing and power, the JSON report. About five minutes of synthesis, in a class
 * of its own so that it runs beside the other blocks.
 */
class NpuBlockPpaTest {
  static final String BLOCK = "npu";

  @TempDir
  Path tmp;

  @Test
  void theNpuHasAreaACriticalPathAndJsonNumbers() throws Exception {
    RegisteredBlocksTest.checkBlock(BlockRegistry.find(BLOCK), tmp);
  }
}
