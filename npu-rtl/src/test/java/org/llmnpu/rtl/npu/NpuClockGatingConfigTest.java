package org.llmnpu.rtl.npu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.llmnpu.hdl.ClockGating;
import org.llmnpu.isa.Counter;

/** {@code clockGating}: default on, its three values from Java, YAML (quoted or not) and errors naming it. */
class NpuClockGatingConfigTest {
  @TempDir
  Path tmp;

  @Test
  void clockGatingIsOnByDefaultAndTakesItsThreeValues() {
    assertEquals(ClockGating.ON, NpuConfig.defaults().clockGatingMode());
    assertEquals("off", NpuConfig.small().withClockGating("off").clockGating());
    assertEquals(ClockGating.CHECKED, NpuConfig.small().withClockGating("Checked").clockGatingMode());
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> NpuConfig.small().withClockGating("sometimes"));
    assertEquals("clockGating must be one of on, off, checked, got 'sometimes'", e.getMessage());
  }

  @Test
  void yamlOnAndOffReadAsTheModesQuotedOrNot() throws Exception {
    Path bare = tmp.resolve("bare.yaml");
    Files.writeString(bare, "rows: 4\nclockGating: off\n");
    assertEquals("off", NpuConfig.load(bare).clockGating());
    Path quoted = tmp.resolve("quoted.yaml");
    Files.writeString(quoted, "clockGating: \"checked\"\n");
    assertEquals("checked", NpuConfig.load(quoted).clockGating());
    Path wrong = tmp.resolve("wrong.yaml");
    Files.writeString(wrong, "clockGating: fast\n");
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> NpuConfig.load(wrong));
    assertTrue(e.getMessage().contains("clockGating must be one of on, off, checked"), e.getMessage());
  }

  @Test
  void everyGateOfTheNpuHasItsEnableCounter() {
    assertEquals(Counter.GEMM_CYCLES, NpuClockGates.enableCounter("gemmEngine").orElseThrow());
    assertEquals(Counter.DSP_CYCLES, NpuClockGates.enableCounter("dspPath_dspUnit").orElseThrow());
    assertEquals(Counter.PPM_CYCLES, NpuClockGates.enableCounter("ppmPath_ppmUnit").orElseThrow());
    assertTrue(NpuClockGates.enableCounter("other").isEmpty());
    var banks = org.llmnpu.hdl.emit.Verilog.emit(new Npu(NpuConfig.small())).gatedBanks();
    assertEquals(3, banks.size());
    banks.forEach(b -> assertTrue(NpuClockGates.enableCounter(b.path()).isPresent(), b.path()));
  }
}
