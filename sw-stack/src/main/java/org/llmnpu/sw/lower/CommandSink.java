package org.llmnpu.sw.lower;

import org.llmnpu.isa.Command;
import org.llmnpu.isa.dsp.DspProgram;
import org.llmnpu.isa.dsp.DspRunParameters;

/**
 * Where the lowering's commands go, in program order: a program builder ({@link CommandStream#program}), or
 * {@link CommandCostSink}, which times each command with {@code npu-isa}'s cycle model. Both consume the same
 * stream, so a command the lowering learns to emit is costed without a second description of the lowering.
 */
interface CommandSink {
  /** The next command (every kind but {@code dsprun}). */
  void command(Command c);

  /** A {@code dsprun} of {@code program}, placed in external memory at {@code address}. */
  void dspRun(long address, DspProgram program);

  /** A {@code dspld} of {@code program}, placed in external memory at {@code address}, into program word {@code at}. */
  void dspLoad(long address, DspProgram program, long at);

  /** A resident {@code dsprun} of {@code program}, in the program memory from word {@code entry}. */
  void dspRunResident(DspProgram program, long entry);

  /** A resident {@code dsprun} of {@code run}, the programs {@code parts} joined ({@link DspChain}), from {@code entry}. */
  default void dspRunResident(DspProgram run, java.util.List<DspProgram> parts, long entry) {
    dspRunResident(run, entry);
  }

  /** A {@code dsprun} of {@code run}, the programs {@code parts} joined ({@link DspChain}), at {@code address}. */
  default void dspRun(long address, DspProgram run, java.util.List<DspProgram> parts) {
    dspRun(address, run);
  }

  /**
   * A resident {@code dsprun} of {@code run}, a program rewritten for run parameters ({@link DspRunParameterizer}) of
   * the programs {@code parts} (as the lowering compiled them, joined: {@link DspChain}), handing it {@code params}.
   */
  default void dspRunResident(DspProgram run, java.util.List<DspProgram> parts, long entry, DspRunParameters params) {
    dspRunResident(run, parts, entry);
  }

  /** A loading {@code dsprun} of {@code run} rewritten for run parameters, as above, at {@code address}. */
  default void dspRun(long address, DspProgram run, java.util.List<DspProgram> parts, DspRunParameters params) {
    dspRun(address, run, parts);
  }

  /** The commands from here are token block {@code lane}'s (0; 1: a second block in flight, {@link BlockLane}). */
  default void lane(int lane) {
  }

  /** The commands of layer {@code layer} of a block start here. */
  default void layerStart(int layer) {
  }

  /** The commands of layer {@code layer} of a block end here. */
  default void layerEnd(int layer) {
  }
}
