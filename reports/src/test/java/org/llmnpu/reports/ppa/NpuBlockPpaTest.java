package org.llmnpu.reports.ppa;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;
import org.llmnpu.hdl.emit.Verilog;
import org.llmnpu.hdl.gen.BlockGenerator;
import org.llmnpu.hdl.gen.BlockRegistry;
import org.llmnpu.hdl.gen.Params;
import org.llmnpu.reports.TestDesigns;
import org.llmnpu.reports.energy.CalibrationCheck;
import org.llmnpu.rtl.npu.Npu;

/**
 * The whole NPU through the PPA flow in the tests' smallest configuration ({@link TestDesigns#tinyNpu}: 4×4
 * array, 2 KiB scratchpad, 1 DSP lane, no PPU; memories black-boxed as SRAM macros): Yosys synthesis, OpenSTA
 * timing and power, the JSON report. Then the energy calibration ({@link CalibrationCheck}), whose NPU is the same
 * Verilog: it runs here, after the PPA, so that it finds the synthesis in the cache. As a class of its own it
 * waited in one test fork for the synthesis the other fork was running (about 4 minutes of an idle core).
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class NpuBlockPpaTest {
  static final String BLOCK = "npu";

  @TempDir
  Path tmp;

  @Test
  @Order(1)
  void theNpuHasAreaACriticalPathAndJsonNumbers() throws Exception {
    BlockGenerator npu = BlockRegistry.find(BLOCK);
    String generated = Verilog.emit(npu.build(Params.resolve(npu, TestDesigns.tinyNpuParams()))).files().toString();
    assertEquals(Verilog.emit(new Npu(TestDesigns.tinyNpu())).files().toString(), generated,
        "the generator's parameters give the calibration's NPU");
    RegisteredBlocksTest.checkBlock(npu, TestDesigns.tinyNpuParams(), tmp);
  }

  @Test
  @Order(2)
  void theEnergyCalibrationGivesAPlausibleTable() throws Exception {
    CalibrationCheck.smallBlocksGiveAPlausibleTable();
  }
}
