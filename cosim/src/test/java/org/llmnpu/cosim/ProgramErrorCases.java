package org.llmnpu.cosim;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;
import org.llmnpu.isa.Disassembler;
import org.llmnpu.isa.ErrorCause;
import org.llmnpu.isa.Program;

/**
 * Programs that must halt with an error, run on the RTL against the golden ISA simulator: each case's program
 * (a {@link Program.Builder} to which {@code halt} is added) is placed at address 0 of a copy of one memory image;
 * the golden's and the RTL's error cause must be the case's, the RTL's failing command the case's index, and every
 * counter equal ({@link RandomProgramCosimTest#mismatches}).
 */
final class ProgramErrorCases {
  private ProgramErrorCases() {
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
