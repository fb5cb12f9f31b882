package org.llmnpu.isa;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.llmnpu.isa.dsp.DspInstruction;
import org.llmnpu.isa.dsp.DspInterpreter;
import org.llmnpu.isa.dsp.DspMath;
import org.llmnpu.isa.dsp.DspOp;
import org.llmnpu.isa.dsp.DspRunParameters;

/**
 * Run parameters ({@link DspRunParameters}): a row instruction with {@code rc} = 16 + k addresses rows from
 * {@code imm + base k}, a {@code SETLEN} with {@code rc[4]} adds the run's length; a program so written, run resident
 * with other parameters, equals the program with those rows and lengths compiled in (results and cycles); the
 * parameters travel in command words 4..6 through the codec, the assembler and the disassembler.
 */
class DspRunParametersTest {
  static final MachineParams P = DspCommandTest.P;

  @Test
  void parameterizedProgramEqualsTheCompiledInOneOnRandomParameters() {
    Random rnd = new Random(32);
    for (int trial = 0; trial < 200; trial++) {
      int rows = 64;
      DspRunParameters q = new DspRunParameters(rnd.nextInt(65536), rnd.nextInt(65536), rnd.nextInt(65536),
          rnd.nextInt(65536), rnd.nextInt(200) - 100);
      List<DspInstruction> withBases = new ArrayList<>();
      List<DspInstruction> compiled = new ArrayList<>();
      for (int i = 0; i < 12; i++) {
        DspOp op = List.of(DspOp.LD, DspOp.ST, DspOp.LDS, DspOp.STS, DspOp.LDG, DspOp.STG, DspOp.SETLEN, DspOp.ADD16)
            .get(rnd.nextInt(8));
        int rc = rnd.nextInt(4) == 0 ? 0 : DspRunParameters.RC_PARAMETER + rnd.nextInt(4);
        int imm = op == DspOp.SETLEN ? rnd.nextInt(300) : rnd.nextInt(1 << 20) - (1 << 19);
        int rd = rnd.nextInt(4);
        int ra = rnd.nextInt(4);
        int rb = rnd.nextInt(4);
        int aux = op == DspOp.LDS || op == DspOp.STS ? rnd.nextInt(3) : 0;
        boolean masked = rnd.nextBoolean();
        DspInstruction p = new DspInstruction(op, rd, ra, rb, op == DspOp.ADD16 ? 0 : rc, masked, aux, imm);
        withBases.add(p);
        compiled.add(new DspInstruction(op, rd, ra, rb, 0, masked, aux, imm + q.offsetOf(p)));
      }
      // the body in a loop of 3, then HALT
      withBases.add(0, new DspInstruction(DspOp.LOOP, 0, 0, 0, 0, false, 0, 12 << 16 | 3));
      compiled.add(0, withBases.get(0));
      withBases.add(new DspInstruction(DspOp.HALT, 0, 0, 0, 0, false, 0, 0));
      compiled.add(withBases.get(withBases.size() - 1));
      DspInterpreter a = interpreter(rows, 7 + trial).parameters(q);
      DspInterpreter b = interpreter(rows, 7 + trial);
      assertTrue(a.run(withBases, 10_000));
      assertTrue(b.run(compiled, 10_000));
      assertEquals(b.cycles(), a.cycles());
      for (int e = 0; e < rows * 8; e++) {
        assertEquals(b.read(e), a.read(e), "trial " + trial + " element " + e);
      }
    }
  }

  @Test
  void withoutTheFlagTheParametersChangeNothing() {
    List<DspInstruction> code = List.of(new DspInstruction(DspOp.SETLEN, 0, 0, 0, 0, false, 0, 5),
        new DspInstruction(DspOp.LD, 1, 0, 0, 0, false, 0, 3), new DspInstruction(DspOp.ST, 0, 1, 0, 0, true, 0, 9),
        new DspInstruction(DspOp.HALT, 0, 0, 0, 0, false, 0, 0));
    DspInterpreter a = interpreter(32, 1).parameters(new DspRunParameters(4, 5, 6, 7, 8));
    DspInterpreter b = interpreter(32, 1);
    a.run(code, 100);
    b.run(code, 100);
    for (int e = 0; e < 32 * 8; e++) {
      assertEquals(b.read(e), a.read(e));
    }
  }

  @Test
  void residentRunsWithParametersEqualCompiledInRunsInTheSimulator() {
    // copy 3 rows from base 0 to base 1, masked by the run's length: one program, two resident runs
    int lanes = P.dsp().lanes();
    long[] param = words(new DspInstruction(DspOp.SETLEN, 0, 0, 0, DspRunParameters.RC_PARAMETER, false, 0, 0),
        new DspInstruction(DspOp.LOOP, 0, 0, 0, 0, false, 0, 2 << 16 | 3),
        new DspInstruction(DspOp.LD, 1, 0, 0, DspRunParameters.RC_PARAMETER, false, 0, 0),
        new DspInstruction(DspOp.ST, 0, 1, 0, DspRunParameters.RC_PARAMETER + 1, true, 0, 0),
        new DspInstruction(DspOp.HALT, 0, 0, 0, 0, false, 0, 0));
    byte[] mem = new byte[1 << 20];
    DspCommandTest.putLongs(mem, 0x20000, param);
    long[][] compiled = new long[2][];
    int[][] runs = {{0, 8, 2 * lanes + 3}, {4, 20, 40}};
    for (int r = 0; r < 2; r++) {
      compiled[r] = words(new DspInstruction(DspOp.SETLEN, 0, 0, 0, 0, false, 0, runs[r][2]),
          new DspInstruction(DspOp.LOOP, 0, 0, 0, 0, false, 0, 2 << 16 | 3),
          new DspInstruction(DspOp.LD, 1, 0, 0, 0, false, 0, runs[r][0]),
          new DspInstruction(DspOp.ST, 0, 1, 0, 0, true, 0, runs[r][1]),
          new DspInstruction(DspOp.HALT, 0, 0, 0, 0, false, 0, 0));
      DspCommandTest.putLongs(mem, 0x21000 + 0x100 * r, compiled[r]);
    }
    for (int i = 0; i < 16 * lanes; i++) {
      mem[0x30000 + 2 * i] = (byte) (i + 1);
      mem[0x30000 + 2 * i + 1] = 0x3C;
    }
    Program.Builder plain = copyIn(Program.builder());
    Program.Builder resident = copyIn(Program.builder()).dspLoad(0x20000, param.length, 8);
    for (int r = 0; r < 2; r++) {
      plain.dspRun(0x21000 + 0x100 * r, compiled[r].length);
      resident.dspRunResident(8, new DspRunParameters(runs[r][0], runs[r][1], 0, 0, runs[r][2]));
    }
    IsaSimulator.Result a = run(copyOut(plain).build(), mem);
    IsaSimulator.Result b = run(copyOut(resident).build(), mem);
    assertEquals(ErrorCause.NONE, a.error());
    assertEquals(ErrorCause.NONE, b.error());
    assertArrayEquals(Arrays.copyOfRange(a.memory(), 0x40000, 0x40000 + 64 * lanes),
        Arrays.copyOfRange(b.memory(), 0x40000, 0x40000 + 64 * lanes));
    assertEquals(a.counter(Counter.DSP_INSTRUCTIONS), b.counter(Counter.DSP_INSTRUCTIONS));
  }

  @Test
  void parametersTravelInWordsFourToSix() {
    DspRunParameters q = new DspRunParameters(1, 65535, 300, 7, -3);
    Command.DspRun r = Command.DspRun.resident(5, q);
    Program prog = Program.builder().add(r).halt().build();
    int[] w = CommandCodec.encode(r);
    assertEquals(1 | 65535 << 16, w[4]);
    assertEquals(300 | 7 << 16, w[5]);
    assertEquals(-3, w[6]);
    assertEquals(r, CommandCodec.decode(w).orElseThrow());
    String text = Disassembler.disassemble(prog);
    assertTrue(text.contains("base1=65535") && text.contains("len=4294967293"), text);
    Program again = Assembler.assemble(text, "t.s").program();
    assertEquals(r, CommandCodec.decode(again.words(0)).orElseThrow());
    assertThrows(IllegalArgumentException.class, () -> new DspRunParameters(65536, 0, 0, 0, 0));
  }

  private static DspInterpreter interpreter(int rows, long seed) {
    DspInterpreter d = new DspInterpreter(8, rows, DspMath.DEFAULT).permute(true);
    Random rnd = new Random(seed);
    for (int e = 0; e < rows * 8; e++) {
      d.write(e, (short) rnd.nextInt(1 << 15));
    }
    return d;
  }

  private static Program.Builder copyIn(Program.Builder b) {
    return b.load(0x30000, 0, 0x1000, 0, 32 * P.dsp().lanes(), 1)
        .dspIn(0x1000, 0, 16 * P.dsp().lanes(), 1, 0, Command.FMT_FP16, 0);
  }

  private static Program.Builder copyOut(Program.Builder b) {
    return b.dspOut(0x1000, 0, 32 * P.dsp().lanes(), 1, 0, Command.FMT_FP16)
        .store(0x40000, 0, 0x1000, 0, 64 * P.dsp().lanes(), 1).halt();
  }

  private static long[] words(DspInstruction... in) {
    return Arrays.stream(in).mapToLong(DspInstruction::encode).toArray();
  }

  private static IsaSimulator.Result run(Program prog, byte[] image) {
    byte[] mem = image.clone();
    System.arraycopy(prog.bytes(), 0, mem, 0, prog.bytes().length);
    return IsaSimulator.run(P, mem, 0);
  }
}
