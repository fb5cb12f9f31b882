package org.llmnpu.sw.lower;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.isa.dsp.DspInstruction;
import org.llmnpu.isa.dsp.DspOp;
import org.llmnpu.isa.dsp.DspProgram;

/** The lowering's allocator of resident DSP programs on the default NPU (256 words, two words a 16-byte line). */
class DspResidencyTest {
  private static final MachineParams P = NpuTargets.defaultNpu();

  /** A program of {@code words} words whose instructions depend on {@code tag} (names do not count). */
  private static DspProgram program(String name, int tag, int words) {
    List<DspInstruction> code = new ArrayList<>();
    for (int i = 0; i < words - 1; i++) {
      code.add(new DspInstruction(DspOp.LI, 1, 0, 0, 0, false, 0, tag + i));
    }
    code.add(new DspInstruction(DspOp.HALT, 0, 0, 0, 0, false, 0, 0));
    return new DspProgram(name, code);
  }

  @Test
  void firstRunPlainRepeatResidentReloadFromTheTop() {
    DspResidency r = new DspResidency(P);
    DspProgram a = program("a", 100, 9);
    DspProgram b = program("b", 200, 5);
    assertFalse(r.seen(a));
    r.plainRun(a);
    assertEquals(0, r.entryOf(a), "a plain run leaves the words at 0");
    assertEquals(0, r.entryOf(program("a at another token", 100, 9)), "the same instructions under another name");
    r.plainRun(b);
    assertEquals(-1, r.entryOf(a), "b overwrote a's first words");
    assertTrue(r.seen(a));
    int at = r.place(a);
    assertEquals(246, at, "from the top (256 − 9, rounded down to a line's two words)");
    assertEquals(246, r.entryOf(a));
    r.plainRun(program("c", 300, 40));
    assertEquals(246, r.entryOf(a), "a plain run from 0 leaves the top alone");
    assertEquals(-1, r.entryOf(b));
    r.clear();
    assertEquals(-1, r.entryOf(a));
    assertFalse(r.seen(a));
  }

  @Test
  void theTopRegionStartsAgainWhenUsedUpAndTooLongProgramsAreRefused() {
    DspResidency r = new DspResidency(P);
    DspProgram big = program("big", 1, 200);
    DspProgram other = program("other", 2, 100);
    assertEquals(56, r.place(big));
    assertEquals(56, r.entryOf(big));
    assertEquals(156, r.place(other), "256 − 100: it does not fit below big, so from the top again");
    assertEquals(-1, r.entryOf(big), "overwritten");
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> r.place(program("huge", 3, 257)));
    assertTrue(e.getMessage().contains("huge") && e.getMessage().contains("256"), e.getMessage());
  }

  /**
   * The lowering's policy ({@link DspResidency#use}): resident while intact, a plain run otherwise (never a
   * {@code dspld}); with reload, a repeat after being overwritten is loaded by a {@code dspld} from the top. The walk's
   * identities: equal identities are one program, whatever object carries them.
   */
  @Test
  void useRunsResidentWhileIntactAndReloadsOnlyWhenAsked() {
    DspProgram a = program("a", 100, 9);
    DspProgram b = program("b", 200, 5);
    DspResidency lowering = new DspResidency(P);
    assertEquals(DspResidency.Use.PLAIN, lowering.use(a));
    assertEquals(new DspResidency.Use(false, false, 0), lowering.use(program("a again", 100, 9)));
    assertEquals(DspResidency.Use.PLAIN, lowering.use(b));
    assertEquals(DspResidency.Use.PLAIN, lowering.use(a), "overwritten by b: plain again, no dspld");
    DspResidency reload = new DspResidency(P, true);
    reload.use(a);
    reload.use(b);
    assertEquals(new DspResidency.Use(false, true, 246), reload.use(a), "a dspld from the top, then resident");
    assertEquals(new DspResidency.Use(false, false, 246), reload.use(a));
    DspResidency walk = new DspResidency(P);
    assertEquals(DspResidency.Use.PLAIN, walk.use(List.of("x", 1), a));
    assertEquals(new DspResidency.Use(false, false, 0), walk.use(List.of("x", 1), a));
    assertEquals(DspResidency.Use.PLAIN, walk.use(new Object(), a), "another identity: another program");
  }
}
