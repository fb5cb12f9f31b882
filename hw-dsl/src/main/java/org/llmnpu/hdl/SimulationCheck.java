package org.llmnpu.hdl;

import org.llmnpu.hdl.ir.Signal;

/**
 * A check that only simulation sees: at the rising edge of {@code clock}, if {@code condition} is high, the
 * simulation prints {@code message} with the instance's path and stops ({@code $stop}). Synthesis never sees it
 * (the emitter wraps it in {@code `ifndef SYNTHESIS}).
 */
public record SimulationCheck(Signal condition, Signal clock, String message) {
}
