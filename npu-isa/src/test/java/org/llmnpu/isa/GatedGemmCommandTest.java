package org.llmnpu.isa;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.Test;
import org.llmnpu.numerics.ppu.Ppm;
import org.llmnpu.numerics.ppu.PpuFitter;
import org.llmnpu.numerics.ppu.PpuFormat;
import org.llmnpu.numerics.ppu.PpuFunction;
import org.llmnpu.numerics.requant.Activation;
import org.llmnpu.numerics.requant.OutputFormat;
import org.llmnpu.numerics.requant.QuantizedMultiplier;
import org.llmnpu.numerics.requant.RequantParams;

/**
 * {@code gemm ppm=1 gate=1} (the SwiGLU gate through the PPM) in the golden simulator: each code is
 * {@code numerics.ppu.Ppm.processGated} of the GEMM's accumulator and the gate code that was at its Y byte; counters,
 * cycles (the drain's gate reads on the scratchpad's read port) and checks.
 */
class GatedGemmCommandTest {
  private static final int X = 0x1000;
  private static final int W = 0x4000;
  private static final int GATE = 0x20000;
  private static final int RECORDS = 0x8000;
  private static final int TABLE = 0xC000;
  private static final int OUT = 0x10000;
  /** Y (and the gate codes) in the scratchpad, past W's rows. */
  private static final int Y = 3072;

  static MachineParams machine(boolean ppu) {
    return PpmAndSparseCommandTest.machine(ppu, Command.DENSE).withPpmGate(true);
  }

  static RequantParams params(Random r) {
    return new RequantParams(QuantizedMultiplier.fromScale(Math.scalb(1 + r.nextDouble(), -4 - r.nextInt(12))),
        r.nextInt(40) - 20, OutputFormat.INT8, Activation.NONE, 0);
  }

  static Command.Gemm gemm(int m, int k, int n, long ppm, long gate) {
    return new Command.Gemm(m, k, n, 0, 64, 1024, 64, Y, 64, Command.DENSE, 0, 0, 0, ppm, gate);
  }

  /** Loads X, W and the gate codes (into Y's rows), the channel records, (the table), the GEMM, stores Y. */
  static Program program(int m, int k, int n, boolean ppu, Command.Gemm g, long storeFrom) {
    Program.Builder b = Program.builder().load(X, 64, 0, 64, k, m).load(W, 64, 1024, 64, n, k)
        .load(GATE, 64, Y, 64, 64, m).ppmCfg(RECORDS, n, 0, g.ppmBank());
    if (ppu) {
      b.ppuTab(TABLE);
    }
    return b.add(g).store(OUT, 64, storeFrom, 64, 64, m).halt().build();
  }

  static byte[] image(Random r, Program prog, RequantParams[] params, int[] bias) {
    byte[] mem = new byte[1 << 20];
    r.nextBytes(mem);
    // corner gate codes in the first rows: −128, 127, 0, −1
    int[] corners = {-128, 127, 0, -1};
    for (int j = 0; j < 64; j++) {
      mem[GATE + j] = (byte) corners[j % corners.length];
    }
    for (int j = 0; j < params.length; j++) {
      System.arraycopy(IsaSimulator.ppmRecord(bias[j], params[j].multiplier(), params[j].outputZeroPoint()), 0, mem,
          RECORDS + 16 * j, 16);
    }
    byte[] t = IsaSimulator.ppuTableImage(PpuFitter.fit(PpuFunction.SILU, PpuFormat.DEFAULT));
    System.arraycopy(t, 0, mem, TABLE, t.length);
    System.arraycopy(prog.bytes(), 0, mem, 0, prog.bytes().length);
    return mem;
  }

  @Test
  void gatedGemmEqualsNumericsProcessGatedOfTheTiledGemmAndTheGateCodesAtY() {
    for (boolean ppu : new boolean[] {false, true}) {
      for (int n : new int[] {1, 5, 16, 37, 64}) {
        Random r = new Random(77 * n + (ppu ? 1 : 0));
        int m = 6;
        int k = 19;
        RequantParams[] params = new RequantParams[n];
        int[] bias = new int[n];
        for (int j = 0; j < n; j++) {
          params[j] = params(r);
          bias[j] = r.nextInt(4000) - 2000;
        }
        // odd N reads parameter bank 1 (ppm=2)
        Program prog = program(m, k, n, ppu, gemm(m, k, n, 1 + (n & 1), 1), Y);
        byte[] mem = image(r, prog, params, bias);
        IsaSimulator.Result res = IsaSimulator.run(machine(ppu), mem, 0);
        assertEquals(ErrorCause.NONE, res.error());
        int[][] acc = GemmPpmCommandTest.accumulators(mem, X, W, m, k, n);
        int saturated = 0;
        for (int i = 0; i < m; i++) {
          for (int j = 0; j < 64; j++) {
            int gate = mem[GATE + 64 * i + j];
            int got = res.memory()[OUT + 64 * i + j];
            if (j < n) {
              int want = Ppm.processGated(acc[i][j], gate, bias[j], params[j]);
              assertEquals(want, got, "q[" + i + "][" + j + "] ppu " + ppu + " n " + n);
              saturated += want == 127 || want == -128 ? 1 : 0;
            } else {
              assertEquals(gate, got, "byte " + j + " past N of row " + i + " keeps its gate code");
            }
          }
        }
        assertTrue(saturated < m * n, "not every code saturates");
        assertEquals((long) m * n, res.counter(Counter.PPM_ELEMENTS));
      }
    }
  }

  @Test
  void theDrainReadsOneGateLineEveryFourDrainLinesOnTheReadPortWithoutExtraCycles() {
    int m = 7;
    int k = 13;
    int n = 37;
    Random r = new Random(9);
    RequantParams[] params = new RequantParams[n];
    for (int j = 0; j < n; j++) {
      params[j] = params(r);
    }
    // the store reads X's rows, not the GEMM's results: beside a plain PPM GEMM's drain, after a gated one's
    IsaSimulator.Result plainBeside = run(program(m, k, n, false, gemm(m, k, n, 1, 0), 0), params);
    IsaSimulator.Result plainAfter = run(program(m, k, n, false, gemm(m, k, n, 1, 0), Y), params);
    IsaSimulator.Result gated = run(program(m, k, n, false, gemm(m, k, n, 1, 1), 0), params);
    assertEquals(plainAfter.counter(Counter.GEMM_CYCLES), gated.counter(Counter.GEMM_CYCLES));
    assertEquals(plainAfter.counter(Counter.CYCLES), gated.counter(Counter.CYCLES));
    assertTrue(plainBeside.counter(Counter.CYCLES) < gated.counter(Counter.CYCLES));
    // M·ceil(N/line) gate lines read (line 4: 10 a row)
    assertEquals(plainBeside.counter(Counter.SPAD_READS) + m * 10L, gated.counter(Counter.SPAD_READS));
    assertEquals(plainBeside.counter(Counter.SPAD_WRITES), gated.counter(Counter.SPAD_WRITES));
  }

  private static IsaSimulator.Result run(Program prog, RequantParams[] params) {
    IsaSimulator.Result res = IsaSimulator.run(machine(false), image(new Random(2), prog, params,
        new int[params.length]), 0);
    assertEquals(ErrorCause.NONE, res.error());
    return res;
  }

  @Test
  void checks() {
    Object[][] cases = {
        // the gate operand needs a PPM built with it
        {PpmAndSparseCommandTest.machine(false, Command.DENSE), gemm(1, 4, 4, 1, 1), ErrorCause.UNSUPPORTED},
        {machine(false), gemm(1, 4, 4, 1, 1), ErrorCause.NONE},
        // the table is not used: no pputab needed on a PPU NPU
        {machine(true), gemm(1, 4, 4, 1, 1), ErrorCause.NONE},
        {machine(true), gemm(1, 4, 4, 1, 0), ErrorCause.UNSUPPORTED},
        // the gate is a PPM operand: without ppm BAD_SHAPE, as with accumulate
        {machine(false), gemm(1, 4, 4, 0, 1), ErrorCause.BAD_SHAPE},
        {machine(false), new Command.Gemm(1, 4, 4, 0, 64, 1024, 64, Y, 64, Command.DENSE, 1, 0, 0, 1, 1),
            ErrorCause.BAD_SHAPE},
        // gated rows may not overlap (M > 1 and yStride < N); one row, or rows just apart, may
        {machine(false), new Command.Gemm(2, 4, 4, 0, 64, 1024, 64, Y, 0, Command.DENSE, 0, 0, 0, 1, 1),
            ErrorCause.BAD_SHAPE},
        {machine(false), new Command.Gemm(2, 4, 20, 0, 64, 1024, 64, Y, 16, Command.DENSE, 0, 0, 0, 1, 1),
            ErrorCause.BAD_SHAPE},
        {machine(false), new Command.Gemm(2, 4, 16, 0, 64, 1024, 64, Y, 16, Command.DENSE, 0, 0, 0, 1, 1),
            ErrorCause.NONE},
        {machine(false), new Command.Gemm(1, 4, 4, 0, 64, 1024, 64, Y, 0, Command.DENSE, 0, 0, 0, 1, 1),
            ErrorCause.NONE},
        // Y (and so the gate rows) N bytes a row, line-aligned
        {machine(false), new Command.Gemm(2, 4, 32, 0, 64, 1024, 64, 4096 - 64 - 28, 64, Command.DENSE, 0, 0, 0, 1, 1),
            ErrorCause.SPAD_ADDRESS},
        {machine(false), new Command.Gemm(2, 4, 32, 0, 64, 1024, 64, Y + 2, 64, Command.DENSE, 0, 0, 0, 1, 1),
            ErrorCause.SPAD_ADDRESS},
    };
    for (Object[] c : cases) {
      Program prog = Program.builder().ppmCfg(RECORDS, 4).add((Command) c[1]).halt().build();
      byte[] mem = new byte[1 << 20];
      for (int j = 0; j < 4; j++) {
        System.arraycopy(IsaSimulator.ppmRecord(0, QuantizedMultiplier.fromScale(0.01), 0), 0, mem, RECORDS + 16 * j, 16);
      }
      System.arraycopy(prog.bytes(), 0, mem, 0, prog.bytes().length);
      assertEquals(c[2], IsaSimulator.run((MachineParams) c[0], mem, 0).error(), Disassembler.disassemble(prog));
    }
  }

  @Test
  void textAndBinaryRoundTrip() {
    String text = "gemm m=1 k=8 n=4 x=0 xStride=16 w=64 wStride=16 y=128 yStride=16 ppm=2 gate=1\nhalt\n";
    Program p = Assembler.assemble(text, "t.npu").program();
    assertEquals(text, Disassembler.disassemble(p));
    assertEquals(1 << 24 | 1 << 23 | 1 << 21, p.words(0)[2] & (7 << 21 | 1 << 24));
    assertArrayEquals(p.words(0), CommandCodec.encode(CommandCodec.decode(p.words(0)).orElseThrow()));
    assertEquals(1, ((Command.Gemm) CommandCodec.decode(p.words(0)).orElseThrow()).gate());
    assertTrue(org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
        () -> CommandCodec.encode(gemm(1, 4, 4, 1, 2))).getMessage().contains("gemm gate"));
  }
}
