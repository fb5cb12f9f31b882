package org.llmnpu.isa;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@link IsaSimulator#runOnStaleState}: the memories without reset start with a seed's values. A program that reads
 * only what it wrote gives the zero-started golden's result; one that stores scratchpad bytes or DSP elements it never
 * wrote gives another.
 */
class StaleStateTest {
  private static final MachineParams P = DspCommandTest.P;
  private static final int OUT = 0x40000;

  private static byte[] image(Program program) {
    byte[] mem = new byte[(int) P.extMemBytes()];
    new Random(3).nextBytes(mem);
    Arrays.fill(mem, 0, 0x1000, (byte) 0);
    Arrays.fill(mem, OUT, OUT + 0x1000, (byte) 0);
    System.arraycopy(program.bytes(), 0, mem, 0, program.bytes().length);
    return mem;
  }

  private static byte[] out(IsaSimulator.Result r) {
    assertEquals(ErrorCause.NONE, r.error());
    return Arrays.copyOfRange(r.memory(), OUT, OUT + 0x1000);
  }

  @Test
  void aProgramThatReadsWhatItWroteGivesTheGoldensResultOnEveryFill() {
    byte[] mem = image(Program.builder()
        .load(0x8000, 64, 0, 64, 64, 4)
        .dspIn(0, 64, 32, 4, 0, Command.FMT_FP16, 0)
        .dspOut(0x1000, 64, 32, 4, 0, Command.FMT_FP16)
        .store(OUT, 64, 0x1000, 64, 64, 4)
        .halt().build());
    byte[] clean = out(IsaSimulator.run(P, mem, 0));
    for (long seed = 1; seed <= 3; seed++) {
      IsaSimulator.Result r = IsaSimulator.runOnStaleState(P, EngineTiming.SYSTOLIC, mem, 0, seed);
      assertArrayEquals(clean, out(r), "fill " + seed);
      assertArrayEquals(IsaSimulator.run(P, mem, 0).counters(), r.counters(), "fill " + seed);
    }
  }

  @Test
  void storingScratchpadBytesNoCommandWroteDependsOnTheFill() {
    byte[] mem = image(Program.builder().store(OUT, 64, 0x2000, 64, 64, 2).halt().build());
    byte[] clean = out(IsaSimulator.run(P, mem, 0));
    assertArrayEquals(new byte[0x1000], clean, "the golden's scratchpad starts with zeros");
    assertFalse(Arrays.equals(clean, out(IsaSimulator.runOnStaleState(P, EngineTiming.SYSTOLIC, mem, 0, 1))));
  }

  @Test
  void copyingOutDspElementsNoCommandWroteDependsOnTheFill() {
    byte[] mem = image(Program.builder()
        .load(0x8000, 64, 0, 64, 64, 1)
        .dspIn(0, 64, 16, 1, 0, Command.FMT_FP16, 0)
        .dspOut(0x1000, 64, 32, 1, 0, Command.FMT_FP16)  // elements 16..31 were not copied in
        .store(OUT, 64, 0x1000, 64, 64, 1)
        .halt().build());
    byte[] clean = out(IsaSimulator.run(P, mem, 0));
    byte[] stale = out(IsaSimulator.runOnStaleState(P, EngineTiming.SYSTOLIC, mem, 0, 1));
    assertArrayEquals(Arrays.copyOf(clean, 32), Arrays.copyOf(stale, 32), "the elements copied in");
    assertFalse(Arrays.equals(clean, stale), "the 16 elements never written");
  }
}
