package org.llmnpu.isa;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Random;
import org.junit.jupiter.api.Test;
import org.llmnpu.isa.dsp.DspInterpreter;
import org.llmnpu.isa.dsp.DspKernel;
import org.llmnpu.isa.dsp.DspKernels;
import org.llmnpu.isa.dsp.DspLayout;
import org.llmnpu.isa.dsp.DspMath;
import org.llmnpu.isa.dsp.DspProgram;
import org.llmnpu.numerics.fp16.Fp16;

/** The DSP commands of the golden ISA simulator: conversions on the copies, programs from memory, snapshots. */
class DspCommandTest {
  static final MachineParams P = MachineParams.builder().rows(16).lineBytes(16).spadBytes(1 << 16).spadBanks(4)
      .extMemBytes(1 << 20).mTile(16).accWidth(32).icAccumDepth(0).maxM(64).maxK(512).maxN(128).memLatency(8)
      .memBytesPerCycle(16).watchdogCycles(4096).build();

  @Test
  void softmaxOfGemmScoresRunsFromMemory() {
    int len = 37;
    DspLayout layout = new DspLayout(DspKernel.SOFTMAX, len, 16);
    DspProgram softmax = DspKernels.compile(DspKernel.SOFTMAX, len, 16, 0f, DspMath.DEFAULT);
    byte[] mem = new byte[1 << 20];
    Random rnd = new Random(4);
    int[] scores = new int[len];
    for (int i = 0; i < len; i++) {
      scores[i] = rnd.nextInt(1 << 14) - (1 << 13);
      putInt(mem, 0x8000 + 16 * i, scores[i]);       // one INT32 score a line, as a GEMV with N = 1 leaves them
    }
    putLongs(mem, 0x20000, softmax.words());
    System.arraycopy(IsaSimulator.dspTableImage(DspMath.DEFAULT), 0, mem, 0x30000, Command.DSP_TABLE_BYTES);
    Program prog = Program.builder()
        .dspTab(0x30000)
        .load(0x8000, 16, 0, 16, 4, len)
        .dspIn(0, 16, 1, len, layout.inputBase(0), Command.FMT_INT32, -10)
        .dspRun(0x20000, softmax.size())
        .dspOut(0x1000, 128, len, 1, layout.outputBase(0), Command.FMT_FP16)
        .store(0x40000, 128, 0x1000, 128, 2 * len, 1)
        .snapshot(0x50000)
        .halt().build();
    System.arraycopy(prog.bytes(), 0, mem, 0, prog.bytes().length);
    IsaSimulator.Result r = IsaSimulator.run(P, mem, 0);
    assertEquals(ErrorCause.NONE, r.error());

    DspInterpreter direct = new DspInterpreter(16, 512, DspMath.DEFAULT).pipeline(P.dsp().pipeline());
    for (int i = 0; i < len; i++) {
      direct.write(layout.inputBase(0) * 16 + i, Fp16.fromInt(scores[i], Fp16.scalb(Fp16.ONE, -10)));
    }
    direct.run(softmax);
    for (int i = 0; i < len; i++) {
      int got = (r.memory()[0x40000 + 2 * i] & 0xFF) | (r.memory()[0x40001 + 2 * i] & 0xFF) << 8;
      assertEquals(direct.read(layout.outputBase(0) * 16 + i) & 0xFFFF, got, "p[" + i + "]");
    }
    assertEquals(direct.issued(), r.counter(Counter.DSP_INSTRUCTIONS));
    org.junit.jupiter.api.Assertions.assertArrayEquals(direct.issuedByPipe(), r.dspPipeIssues());
    assertEquals(softmax.cycles(P.dsp().pipeline()), direct.cycles());
    assertEquals(2L * len, r.counter(Counter.DSP_ELEMENTS));
    // The snapshot holds the counters of its first cycle: 7 commands decoded, no DSP work after it.
    long commands = readLong(r.memory(), 0x50000 + 8 * Counter.COMMANDS.ordinal());
    assertEquals(7, commands);
    assertEquals(direct.issued(), readLong(r.memory(), 0x50000 + 8 * Counter.DSP_INSTRUCTIONS.ordinal()));
  }

  @Test
  void int8CodesLeaveAsBytesAndInt4Unpacks() {
    byte[] mem = new byte[1 << 20];
    mem[0x8000] = (byte) 0x8F;   // low nibble 0xF = −1, high 0x8 = −8
    mem[0x8001] = (byte) 0x37;   // 7, 3
    Program prog = Program.builder()
        .load4(0x8000, 16, 0, 16, 2, 1)
        .dspIn(0, 16, 4, 1, 0, Command.FMT_INT8, 0)
        .dspOut(0x100, 16, 4, 1, 0, Command.FMT_FP16)
        .store(0x9000, 16, 0, 16, 4, 1)
        .store(0x9100, 16, 0x100, 16, 8, 1)
        .halt().build();
    System.arraycopy(prog.bytes(), 0, mem, 0, prog.bytes().length);
    IsaSimulator.Result r = IsaSimulator.run(P, mem, 0);
    assertEquals(ErrorCause.NONE, r.error());
    byte[] m = r.memory();
    assertEquals(-1, m[0x9000]);
    assertEquals(-8, m[0x9001]);
    assertEquals(7, m[0x9002]);
    assertEquals(3, m[0x9003]);
    assertEquals(Fp16.fromInt(-8, Fp16.ONE) & 0xFFFF, (m[0x9102] & 0xFF) | (m[0x9103] & 0xFF) << 8);
  }

  @Test
  void dspRangeAndShapeErrorsNameTheCommand() {
    assertEquals(ErrorCause.DSP_ADDRESS, errorOf(Program.builder().fence()
        .dspIn(0, 16, 16, 1, 512, Command.FMT_INT8, 0).halt().build()), "beyond the buffer");
    assertEquals(ErrorCause.BAD_SHAPE, errorOf(Program.builder().dspIn(0, 16, 16, 1, 0, 3, 0).halt().build()));
    assertEquals(ErrorCause.BAD_SHAPE, errorOf(Program.builder().dspIn(0, 16, 16, 1, 0, Command.FMT_INT32, 16).halt().build()));
    assertEquals(ErrorCause.DSP_ADDRESS, errorOf(Program.builder().dspRun(0x1000, 257).halt().build()));
    assertEquals(ErrorCause.EXT_ADDRESS, errorOf(Program.builder().snapshot(0x1008).halt().build()));
  }

  @Test
  void tablesAreEmptyUntilDsptabAndUndefinedOpcodesAreNops() {
    // TSTART of segment 2 of the exp table, before and after a dsptab; an undefined opcode (0x3F)
    // whose rd field names the register holding the result writes nothing.
    long tstart = new org.llmnpu.isa.dsp.DspInstruction(org.llmnpu.isa.dsp.DspOp.TSTART, 1, 2, 0, 0, false, 0, 0)
        .encode();
    long[] words = {
        new org.llmnpu.isa.dsp.DspInstruction(org.llmnpu.isa.dsp.DspOp.LI, 2, 0, 0, 0, false, 0, 2).encode(),
        tstart,
        0x3FL << 58 | 1L << 53,
        new org.llmnpu.isa.dsp.DspInstruction(org.llmnpu.isa.dsp.DspOp.ST, 0, 1, 0, 0, false, 0, 0).encode(),
        new org.llmnpu.isa.dsp.DspInstruction(org.llmnpu.isa.dsp.DspOp.HALT, 0, 0, 0, 0, false, 0, 0).encode()};
    byte[] mem = new byte[1 << 20];
    putLongs(mem, 0x20000, words);
    System.arraycopy(IsaSimulator.dspTableImage(DspMath.DEFAULT), 0, mem, 0x30000, Command.DSP_TABLE_BYTES);
    Program prog = Program.builder()
        .dspRun(0x20000, words.length).dspOut(0, 16, 1, 1, 0, Command.FMT_FP16).store(0x40000, 16, 0, 16, 2, 1)
        .dspTab(0x30000)
        .dspRun(0x20000, words.length).dspOut(0, 16, 1, 1, 0, Command.FMT_FP16).store(0x40010, 16, 0, 16, 2, 1)
        .halt().build();
    System.arraycopy(prog.bytes(), 0, mem, 0, prog.bytes().length);
    IsaSimulator.Result r = IsaSimulator.run(P, mem, 0);
    assertEquals(ErrorCause.NONE, r.error());
    assertEquals(0x7E00, (r.memory()[0x40000] & 0xFF) | (r.memory()[0x40001] & 0xFF) << 8, "empty table: NaN");
    assertEquals(DspMath.DEFAULT.table(0).starts()[2],
        (r.memory()[0x40010] & 0xFF) | (r.memory()[0x40011] & 0xFF) << 8, "after dsptab: the exp table's start");
    assertEquals(2L * words.length, r.counter(Counter.DSP_INSTRUCTIONS));
  }

  @Test
  void dspCommandCyclesFollowTheFormulas() {
    // dspin/dspout: min(line / elementBytes, lanes) elements a cycle (16-byte lines, 16 lanes: INT8 16, FP16 8,
    // INT32 4), a dspin one cycle more for its last buffer write; dsprun: program beats as a load, then run + 1.
    byte[] mem = new byte[1 << 20];
    long[] halt = {new org.llmnpu.isa.dsp.DspInstruction(org.llmnpu.isa.dsp.DspOp.HALT, 0, 0, 0, 0, false, 0, 0)
        .encode()};
    putLongs(mem, 0x20000, halt);
    Program copy = Program.builder().dspIn(0, 64, 7, 3, 0, Command.FMT_INT8, 0).halt().build();
    Program run = Program.builder().dspRun(0x20000, 1).halt().build();
    Program none = Program.builder().fence().halt().build();
    long base = cyclesOf(none, mem);
    assertEquals(3 + 1, cyclesOf(copy, mem) - base, "3 rows of 7 INT8 elements: a chunk a row");
    Program fp16 = Program.builder().dspIn(0, 64, 20, 2, 0, Command.FMT_FP16, 0).halt().build();
    assertEquals(2 * 3 + 1, cyclesOf(fp16, mem) - base, "2 rows of 20 FP16 elements: chunks of 8, 8, 4");
    Program int32 = Program.builder().dspIn(0, 64, 9, 1, 0, Command.FMT_INT32, 3).halt().build();
    assertEquals(3 + 1, cyclesOf(int32, mem) - base, "9 INT32 elements: chunks of 4, 4, 1");
    Program out = Program.builder().dspOut(0, 48, 172, 1, 0, Command.FMT_INT8).halt().build();
    assertEquals(11, cyclesOf(out, mem) - base, "172 INT8 elements: 10 chunks of 16 and one of 12");
    // one beat (8 bytes in a 16-byte line), latency 8: issue, data at +8, run 1 instruction, done seen 1 later
    assertEquals(1 + 8 + 1 + 1, cyclesOf(run, mem) - base);
  }

  private static long cyclesOf(Program prog, byte[] image) {
    byte[] mem = image.clone();
    System.arraycopy(prog.bytes(), 0, mem, 0, prog.bytes().length);
    IsaSimulator.Result r = IsaSimulator.run(P, mem, 0);
    assertEquals(ErrorCause.NONE, r.error());
    return r.counter(Counter.CYCLES);
  }

  @Test
  void newCommandsRoundTripThroughText() {
    String text = """
        dsptab ext=0x30000
        load4 ext=0x100 extStride=16 spad=0 spadStride=32 rowBytes=8 rows=3
        dspin spad=0 spadStride=16 rowElems=1 rows=24 dst=0 format=2 shift=-7
        dsprun prog=0x20000 words=40
        dspout spad=0x3000 spadStride=32 rowElems=24 rows=1 src=2 format=1
        snapshot ext=0x9000
        halt
        """;
    Program p = Assembler.assemble(text, "t.npu").program();
    assertEquals(-7, ((Command.DspIn) CommandCodec.decode(p.words(2)).orElseThrow()).shift());
    assertEquals(Disassembler.disassemble(p), Disassembler.disassemble(
        Assembler.assemble(Disassembler.disassemble(p), "again.npu").program()));
  }

  private static ErrorCause errorOf(Program prog) {
    byte[] mem = new byte[1 << 20];
    System.arraycopy(prog.bytes(), 0, mem, 0, prog.bytes().length);
    return IsaSimulator.run(P, mem, 0).error();
  }

  private static void putInt(byte[] m, int a, int v) {
    for (int b = 0; b < 4; b++) {
      m[a + b] = (byte) (v >>> (8 * b));
    }
  }

  static void putLongs(byte[] m, int a, long[] words) {
    for (int i = 0; i < words.length; i++) {
      for (int b = 0; b < 8; b++) {
        m[a + 8 * i + b] = (byte) (words[i] >>> (8 * b));
      }
    }
  }

  private static long readLong(byte[] m, int a) {
    long v = 0;
    for (int b = 7; b >= 0; b--) {
      v = v << 8 | (m[a + b] & 0xFF);
    }
    return v;
  }
}
