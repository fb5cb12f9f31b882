package org.llmnpu.cosim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.llmnpu.isa.Disassembler;
import org.llmnpu.isa.ErrorCause;
import org.llmnpu.isa.IsaSimulator;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.isa.Program;
import org.llmnpu.numerics.requant.QuantizedMultiplier;

/**
 * Programs that must halt with an error, run on the RTL against the golden ISA simulator: each case's program
 * (a {@link Program.Builder} to which {@code halt} is added) is placed at address 0 of a copy of one memory image;
 * the golden's and the RTL's error cause must be the case's, the RTL's failing command the case's index, and every
 * counter equal ({@link RandomProgramCosimTest#mismatches}).
 */
final class ProgramErrorCases {
  private ProgramErrorCases() {
  }

  /** A zero image of {@code p}'s memory with a channel record for each PPM channel at 0x8400 (bias j, scale 0.01). */
  static byte[] ppmRecordsImage(MachineParams p) {
    byte[] image = new byte[(int) p.extMemBytes()];
    for (int j = 0; j < p.ppmChannels(); j++) {
      System.arraycopy(IsaSimulator.ppmRecord(j, QuantizedMultiplier.fromScale(0.01), 1), 0, image, 0x8400 + 16 * j, 16);
    }
    return image;
  }

  /**
   * Asserts a run that must succeed: no golden error, the RTL's status the golden's, the same memory, every counter
   * equal and the RTL's cycles the cycle model's ({@code what} names the program in the messages).
   */
  static void assertExact(ProgramCosim.Outcome o, String what) {
    assertEquals(ErrorCause.NONE, o.golden().error(), what);
    assertTrue(o.statusMatches(), what + "status " + o.rtl().error() + " vs golden " + o.golden().error());
    assertTrue(o.bitExact(), what + "first differing byte at 0x" + Long.toHexString(o.firstDifference()));
    assertEquals(Map.of(), RandomProgramCosimTest.mismatches(o), what);
    assertEquals(o.modelCycles(), o.rtlCycles(), what);
  }

  /**
   * Asserts each case of {@code cases}, rows of {@code {Program.Builder, ErrorCause, Integer command index}}.
   *
   * @param rtl   the NPU the programs run on
   * @param image the memory image each program is placed into (copied per case)
   */
  static void assertEachHaltsWithItsError(NpuRtl rtl, byte[] image, Object[][] cases) {
    for (Object[] c : cases) {
      Program prog = ((Program.Builder) c[0]).halt().build();
      ErrorCause cause = (ErrorCause) c[1];
      ProgramCosim.Outcome o = ProgramCosim.run(rtl, RandomPrograms.place(image.clone(), prog, 0), 0);
      String what = Disassembler.disassemble(prog);
      assertEquals(cause, o.golden().error(), what);
      assertEquals(cause, o.rtl().error(), what);
      assertEquals((int) c[2], o.rtl().errorCommand(), what);
      assertEquals(Map.of(), RandomProgramCosimTest.mismatches(o), what);
    }
  }
}
