package org.llmnpu.rtl.ppm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.BitSet;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.llmnpu.hdl.emit.Verilog;
import org.llmnpu.hdl.emit.VerilogDesign;
import org.llmnpu.hdl.gen.BlockGenerator;
import org.llmnpu.hdl.gen.BlockRegistry;
import org.llmnpu.hdl.gen.ParamException;
import org.llmnpu.hdl.gen.Params;

/** Parameter validation, the C-LUT address map and elaboration of the registered generator. */
class PpmConfigTest {

  @Test
  void invalidParametersAreRejectedNamingTheParameterAndItsRange() {
    assertMessage("cols must be in 1..64, got 65", () -> PpmConfig.of(65, 8, PpmConfig.Activation.NONE));
    assertMessage("outBits must be 8 or 4, got 6", () -> PpmConfig.of(8, 6, PpmConfig.Activation.NONE));
    assertMessage("outBits must be 8 with activation ppu", () -> PpmConfig.of(8, 4, PpmConfig.Activation.PPU));
    assertMessage("segments must be in 1..64, got 0", () -> new PpmConfig(8, 8, PpmConfig.Activation.PPU, 0, 2, 16));
    assertMessage("degree must be in 0..4, got 5", () -> new PpmConfig(8, 8, PpmConfig.Activation.PPU, 16, 5, 16));
    assertMessage("coeffBits must be in 8..24, got 25", () -> new PpmConfig(8, 8, PpmConfig.Activation.PPU, 16, 2, 25));
    assertMessage("segments must be >= 2 when degree is 0", () -> new PpmConfig(8, 8, PpmConfig.Activation.PPU, 1, 0, 16));
    assertMessage("requantStages must be one of 6, 7, 8, got 5",
        () -> PpmConfig.of(8, 8, PpmConfig.Activation.NONE).withStages(5, 5));
    assertMessage("hornerStages must be one of 3, 4, 5, got 6",
        () -> PpmConfig.of(8, 8, PpmConfig.Activation.PPU).withStages(8, 6));
    BlockGenerator g = BlockRegistry.find("ppm");
    ParamException e = assertThrows(ParamException.class, () -> Params.resolve(g, Map.of("activation", "gelu")));
    assertTrue(e.getMessage().contains("'activation'") && e.getMessage().contains("none, relu, relu6, ppu"), e.getMessage());
    e = assertThrows(ParamException.class, () -> Params.resolve(g, Map.of("requantStages", "9")));
    assertTrue(e.getMessage().contains("'requantStages'") && e.getMessage().contains("6, 7, 8"), e.getMessage());
    e = assertThrows(ParamException.class, () -> Params.resolve(g, Map.of("hornerStages", "2")));
    assertTrue(e.getMessage().contains("'hornerStages'") && e.getMessage().contains("3, 4, 5"), e.getMessage());
  }

  @Test
  void defaultStagesKeepTheModuleNameAndOtherStagesAreNamed() {
    assertEquals("Ppm_c8_o8_ppu_s16_d2_w16", PpmConfig.of(8, 8, PpmConfig.Activation.PPU).moduleName());
    assertEquals("Ppm_c8_o8_ppu_s16_d2_w16_r7_h3",
        PpmConfig.of(8, 8, PpmConfig.Activation.PPU).withStages(7, 3).moduleName());
    assertEquals("Ppm_c8_o8_none_r6", PpmConfig.of(8, 8, PpmConfig.Activation.NONE).withStages(6, 3).moduleName());
  }

  private static void assertMessage(String expected, Runnable r) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, r::run);
    assertTrue(e.getMessage().startsWith(expected), e.getMessage());
  }

  @Test
  void lutAddressesCoverEveryEntryExactlyOnce() {
    for (PpmConfig c : new PpmConfig[] {PpmConfig.of(8, 8, PpmConfig.Activation.PPU),
        new PpmConfig(1, 8, PpmConfig.Activation.PPU, 1, 4, 8), new PpmConfig(1, 8, PpmConfig.Activation.PPU, 64, 0, 24)}) {
      BitSet used = new BitSet();
      int n = 0;
      for (int i = 0; i < c.segments() - 1; i++, n++) {
        used.set(c.lutAddressOfBoundary(i));
      }
      for (int s = 0; s < c.segments(); s++) {
        for (int k = 0; k <= c.degree(); k++, n++) {
          used.set(c.lutAddressOfCoefficient(s, k));
        }
      }
      for (int k = 0; k <= c.degree(); k++, n++) {
        used.set(c.lutAddressOfFracBits(k));
      }
      assertEquals(n, used.cardinality(), "distinct addresses");
      assertEquals(c.lutEntries(), used.length(), "dense map");
      assertTrue(c.lutEntries() <= 1 << c.lutAddressBits(), "address width");
    }
  }

  @ParameterizedTest(name = "cols={0}")
  @ValueSource(ints = {8, 16, 32, 64})
  void elaboratesFor8To64LanesWithOneLaneModuleEach(int cols) {
    BlockGenerator g = BlockRegistry.find("ppm");
    VerilogDesign d = Verilog.emit(g.build(Params.resolve(g, Map.of("cols", Integer.toString(cols)))));
    String top = d.files().get("Ppm_c" + cols + "_o8_ppu_s16_d2_w16.v");
    assertTrue(top.contains("input  wire signed [31:0] inAcc_" + (cols - 1)), "last accumulator port");
    assertTrue(top.contains("output wire signed [7:0] outData_" + (cols - 1)), "last output port");
    assertEquals(3, d.files().keySet().stream().filter(f -> f.endsWith(".v")).count(),
        "top, one requantizer and one PPU module: " + d.files().keySet());
  }
}
