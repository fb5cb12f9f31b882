package org.llmnpu.rtl.mac;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.llmnpu.hdl.SynthesisProbe;
import org.llmnpu.hdl.SynthesisProbe.Multiplier;
import org.llmnpu.hdl.ToolsForTests;
import org.llmnpu.hdl.emit.Verilog;
import org.llmnpu.hdl.emit.VerilogDesign;

/**
 * The PE's multiply stays an INT8 x INT8 signed multiplier in Yosys (before gate mapping): one per
 * PE, two in the late-swap PE, never one widened to the accumulator or to 16x16 by sign bits written
 * out, which cost the generated PE array 21 % area against hand-written Verilog.
 */
class WsPeMultiplierTest {
  @TempDir
  Path dir;

  @ParameterizedTest
  @EnumSource(WeightSparsity.class)
  void everyPeProductIsOneSignedEightByEightMultiplier(WeightSparsity sparsity) {
    ToolsForTests.require("yosys");
    Multiplier int8 = new Multiplier(8, true, 8, true, 16);
    WsPe pe = new WsPe(sparsity, 19);
    VerilogDesign d = Verilog.emit(pe);
    assertEquals(List.of(int8), SynthesisProbe.multipliers(d, d.top(), dir.resolve("pe")), String.join("\n",
        d.files().values()));
    WsPe late = new WsPe(sparsity, 19, true);
    VerilogDesign l = Verilog.emit(late);
    assertEquals(Collections.nCopies(2, int8), SynthesisProbe.multipliers(l, l.top(), dir.resolve("late")),
        String.join("\n", l.files().values()));
  }
}
