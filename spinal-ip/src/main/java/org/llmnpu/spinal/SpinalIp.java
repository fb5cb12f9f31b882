package org.llmnpu.spinal;

import org.llmnpu.hdl.ClockDomain;
import org.llmnpu.hdl.ImportedVerilog;

/**
 * The bus IP this module exports from SpinalHDL at build time (Verilog resources next to this class, written
 * by {@code ExportVerilog} in the build's process-classes phase), as hw-dsl black boxes. Each block's clock
 * and synchronous active-high reset ({@code clk}, {@code reset}) follow the parent's default domain.
 */
public final class SpinalIp {
  /** The resource name of the control-register block's Verilog. */
  public static final String NPU_CONTROL_REGS = "NpuControlRegs.v";

  private SpinalIp() {
  }

  /**
   * The NPU's AXI4-Lite control registers ({@code NpuControlRegs.scala} has the register map and latencies):
   * AXI4-Lite slave ports {@code ctrl_aw*}, {@code ctrl_w*}, {@code ctrl_b*}, {@code ctrl_ar*}, {@code ctrl_r*}
   * (8-bit addresses, 32-bit data) and the NPU side {@code io_start}, {@code io_progBase}, {@code io_progLen},
   * {@code io_busy}, {@code io_done}, {@code io_error}, {@code io_errorCause}, {@code io_counters_0..3},
   * {@code io_irq}.
   */
  public static ImportedVerilog npuControlRegs() {
    return ImportedVerilog.resource(SpinalIp.class, NPU_CONTROL_REGS).module("NpuControlRegs").clock("clk")
        .reset("reset", ClockDomain.Polarity.HIGH).build();
  }
}
