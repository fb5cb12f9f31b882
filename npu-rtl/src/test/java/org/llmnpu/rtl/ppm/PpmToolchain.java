package org.llmnpu.rtl.ppm;

import org.llmnpu.hdl.ToolsForTests;
import org.llmnpu.verilator.SimModes;

import org.llmnpu.verilator.SimOptions;

/**
 * Tools the PPM tests need. In CI ({@code CI=true}) a missing tool fails the test; elsewhere the
 * test is skipped with the command that installs it. Simulation runs in local mode only.
 */
final class PpmToolchain {
  private PpmToolchain() {
  }

  static void require(String tool) {
    ToolsForTests.require(tool);
  }

  /** Options for a local Verilator model (verilator, g++ and make on the PATH). */
  static SimOptions localSimulation() {
    return SimModes.local();
  }
}
