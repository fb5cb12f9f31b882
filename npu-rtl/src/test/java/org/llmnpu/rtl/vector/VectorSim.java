package org.llmnpu.rtl.vector;

import org.llmnpu.hdl.DesignAssertions;
import org.llmnpu.hdl.ToolsForTests;
import org.llmnpu.verilator.SimModes;

import org.llmnpu.hdl.HwModule;
import org.llmnpu.hdl.sim.Simulator;

/**
 * Test helpers for the vector units: local Verilator only. In CI ({@code CI=true}) a missing
 * tool fails the test, elsewhere the test is skipped with the install hint.
 */
final class VectorSim {
  private VectorSim() {
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
}
