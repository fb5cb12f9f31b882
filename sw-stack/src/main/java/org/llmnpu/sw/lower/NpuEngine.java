package org.llmnpu.sw.lower;

import org.llmnpu.isa.ErrorCause;
import org.llmnpu.isa.IsaSimulator;
import org.llmnpu.isa.MachineParams;

/**
 * What runs an NPU program on a memory image: the golden ISA simulator ({@link #GOLDEN}) or, in
 * {@code cosim}, the generated RTL.
 */
@FunctionalInterface
public interface NpuEngine {
  /**
   * One run.
   *
   * @param memory       the memory image afterwards
   * @param counters     counter values by {@code Counter.ordinal()}
   * @param error        {@link ErrorCause#NONE} when the program reached halt
   * @param errorCommand the failing command's index
   */
  record Run(byte[] memory, long[] counters, ErrorCause error, int errorCommand) {
  }

  /**
   * Runs the program at {@code programAddress} of {@code image}; {@code label} names the step (for
   * messages).
   */
  Run run(MachineParams machine, byte[] image, long programAddress, String label);

  /**
   * The golden ISA simulator on an NPU whose memories without reset (scratchpad, DSP buffer, registers and program
   * memory, PPM parameter banks) start with values drawn from {@code seed} ({@code IsaSimulator.runOnStaleState}): a
   * lowering whose runs here differ from {@link #GOLDEN}'s reads state its program never wrote.
   */
  static NpuEngine goldenOnStaleState(long seed) {
    return (machine, image, programAddress, label) -> {
      IsaSimulator.Result r = IsaSimulator.runOnStaleState(machine, org.llmnpu.isa.EngineTiming.SYSTOLIC, image,
          programAddress, seed);
      return new Run(r.memory(), r.counters(), r.error(), r.errorCommand());
    };
  }

  /** The golden ISA simulator. */
  NpuEngine GOLDEN = (machine, image, programAddress, label) -> {
    IsaSimulator.Result r = IsaSimulator.run(machine, image, programAddress);
    return new Run(r.memory(), r.counters(), r.error(), r.errorCommand());
  };
}
