package org.llmnpu.rtl.mac;

import org.llmnpu.hdl.ToolsForTests;
import org.llmnpu.verilator.SimModes;

import org.llmnpu.hdl.emit.Verilog;
import org.llmnpu.hdl.sim.Simulator;
import org.llmnpu.verilator.SimOptions;
import org.llmnpu.verilator.Simulators;

/**
 * Local Verilator for the MAC tests. In CI ({@code CI=true}) a missing toolchain fails the test;
 * elsewhere the test is skipped with the command that installs it.
 */
final class MacSim {
  private MacSim() {
  }

  static SimOptions options() {
    return SimModes.local();
  }

  /** Builds (or reuses from the cache) and starts a model of the engine, reset for 2 cycles. */
  static Simulator start(GemmEngineConfig config) {
    Simulator s = Simulators.start(Verilog.emit(new GemmEngine(config)), options());
    s.reset(2);
    return s;
  }

  /** Tools needed by lint/synthesis tests, with the same CI policy. */
  static void requireTool(String tool) {
    ToolsForTests.require(tool);
  }
}
