package org.llmnpu.reports.energy;

/**
 * What the energy model charges for, in the style of Accelergy's action tables: each action
 * has an energy per occurrence (pJ) and the co-simulation counts occurrences. Idle cycles
 * (clock tree and leakage of a block that is on but does nothing) are charged per cycle.
 */
public enum EnergyAction {
  MAC("mac-array", "MAC, dense array", "per multiply-accumulate executed"),
  MAC_2_4("mac-array", "MAC, 2:4 array", "per multiply-accumulate executed (each stands for 2 dense-equivalent MACs)"),
  MAC_IDLE("mac-array", "GEMM engine idle", "per cycle on but not computing (clock, leakage)"),
  PSUM_WRITEBACK("mac-array", "psum write-back", "per accumulator element written back to the psum memory"),
  PIM_COLUMN("pim-macro", "PiM column operation", "per row of a column operation (one input vector through one "
      + "column: its cells' products, adder tree and shift-add); an R-row column operation costs R times this"),
  PPM_ELEMENT("ppm", "PPM element", "per output element: bias, requantization, clamp (without the PPU)"),
  PPU_LOOKUP("ppm", "PPU table nonlinearity", "per element through the PPU (segment search, Horner steps), above "
      + "the PPM element"),
  DSP_FP16("vector-dsp", "DSP FP16 arithmetic", "per lane per instruction (ADD16, SUB16, MUL16, MIN16, MAX16)"),
  DSP_FP32("vector-dsp", "DSP FP32 arithmetic", "per lane per instruction (ADD32, SUB32, MUL32)"),
  DSP_CONVERT("vector-dsp", "DSP conversion", "per lane per instruction (WIDEN, NARROW, TOINT, FROMINT, SCALB16)"),
  DSP_MEMORY("vector-dsp", "DSP buffer access", "per lane per instruction (LD, ST)"),
  DSP_IDLE("vector-dsp", "Vector DSP idle", "per cycle on but not running (clock, leakage)"),
  IDLE_FLIP_FLOP("npu", "idle, per flip-flop", "per flip-flop per cycle (clock and leakage of a design that holds "
      + "still); the NPU is charged its flip-flops on every cycle"),
  NPU_COMMAND("npu", "command fetch and decode", "per command the NPU fetches and decodes (command words from "
      + "external memory, queue, decode, dispatch)"),
  NPU_DMA_BYTE("npu", "DMA data path", "per byte a load or store moves between external memory and the scratchpad "
      + "(DMA engine, memory port and its registers; the scratchpad side is NPU_SPAD_BYTE)"),
  NPU_SPAD_BYTE("npu", "scratchpad port", "per byte of a scratchpad line read or written by any unit (address and "
      + "data muxing, bank select, the units' line registers and operand-load ports; the SRAM macro is separate)"),
  SRAM_READ_BIT("sram", "on-chip SRAM read", "per bit read (per macro geometry from the SRAM model)"),
  SRAM_WRITE_BIT("sram", "on-chip SRAM write", "per bit written (per macro geometry from the SRAM model)"),
  DRAM_BYTE("dram", "external memory", "per byte moved to or from external memory");

  public final String block;
  public final String title;
  public final String unit;

  EnergyAction(String block, String title, String unit) {
    this.block = block;
    this.title = title;
    this.unit = unit;
  }
}
