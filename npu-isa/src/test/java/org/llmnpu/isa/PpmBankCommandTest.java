package org.llmnpu.isa;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.llmnpu.numerics.ppu.PpuFitter;
import org.llmnpu.numerics.ppu.PpuFormat;
import org.llmnpu.numerics.ppu.PpuFunction;
import org.llmnpu.numerics.requant.QuantizedMultiplier;

/**
 * The PPM's two parameter banks in the golden simulator: {@code ppmcfg bank=}, {@code gemm ppm=2}; encoding,
 * results (as if the banks were one memory reloaded between the GEMMs) and the dispatch of a {@code ppmcfg} beside
 * a GEMM whose PPM reads the other bank.
 */
class PpmBankCommandTest {
  private static final int RECORDS = 0x8000;
  private static final int TABLE = 0xC000;

  @Test
  void bankAndPpm2RoundTripThroughTheEncoding() {
    Command cfg = new Command.PpmCfg(0x400, 3, 5, 1);
    int[] w = CommandCodec.encode(cfg);
    assertEquals(1, w[4]);
    assertEquals(cfg, CommandCodec.decode(w).orElseThrow());
    Command.Gemm g = new Command.Gemm(2, 8, 6, 0, 64, 1024, 64, 2048, 64, Command.DENSE, 0, 0, 0, 2);
    int[] gw = CommandCodec.encode(g);
    assertEquals(1, (gw[2] >>> 21) & 1);
    assertEquals(1, (gw[2] >>> 23) & 1);
    Command.Gemm back = (Command.Gemm) CommandCodec.decode(gw).orElseThrow();
    assertEquals(g, back);
    assertEquals(1, back.ppmBank());
    assertEquals(0, new Command.Gemm(2, 8, 6, 0, 64, 1024, 64, 2048, 64, Command.DENSE, 0, 0, 0, 1).ppmBank());
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> CommandCodec.encode(
        new Command.Gemm(2, 8, 6, 0, 64, 1024, 64, 2048, 64, Command.DENSE, 0, 0, 0, 3)));
    assertTrue(e.getMessage().contains("gemm ppm must be 0, 1"), e.getMessage());
    String text = "ppmcfg ext=0x400 channels=3 first=5 bank=1\n"
        + "gemm m=2 k=8 n=6 x=0 xStride=64 w=1024 wStride=64 y=2048 yStride=64 ppm=2\nhalt\n";
    Program p = Assembler.assemble(text, "banks.npu").program();
    assertEquals(cfg, CommandCodec.decode(p.words(0)).orElseThrow());
    assertEquals(g, CommandCodec.decode(p.words(1)).orElseThrow());
    String dis = Disassembler.disassemble(p);
    assertTrue(dis.contains("bank=1") && dis.contains("ppm=2"), dis);
  }

  @Test
  void aBankAbove1IsABadShape() {
    MachineParams mp = machine();
    byte[] mem = new byte[1 << 20];
    Program prog = Program.builder().ppmCfg(RECORDS, 2, 0, 2).halt().build();
    System.arraycopy(prog.bytes(), 0, mem, 0, prog.bytes().length);
    assertEquals(ErrorCause.BAD_SHAPE, IsaSimulator.run(mp, mem, 0).error());
  }

  /**
   * Bank 0 and bank 1 each loaded once, then {@code ppm=1} and {@code ppm=2}: the same codes as one bank reloaded
   * between two {@code ppm=1} GEMMs; with the second {@code ppmcfg} after the first GEMM, into the other bank it
   * goes beside that GEMM's drain and the program ends earlier than with it into the same bank.
   */
  @Test
  void eachGemmReadsItsBankAndTheOtherBankLoadsBesideTheDrain() {
    int m = 32;
    int k = 16;
    int n = 32;
    Program oneBank = program(m, k, n, false, 0);
    Program twoBanks = program(m, k, n, false, 1);
    Program upfront = program(m, k, n, true, 1);
    IsaSimulator.Result a = run(oneBank);
    IsaSimulator.Result b = run(twoBanks);
    IsaSimulator.Result c = run(upfront);
    assertEquals(ErrorCause.NONE, a.error());
    byte[] ya = Arrays.copyOfRange(a.memory(), 0x20000, 0x20000 + 2 * m * n);
    assertArrayEquals(ya, Arrays.copyOfRange(b.memory(), 0x20000, 0x20000 + 2 * m * n));
    assertArrayEquals(ya, Arrays.copyOfRange(c.memory(), 0x20000, 0x20000 + 2 * m * n));
    // the two parameter sets differ, so the two GEMMs' codes do
    assertTrue(!Arrays.equals(Arrays.copyOfRange(ya, 0, m * n), Arrays.copyOfRange(ya, m * n, 2 * m * n)));
    assertEquals(a.counter(Counter.PPM_CYCLES), b.counter(Counter.PPM_CYCLES));
    assertTrue(b.counter(Counter.CYCLES) < a.counter(Counter.CYCLES),
        "other bank " + b.counter(Counter.CYCLES) + " vs same bank " + a.counter(Counter.CYCLES));
  }

  /** ppmcfg A, GEMM, ppmcfg B (bank {@code secondBank}), GEMM; {@code upfront}: both ppmcfgs before the first GEMM. */
  private static Program program(int m, int k, int n, boolean upfront, int secondBank) {
    Program.Builder b = Program.builder().ppuTab(TABLE).load(0x10000, k, 0, k, k, m).load(0x11000, n, 1024, n, n, k)
        .ppmCfg(RECORDS, n, 0, 0);
    if (upfront) {
      b.ppmCfg(RECORDS + 16 * n, n, 0, secondBank);
    }
    b.add(new Command.Gemm(m, k, n, 0, k, 1024, n, 1536, n, Command.DENSE, 0, 0, 0, 1));
    if (!upfront) {
      b.ppmCfg(RECORDS + 16 * n, n, 0, secondBank);
    }
    return b.add(new Command.Gemm(m, k, n, 0, k, 1024, n, 1536 + m * n, n, Command.DENSE, 0, 0, 0, 1 + secondBank))
        .store(0x20000, n, 1536, n, n, 2 * m).halt().build();
  }

  private static IsaSimulator.Result run(Program prog) {
    byte[] mem = new byte[1 << 20];
    new Random(3).nextBytes(mem);
    Random r = new Random(4);
    for (int j = 0; j < 64; j++) {
      byte[] rec = IsaSimulator.ppmRecord(r.nextInt(2000) - 1000, QuantizedMultiplier.fromScale(0.001 + 0.004 * r.nextDouble()),
          r.nextInt(20) - 10);
      System.arraycopy(rec, 0, mem, RECORDS + 16 * j, 16);
    }
    byte[] t = IsaSimulator.ppuTableImage(PpuFitter.fit(PpuFunction.SILU, PpuFormat.DEFAULT));
    System.arraycopy(t, 0, mem, TABLE, t.length);
    System.arraycopy(prog.bytes(), 0, mem, 0, prog.bytes().length);
    return IsaSimulator.run(machine(), mem, 0);
  }

  private static MachineParams machine() {
    return PpmAndSparseCommandTest.machine(true, Command.DENSE);
  }
}
