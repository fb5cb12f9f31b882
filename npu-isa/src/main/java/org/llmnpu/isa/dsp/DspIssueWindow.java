package org.llmnpu.isa.dsp;

import java.util.Arrays;
import java.util.List;

/**
 * The instructions in execute stages 1..N−1 of a DSP with N execute stages ({@link DspPipeline}),
 * as the interlock sees them: {@link #issue} returns the stall cycles of the next instruction and
 * moves the window on (bubbles for the stalls, then the instruction). The RTL's interlock makes the
 * same decision from the same fields, so counts from this window are the RTL's cycle counts.
 */
public final class DspIssueWindow {
  private final DspPipeline pipeline;
  /** slots[0] is execute 1 (the previous issue slot); null is a bubble. */
  private final DspInstruction[] slots;

  public DspIssueWindow(DspPipeline pipeline) {
    this.pipeline = pipeline;
    slots = new DspInstruction[pipeline.executeStages() - 1];
  }

  /** Stall cycles {@code next} would wait at issue now (0 .. N−1). */
  public int stallsOf(DspInstruction next) {
    for (int j = 0; j < slots.length; j++) {
      if (DspPipeline.waitsFor(slots[j], next)) {
        return pipeline.executeStages() - 1 - j;
      }
    }
    return 0;
  }

  /** Issues {@code next}: returns its stall cycles and records the bubbles and the instruction. */
  public int issue(DspInstruction next) {
    int stalls = stallsOf(next);
    for (int s = 0; s < stalls; s++) {
      shift(null);
    }
    shift(next);
    return stalls;
  }

  private void shift(DspInstruction in) {
    if (slots.length == 0) {
      return;
    }
    System.arraycopy(slots, 0, slots, 1, slots.length - 1);
    slots[0] = in;
  }

  /** The window's contents (execute 1 first), a key for the loop-period search of {@link DspProgram}. */
  List<DspInstruction> state() {
    return Arrays.asList(slots.clone());
  }
}
