package org.llmnpu.cosim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.llmnpu.isa.Command;
import org.llmnpu.isa.Counter;
import org.llmnpu.isa.ErrorCause;
import org.llmnpu.isa.Program;
import org.llmnpu.isa.dsp.DspAssembler;
import org.llmnpu.isa.dsp.DspOp;
import org.llmnpu.isa.dsp.DspProgram;
import org.llmnpu.isa.dsp.DspRunParameters;
import org.llmnpu.rtl.npu.NpuConfig;

/**
 * Resident DSP programs on the Verilated NPU against the golden and the cycle model: {@code dspld} at offsets, a
 * resident {@code dsprun} after other programs overwrote other offsets, an entry near the end that wraps, a loading
 * {@code dsprun} with an entry past its words, a resident run beside a GEMM and beside a GEMM's W stream, and the
 * range and shape errors.
 */
class ResidentDspProgramCosimTest {
  @RegisterExtension
  static final NpuRtlFixture NPU = new NpuRtlFixture(NpuConfig.small());
  private static final long PROG_A = 0x9000;
  private static final long PROG_B = 0xA000;
  private static final long PROG_C = 0xB000;

  /** Stores {@code value} (FP16 code) in rows {@code row..row+rows-1} of the buffer (all lanes), then HALT. */
  private static DspProgram fill(int value, int row, int rows) {
    DspAssembler a = new DspAssembler();
    a.emit(DspOp.SETLEN, 0, 0, 0, 0, false, 0, 1 << 20);
    a.li(3, value);
    a.loop(rows, () -> a.store(row, 3));
    return a.finish("fill" + value);
  }

  @Test
  void residentRunsAfterOtherLoadsWrapAndEntries() {
    int depth = NPU.rtl().config().machine().dsp().programDepth();
    int lanes = NPU.rtl().config().machine().dsp().lanes();
    DspProgram a = fill(0x3C00, 0, 2);
    DspProgram b = fill(0x4000, 2, 2);
    DspProgram c = fill(0x4200, 4, 2);
    int h = Math.max(1, NPU.rtl().config().machine().lineBytes() / 8);
    Program p = Program.builder()
        .dspLoad(PROG_A, a.size(), 64)                                  // a at 64
        .dspRun(PROG_B, b.size())                                       // b loaded at 0 and run
        .dspLoad(PROG_C, h, depth - h).dspLoad(PROG_C + 8L * h, c.size() - h, 0)   // c over the end (b overwritten)
        .dspRunResident(64)                                             // a, untouched by b and c
        .dspRunResident(depth - h)                                      // c, wrapping
        .dspLoad(PROG_A, a.size(), 64)
        .dspRun(PROG_B, b.size(), 64)                                   // loads b at 0, runs a at 64
        .dspOut(0x400, 64, 8 * lanes, 1, 0, Command.FMT_FP16)
        .store(0x30000, 64, 0x400, 64, 16 * lanes, 1)
        .snapshot(0x40000)
        .halt().build();
    ProgramCosim.Outcome o = run(p, Map.of(PROG_A, a, PROG_B, b, PROG_C, c));
    assertEquals(ErrorCause.NONE, o.rtl().error());
    assertTrue(o.rtl().counters().get(Counter.DSP_INSTRUCTIONS) > 0);
    byte[] m = o.golden().memory();
    assertEquals(0x3C00, half(m, 0x30000), "row 0: a");
    assertEquals(0x4000, half(m, 0x30000 + 2 * 2 * lanes), "row 2: b");
    assertEquals(0x4200, half(m, 0x30000 + 2 * 4 * lanes), "row 4: c, run over the end of the program memory");
  }

  @Test
  void residentRunGoesBesideAGemm() {
    DspProgram a = fill(0x3C00, 0, 4);
    Program p = Program.builder()
        .dspLoad(PROG_A, a.size(), 32)
        .load(0x20000, 64, 0, 64, 64, 8).load(0x21000, 16, 1024, 16, 16, 64)
        .gemm(8, 64, 16, 0, 64, 1024, 16, 2048, 64)
        .dspRunResident(32)
        .dspLoad(PROG_A, a.size(), 48)
        .dspRunResident(48)
        .fence()
        .dspOut(0x400, 64, 16, 1, 0, Command.FMT_FP16)
        .store(0x30000, 64, 0x400, 64, 32, 1)
        .store(0x31000, 64, 2048, 64, 64, 8)
        .halt().build();
    ProgramCosim.Outcome o = run(p, Map.of(PROG_A, a));
    assertEquals(ErrorCause.NONE, o.rtl().error());
  }

  /**
   * The {@code dspInstructions} counter takes each issue a cycle late (registered before its adder, for timing): a
   * snapshot right after a loading run and right after a resident run, and a HALT right after a run, still see every
   * issue of the run (snapshot images bit-exact with the golden's, counters = model at HALT).
   */
  @Test
  void snapshotAndHaltRightAfterARunSeeItsLastIssue() {
    DspProgram a = fill(0x3C00, 0, 3);
    Program p = Program.builder()
        .dspRun(PROG_A, a.size()).snapshot(0x40000)
        .dspRunResident(0).snapshot(0x40100)
        .dspRunResident(0)
        .halt().build();
    ProgramCosim.Outcome o = run(p, Map.of(PROG_A, a));
    assertEquals(ErrorCause.NONE, o.rtl().error());
    long issues = o.golden().counter(Counter.DSP_INSTRUCTIONS);
    assertTrue(issues > 0 && issues % 3 == 0, "three runs of one program: " + issues);
    assertEquals(issues, o.rtl().counters().get(Counter.DSP_INSTRUCTIONS));
    byte[] m = o.rtl().memory();
    int at = 0x40000 + 8 * Counter.DSP_INSTRUCTIONS.ordinal();
    assertEquals(issues / 3, java.nio.ByteBuffer.wrap(m, at, 8).order(java.nio.ByteOrder.LITTLE_ENDIAN).getLong(),
        "first snapshot: the loading run's issues");
    assertEquals(2 * issues / 3, java.nio.ByteBuffer.wrap(m, at + 0x100, 8).order(java.nio.ByteOrder.LITTLE_ENDIAN)
        .getLong(), "second snapshot: both runs' issues");
  }

  /**
   * A resident run right after a streamed GEMM (INT8 and INT4 W) goes beside the W stream (it loads nothing over the
   * memory port): bit-exact, counters = model, fewer cycles than the same program with a fence before the run.
   */
  @Test
  void residentRunGoesBesideAWeightStream() {
    DspProgram a = fill(0x3C00, 0, 4);
    for (int int4 = 0; int4 < 2; int4++) {
      long[] cycles = new long[2];
      for (int fenced = 0; fenced < 2; fenced++) {
        Program.Builder b = Program.builder()
            .dspLoad(PROG_A, a.size(), 32)
            .load(0x10000, 64, 0, 64, 32, 4)
            .gemmStreamed(4, 32, 32, 0, 64, 0x20000, 64, 1024, 128, int4 == 1);
        if (fenced == 1) {
          b.fence();
        }
        b.dspRunResident(32).dspRunResident(32)
            .dspOut(0x800, 64, 16, 1, 0, Command.FMT_FP16)
            .store(0x30000, 64, 0x800, 64, 32, 1)
            .store(0x31000, 128, 1024, 128, 128, 4)
            .halt();
        ProgramCosim.Outcome o = run(b.build(), Map.of(PROG_A, a));
        assertEquals(ErrorCause.NONE, o.rtl().error());
        assertEquals(0x3C00, half(o.golden().memory(), 0x30000), "the resident run's fill");
        cycles[fenced] = o.rtl().counters().get(Counter.CYCLES);
      }
      assertTrue(cycles[0] < cycles[1], "int4 " + int4 + ": beside the stream " + cycles[0] + ", fenced " + cycles[1]);
    }
  }

  /**
   * One program written with run parameters ({@link DspRunParameters}: rows from bases 0 and 1, the length from the
   * run), loaded once and run resident with other rows and lengths each time, and by a loading {@code dsprun} with
   * parameters: bit-exact, counters = model; the rows each run names hold what it copied.
   */
  @Test
  void parameterizedProgramRunsResidentWithEachRunsRowsAndLength() {
    int lanes = NPU.rtl().config().machine().dsp().lanes();
    int p = DspRunParameters.RC_PARAMETER;
    DspAssembler asm = new DspAssembler();
    asm.emit(DspOp.SETLEN, 0, 0, 0, p, false, 0, 0);
    asm.li(3, 0x3C00);
    asm.loop(2, () -> {
      asm.emit(DspOp.LD, 1, 0, 0, p, false, 0, 0);
      asm.emit(DspOp.ADD16, 2, 1, 3, 0, false, 0, 0);
      asm.emit(DspOp.ST, 0, 2, 0, p + 1, true, 0, 0);
    });
    DspProgram copy = asm.finish("copyPlusOne");
    DspProgram seed = fill(0x4000, 0, 2);
    // the DSP's buffer outlives a program on the RTL (the tests share one model): rows 0..7 cleared before and after
    DspProgram clear = fill(0, 0, 8);
    Program prog = Program.builder()
        .dspRun(PROG_C, clear.size())
        .dspRun(PROG_B, seed.size())                                                  // rows 0, 1 = 2.0
        .dspLoad(PROG_A, copy.size(), 32)
        .dspRunResident(32, new DspRunParameters(0, 2, 0, 0, lanes + 3))              // rows 2, 3(3 lanes) = 3.0
        .dspRunResident(32, new DspRunParameters(2, 4, 7, 9, 2 * lanes))              // rows 4, 5 = 4.0
        .dspRun(PROG_A, copy.size(), 0, new DspRunParameters(4, 6 + 512, 0, 0, 1))    // row 6 lane 0 = 5.0 (wraps)
        .dspOut(0x400, 64, 8 * lanes, 1, 0, Command.FMT_FP16)
        .store(0x30000, 64, 0x400, 64, 16 * lanes, 1)
        .dspRun(PROG_C, clear.size())
        .halt().build();
    ProgramCosim.Outcome o = run(prog, Map.of(PROG_A, copy, PROG_B, seed, PROG_C, clear));
    assertEquals(ErrorCause.NONE, o.rtl().error());
    byte[] m = o.golden().memory();
    assertEquals(0x4200, half(m, 0x30000 + 2 * 2 * lanes), "row 2: first run");
    assertEquals(0x4200, half(m, 0x30000 + 2 * (3 * lanes + 2)), "row 3 lane 2: first run's length");
    assertEquals(0x4400, half(m, 0x30000 + 2 * 5 * lanes), "row 5: second run");
    assertEquals(0x4500, half(m, 0x30000 + 2 * 6 * lanes), "row 6: the loading run's parameters");
  }

  @Test
  void rangesAndShapesHaltAsTheGolden() {
    int depth = NPU.rtl().config().machine().dsp().programDepth();
    DspProgram a = fill(0x3C00, 0, 1);
    int lineWords = Math.max(1, NPU.rtl().config().machine().lineBytes() / 8);
    Program[] cases = {
        Program.builder().fence().dspLoad(PROG_A, 4, depth - 2).halt().build(),
        Program.builder().fence().dspLoad(PROG_A, 1, lineWords > 1 ? lineWords + 1 : depth).halt().build(),
        Program.builder().fence().dspLoad(PROG_A, 0, 0).halt().build(),
        Program.builder().fence().dspLoad(PROG_A + 2, 1, 0).halt().build(),
        Program.builder().fence().dspRunResident(depth).halt().build(),
        Program.builder().fence().dspRun(PROG_A, 1, depth).halt().build(),
        Program.builder().dspLoad(PROG_A, a.size(), 0).add(new Command.DspRun(PROG_A + 2, 0, 0)).halt().build()};
    ErrorCause[] expected = {ErrorCause.DSP_ADDRESS, ErrorCause.DSP_ADDRESS, ErrorCause.BAD_SHAPE,
        ErrorCause.EXT_ADDRESS, ErrorCause.DSP_ADDRESS, ErrorCause.DSP_ADDRESS, ErrorCause.NONE};
    for (int i = 0; i < cases.length; i++) {
      ProgramCosim.Outcome o = run(cases[i], Map.of(PROG_A, a));
      assertEquals(expected[i], o.golden().error(), "case " + i);
      assertEquals(expected[i], o.rtl().error(), "case " + i);
    }
  }

  private static ProgramCosim.Outcome run(Program p, Map<Long, DspProgram> programs) {
    byte[] image = new byte[(int) NPU.rtl().config().machine().extMemBytes()];
    new Random(21).nextBytes(image);
    programs.forEach((at, prog) -> DspCornerCasesTest.writeWords(image, at, prog.words()));
    RandomPrograms.place(image, p, 0);
    ProgramCosim.Outcome o = ProgramCosim.run(NPU.rtl(), image, 0);
    String what = org.llmnpu.isa.Disassembler.disassemble(p);
    assertTrue(o.statusMatches(), what + "status " + o.rtl().error() + " vs golden " + o.golden().error());
    assertTrue(o.bitExact(), what + "first difference at 0x" + Long.toHexString(o.firstDifference()));
    assertEquals(Map.of(), RandomProgramCosimTest.mismatches(o), what);
    return o;
  }

  private static int half(byte[] m, int at) {
    return (m[at] & 0xFF) | (m[at + 1] & 0xFF) << 8;
  }
}
