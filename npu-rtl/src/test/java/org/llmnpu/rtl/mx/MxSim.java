package org.llmnpu.rtl.mx;

import org.llmnpu.hdl.DesignAssertions;
import org.llmnpu.hdl.ToolsForTests;
import org.llmnpu.verilator.SimModes;

import org.llmnpu.hdl.HwModule;
import org.llmnpu.hdl.sim.Simulator;
import org.llmnpu.numerics.fp.Rounding;
import org.llmnpu.numerics.mx.MxElementType;

/**
 * Test helpers: local Verilator only. In CI ({@code CI=true}) a missing tool fails the test,
 * elsewhere the test is skipped with the install hint.
 */
final class MxSim {
  private MxSim() {
  }

  static void require(String tool) {
    ToolsForTests.require(tool);
  }

  /** A local Verilator model of the module. */
  static Simulator start(HwModule top) {
    return SimModes.startLocal(top);
  }

  /** verilator -Wall clean; with {@code synthesize}, also a Yosys synthesis with cells. */
  static void assertLintClean(HwModule top, boolean synthesize) {
    DesignAssertions.assertLintClean(top, synthesize);
  }

  /** The golden element type of an RTL format. */
  static MxElementType golden(MxFormat f) {
    return MxElementType.valueOf(f.name());
  }

  static Rounding golden(RoundMode r) {
    return Rounding.valueOf(r.name());
  }

  /** Scales that cover both ends of E8M0, the middle, and the NaN scale. */
  static final int[] SCALES = {0, 1, 2, 3, 5, 8, 10, 12, 14, 16, 18, 20, 22, 24, 100, 110, 112, 113, 120, 126, 127,
      128, 130, 135, 140, 141, 142, 143, 144, 150, 200, 240, 250, 251, 252, 253, 254, 255};
}
