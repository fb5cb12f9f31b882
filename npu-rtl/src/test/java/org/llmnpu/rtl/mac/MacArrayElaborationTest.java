package org.llmnpu.rtl.mac;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.llmnpu.hdl.emit.Verilog;
import org.llmnpu.hdl.emit.VerilogDesign;

/**
 * The array elaborates and emits from 8×8 to 64×64 (dense, 2:4; 4:8 at 32×32), with one PE definition for every
 * position but the first (row 0, column 0), whose late-swap variant ({@code WsPe} {@code lateSwap}) is a second one.
 */
class MacArrayElaborationTest {

  @ParameterizedTest(name = "{0}x{0} {1}")
  @CsvSource({"8, none", "16, none", "32, none", "64, none", "64, s2_4", "32, s4_8"})
  void arrayElaboratesWithOneDeduplicatedPe(int size, String sparsity) {
    MacArrayConfig a = new MacArrayConfig(size, size, 32, 16, 0, WeightSparsity.parse(sparsity));
    VerilogDesign d = Verilog.emit(new MacArray(a, 16));
    long peModules = d.files().keySet().stream().filter(f -> f.startsWith("WsPe_")).count();
    assertEquals(2, peModules, "one PE module for all " + size * size + " positions but the first, and its own");
    assertEquals(1, d.files().keySet().stream().filter(f -> f.startsWith("WsPe_") && f.contains("_late")).count(),
        "the first PE's late-swap module");
    String top = d.files().get(d.top() + ".v");
    int instances = top.split("WsPe_", -1).length - 1;
    assertEquals(size * size, instances, "PE instances in the top module");
    assertTrue(d.files().keySet().stream().anyMatch(f -> f.startsWith("PeripheryAcc_")), "periphery accumulators");
  }
}
