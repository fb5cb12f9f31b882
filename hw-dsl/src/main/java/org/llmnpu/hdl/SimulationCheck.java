package org.llmnpu.hdl;

import org.llmnpu.hdl.ir.Signal;

/**
 * A check that only simulation sees: at the rising edge of {@code clock}, if {@code condition} is high, the
 * simulation prints {@code message} with the instance's path and stops ({@code $stop}). Synthesis never sees it
 * (the emitter wraps it in {@code `ifndef SYNTHESIS}).
 */
public record SimulationCheck(Signal condition, Signal clock, String message, java.util.List<Signal> shown) {
  /**
   * @param shown signals whose values the message prints (hexadecimal, in order, with their names), e.g. a
   *              register bank before and after; may be empty
   */
  public SimulationCheck {
    shown = java.util.List.copyOf(shown);
  }
}
