package org.llmnpu.rtl.npu;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.llmnpu.hdl.DesignAssertions;
import org.llmnpu.hdl.ToolsForTests;
import org.llmnpu.hdl.emit.Verilog;
import org.llmnpu.hdl.emit.VerilogDesign;
import org.llmnpu.hdl.tools.DesignChecks;

/**
 * The wide PPM ({@code ppmWide}: {@code rows} lanes) is -Wall clean: the units it changes (the back-end's drain, the
 * PPM, the controller around them) on 4-, 16- and 64-byte lines (edge-64's shape: 64 lanes, N up to 256, the gate,
 * kept X), with and without the gate and the PPU, and the whole small NPU with it.
 */
class WidePpmLintTest {
  @TempDir
  Path dir;

  private static final List<NpuConfig> CONFIGS = List.of(
      NpuConfig.small().toBuilder().ppmWide(true).build(),
      NpuConfig.small().toBuilder().ppmWide(true).ppu(false).build(),
      NpuConfig.defaults().toBuilder().ppmGate(true).ppmWide(true).xKeep(true).build(),
      NpuConfig.defaults().toBuilder().rows(64).maxM(128).mTile(128).maxN(256).spadKiB(1024).spadBanks(16)
          .dspLanes(64).ppmGate(true).ppmWide(true).xKeep(true).build());

  @Test
  void theUnitsItChangesAreLintClean() {
    for (NpuConfig c : CONFIGS) {
      for (var unit : List.of(new NpuBackEnd(c), NpuPpm.module(c), new NpuController(c))) {
        DesignAssertions.assertLintClean(unit, false);
      }
    }
  }

  @Test
  void aSmallNpuWithTheWideGatedPpmIsLintClean() {
    ToolsForTests.require("verilator");
    VerilogDesign d = Verilog.emit(new Npu(NpuConfig.small().toBuilder().ppmGate(true).ppmWide(true).build()));
    d.writeTo(dir);
    assertEquals(List.of(), DesignChecks.lint(d, dir), "verilator -Wall findings");
  }
}
