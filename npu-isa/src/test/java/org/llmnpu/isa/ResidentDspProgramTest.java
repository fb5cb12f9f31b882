package org.llmnpu.isa;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.llmnpu.isa.dsp.DspInstruction;
import org.llmnpu.isa.dsp.DspKernel;
import org.llmnpu.isa.dsp.DspKernels;
import org.llmnpu.isa.dsp.DspLayout;
import org.llmnpu.isa.dsp.DspMath;
import org.llmnpu.isa.dsp.DspOp;
import org.llmnpu.isa.dsp.DspProgram;

/**
 * Resident DSP programs in the golden ISA simulator: {@code dspld} loads words at an offset without running them,
 * a resident {@code dsprun} (words 0) runs the program memory from its entry address; results equal those of the
 * same program loaded and run by a plain {@code dsprun}, cycles follow the formulas, ranges halt with DSP_ADDRESS.
 */
class ResidentDspProgramTest {
  static final MachineParams P = DspCommandTest.P;
  private static final int DEPTH = P.dsp().programDepth();
  private static final int LEN = 37;

  @Test
  void residentRunAfterOtherLoadsEqualsTheLoadedRun() {
    DspLayout layout = new DspLayout(DspKernel.SOFTMAX, LEN, 16);
    DspProgram softmax = DspKernels.compile(DspKernel.SOFTMAX, LEN, 16, 0f, DspMath.DEFAULT);
    DspProgram other = DspKernels.compile(DspKernel.SOFTMAX, 5, 16, 0f, DspMath.DEFAULT);
    int at = 2 * ((DEPTH - softmax.size() - 4) / 2);
    byte[] mem = image(softmax, other);
    Program plain = copyIn(layout).dspRun(0x20000, softmax.size()).then(layout).build();
    // softmax at `at`, then another program overwrites 0.. (not the softmax's words), then runs: resident softmax
    Program.Builder first = Program.builder().dspTab(0x30000).dspLoad(0x20000, softmax.size(), at)
        .dspRun(0x24000, other.size());
    Program resident = new Chain(first).in(layout).dspRunResident(at).then(layout).build();
    IsaSimulator.Result a = run(plain, mem);
    IsaSimulator.Result b = run(resident, mem);
    assertEquals(ErrorCause.NONE, b.error());
    assertArrayEquals(Arrays.copyOfRange(a.memory(), 0x40000, 0x40000 + 2 * LEN),
        Arrays.copyOfRange(b.memory(), 0x40000, 0x40000 + 2 * LEN));
    assertEquals(softmax.cycles(P.dsp().pipeline()) + other.cycles(P.dsp().pipeline()),
        b.counter(Counter.DSP_INSTRUCTIONS) + stalls(softmax) + stalls(other), "both programs ran to their HALT");
  }

  @Test
  void entryNearTheEndWrapsToAddressZero() {
    // a program of 5 words split over the end of the program memory: 2 words at depth-2, 3 at 0
    long[] words = fiveWordProgram();
    byte[] mem = new byte[1 << 20];
    DspCommandTest.putLongs(mem, 0x20000, words);
    DspCommandTest.putLongs(mem, 0x21000, Arrays.copyOfRange(words, 2, 5));
    Program plain = Program.builder().dspRun(0x20000, 5).dspOut(0, 64, 32, 1, 0, Command.FMT_FP16)
        .store(0x40000, 64, 0, 64, 64, 1).halt().build();
    Program wrapped = Program.builder().dspLoad(0x20000, 2, DEPTH - 2).dspLoad(0x21000, 3, 0)
        .dspRunResident(DEPTH - 2).dspOut(0, 64, 32, 1, 0, Command.FMT_FP16)
        .store(0x40000, 64, 0, 64, 64, 1).halt().build();
    IsaSimulator.Result a = run(plain, mem);
    IsaSimulator.Result b = run(wrapped, mem);
    assertEquals(ErrorCause.NONE, b.error());
    assertArrayEquals(Arrays.copyOfRange(a.memory(), 0x40000, 0x40040), Arrays.copyOfRange(b.memory(), 0x40000,
        0x40040));
    assertEquals(a.counter(Counter.DSP_INSTRUCTIONS), b.counter(Counter.DSP_INSTRUCTIONS));
  }

  @Test
  void cyclesFollowTheFormulas() {
    byte[] mem = new byte[1 << 20];
    long[] halt = {new DspInstruction(DspOp.HALT, 0, 0, 0, 0, false, 0, 0).encode()};
    DspCommandTest.putLongs(mem, 0x20000, halt);
    long base = cycles(Program.builder().dspLoad(0x20000, 1, 6).fence().halt().build(), mem);
    // resident: the run starts in the dispatch cycle e - 1; one instruction, done seen one cycle later: e + 2
    assertEquals(2, cycles(Program.builder().dspLoad(0x20000, 1, 6).dspRunResident(6).halt().build(), mem) - base);
    // dspld: as a load, one beat: issue at e, data at e + 8, next fetch at e + 9
    long noLoad = cycles(Program.builder().fence().fence().halt().build(), mem);
    assertEquals(1 + 8, base - noLoad);
    // an entry past a plain dsprun's load runs the resident words
    DspCommandTest.putLongs(mem, 0x21000, fiveWordProgram());
    IsaSimulator.Result r = run(Program.builder().dspLoad(0x20000, 1, 6).dspRun(0x21000, 5, 6).halt().build(), mem);
    assertEquals(1, r.counter(Counter.DSP_INSTRUCTIONS), "the HALT at 6, not the five words loaded at 0");
  }

  @Test
  void rangesHaltWithDspAddressAndShapes() {
    byte[] mem = new byte[1 << 20];
    assertEquals(ErrorCause.DSP_ADDRESS, run(Program.builder().dspLoad(0x20000, 4, DEPTH - 2).halt().build(), mem)
        .error(), "at + words beyond the program memory");
    assertEquals(ErrorCause.DSP_ADDRESS, run(Program.builder().dspLoad(0x20000, 1, 3).halt().build(), mem).error(),
        "at not a multiple of a line's words (2)");
    assertEquals(ErrorCause.BAD_SHAPE, run(Program.builder().dspLoad(0x20000, 0, 0).halt().build(), mem).error());
    assertEquals(ErrorCause.EXT_ADDRESS, run(Program.builder().dspLoad(0x20008, 1, 0).halt().build(), mem).error());
    assertEquals(ErrorCause.DSP_ADDRESS, run(Program.builder().dspRunResident(DEPTH).halt().build(), mem).error());
    assertEquals(ErrorCause.DSP_ADDRESS, run(Program.builder().dspRun(0x20000, 1, DEPTH).halt().build(), mem)
        .error());
    // a resident run reads no memory: its prog is not checked
    DspCommandTest.putLongs(mem, 0x20000, new long[] {new DspInstruction(DspOp.HALT, 0, 0, 0, 0, false, 0, 0)
        .encode()});
    assertEquals(ErrorCause.NONE, run(Program.builder().dspLoad(0x20000, 1, 0).add(new Command.DspRun(0x20008, 0, 0))
        .halt().build(), mem).error());
  }

  @Test
  void textRoundTrips() {
    String text = """
        dspld prog=0x20000 words=40 at=64
        dsprun prog=0 words=0 entry=64
        dsprun prog=0x20000 words=3
        halt
        """;
    Program p = Assembler.assemble(text, "t.npu").program();
    assertEquals(new Command.DspLoad(0x20000, 40, 64), CommandCodec.decode(p.words(0)).orElseThrow());
    assertEquals(Command.DspRun.resident(64), CommandCodec.decode(p.words(1)).orElseThrow());
    assertEquals(new Command.DspRun(0x20000, 3), CommandCodec.decode(p.words(2)).orElseThrow());
    assertEquals(Disassembler.disassemble(p), Disassembler.disassemble(
        Assembler.assemble(Disassembler.disassemble(p), "again.npu").program()));
  }

  private static long stalls(DspProgram program) {
    return program.cycles(P.dsp().pipeline()) - program.cycles(org.llmnpu.isa.dsp.DspPipeline.ONE_STAGE_EXECUTE);
  }

  private static long[] fiveWordProgram() {
    return new long[] {
        new DspInstruction(DspOp.LI, 1, 0, 0, 0, false, 0, 0x3C00).encode(),
        new DspInstruction(DspOp.LI, 2, 0, 0, 0, false, 0, 0x4000).encode(),
        new DspInstruction(DspOp.ST, 0, 1, 0, 0, false, 0, 0).encode(),
        new DspInstruction(DspOp.ST, 0, 2, 0, 0, false, 0, 1).encode(),
        new DspInstruction(DspOp.HALT, 0, 0, 0, 0, false, 0, 0).encode()};
  }

  private static byte[] image(DspProgram softmax, DspProgram other) {
    byte[] mem = new byte[1 << 20];
    Random rnd = new Random(7);
    for (int i = 0; i < LEN; i++) {
      int v = rnd.nextInt(1 << 14) - (1 << 13);
      for (int b = 0; b < 4; b++) {
        mem[0x8000 + 16 * i + b] = (byte) (v >>> (8 * b));
      }
    }
    DspCommandTest.putLongs(mem, 0x20000, softmax.words());
    DspCommandTest.putLongs(mem, 0x24000, other.words());
    System.arraycopy(IsaSimulator.dspTableImage(DspMath.DEFAULT), 0, mem, 0x30000, Command.DSP_TABLE_BYTES);
    return mem;
  }

  private static Chain copyIn(DspLayout layout) {
    return new Chain(Program.builder().dspTab(0x30000)).in(layout);
  }

  /** A builder with the softmax's output copy appended by {@link #then}. */
  private record Chain(Program.Builder b) {
    Chain in(DspLayout layout) {
      b.load(0x8000, 16, 0, 16, 4, LEN).dspIn(0, 16, 1, LEN, layout.inputBase(0), Command.FMT_INT32, -10);
      return this;
    }

    Chain dspRun(long prog, long words) {
      b.dspRun(prog, words);
      return this;
    }

    Chain dspRunResident(long entry) {
      b.dspRunResident(entry);
      return this;
    }

    Program.Builder then(DspLayout layout) {
      return b.dspOut(0x1000, 128, LEN, 1, layout.outputBase(0), Command.FMT_FP16)
          .store(0x40000, 128, 0x1000, 128, 2 * LEN, 1).halt();
    }
  }

  private static IsaSimulator.Result run(Program prog, byte[] image) {
    byte[] mem = image.clone();
    System.arraycopy(prog.bytes(), 0, mem, 0, prog.bytes().length);
    return IsaSimulator.run(P, mem, 0);
  }

  private static long cycles(Program prog, byte[] image) {
    IsaSimulator.Result r = run(prog, image);
    assertEquals(ErrorCause.NONE, r.error());
    return r.counter(Counter.CYCLES);
  }
}
