package org.llmnpu.cosim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.llmnpu.isa.Command;
import org.llmnpu.isa.Counter;
import org.llmnpu.isa.Disassembler;
import org.llmnpu.isa.IsaSimulator;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.isa.Program;
import org.llmnpu.numerics.ppu.PpuFitter;
import org.llmnpu.numerics.ppu.PpuFormat;
import org.llmnpu.numerics.ppu.PpuFunction;

/**
 * DSP copies beside long GEMM drains (npu-isa README, Overlap): a {@code dspout} clear of the GEMM's Y range goes at
 * once and has the scratchpad's write port — a drain that would start holds its start, a running one pauses for the
 * copy's cycles; beside a drain through the PPM ({@code ppm=1}) it holds the drain's feed from its decode and goes
 * once the codes in flight have landed ({@code L} cycles after their lines); a {@code dspin}
 * clear of Y goes at once and, beside a drain that reads the scratchpad ({@code gate=1}, {@code accumulate=1}), has
 * the read port the same way. The image holds a GELU table at 0x8000 and PPM records at 0x8400. Random programs of copies (1..8 rows) after a GEMM of each drain kind — plain INT32,
 * {@code ppm=1}, {@code ppm=1 gate=1}, {@code accumulate=1}, up to 128 drain lines — are bit-exact with the golden
 * ISA simulator, every counter equal, RTL cycles = {@code CycleModel}'s; and a copy inside a running drain pauses it
 * for its port cycles (the GEMM that many cycles longer than without the copy). Run with {@code -am}: without it the
 * cosim module takes npu-isa and npu-rtl from the local Maven repository.
 */
class DspCopiesShareTheDrainPortCosimTest {
  @RegisterExtension
  static final NpuRtlFixture NPU = new NpuRtlFixture(SharedNpus.SMALL_FEATURED);

  enum Drain { PLAIN, PPM, GATED, ACCUMULATE }

  private static byte[] image(MachineParams p, long seed) {
    byte[] image = ProgramErrorCases.ppmRecordsImage(p);
    byte[] table = IsaSimulator.ppuTableImage(PpuFitter.fit(PpuFunction.GELU, PpuFormat.DEFAULT));
    System.arraycopy(table, 0, image, 0x8000, table.length);
    byte[] noise = new byte[0x40000];
    new Random(seed).nextBytes(noise);
    System.arraycopy(noise, 0, image, 0x10000, noise.length);
    return image;
  }

  /**
   * X at 0, W at 256, Y at 1024 (INT32 rows of 64 bytes, INT8 codes of 16), the copies' source rows at 2048; the DSP
   * buffer rows the last {@code dspout}s read are written first (the RTL keeps the previous program's state).
   */
  private static void gemm(Program.Builder b, Drain d, int bank, int m, int k, int n) {
    b.load(0x10000, 16, 0, 16, k, m).load(0x30000, 64, 2048, 64, 64, 8)
        .dspIn(2048, 64, 32, 8, 0, Command.FMT_INT8, 0).dspIn(2048, 64, 16, 4, 64, Command.FMT_INT8, 0)
        .load(0x11000, 16, 256, 16, n, k);
    boolean codes = d == Drain.PPM || d == Drain.GATED;
    if (codes) {
      // a fused GEMM on a PPU NPU needs a loaded table unless gated
      b.ppuTab(0x8000).ppmCfg(0x8400, n, 0, bank).load(0x12000, 16, 1024, 16, n, m);
    } else {
      b.load(0x12000, 64, 1024, 64, 4L * n, m);
    }
    b.add(new Command.Gemm(m, k, n, 0, 16, 256, 16, 1024, codes ? 16 : 64, Command.DENSE,
        d == Drain.ACCUMULATE ? 1 : 0, 0, 0, codes ? bank + 1 : 0, d == Drain.GATED ? 1 : 0));
  }

  /** The copies' results and Y stored (only bytes this program wrote), then halt. */
  private static Program finish(Program.Builder b, Drain d, int m, int n, int outRows) {
    boolean codes = d == Drain.PPM || d == Drain.GATED;
    b.dspOut(3584, 64, 32, 4, 0, Command.FMT_FP16).dspOut(3840, 64, 16, 4, 64, Command.FMT_FP16)
        .store(0x20000, 64, 1024, codes ? 16 : 64, codes ? n : 4L * n, m).store(0x50000, 64, 3584, 64, 64, 4)
        .store(0x51000, 64, 3840, 64, 32, 4);
    if (outRows > 0) {
      b.store(0x52000, 64, 3072, 64, 64, outRows);
    }
    return b.halt().build();
  }

  @Test
  void randomCopiesBesideEveryDrainKindAreExact() {
    MachineParams p = NPU.rtl().config().machine();
    Random r = new Random(2312);
    int programs = 0;
    for (Drain d : Drain.values()) {
      for (int i = 0; i < 6; i++) {
        int m = 1 + r.nextInt(8);
        int k = 1 + r.nextInt(16);
        int n = 1 + r.nextInt(16);
        Program.Builder b = Program.builder();
        gemm(b, d, r.nextInt(2), m, k, n);
        int outRows = 0;
        for (int j = 2 + r.nextInt(4); j > 0; j--) {
          int rows = 1 + r.nextInt(8);
          if (r.nextBoolean()) {
            b.dspIn(2048, 64, 32, rows, 0, Command.FMT_INT8, 0);
          } else {
            b.dspOut(3072, 64, 32, rows, 0, Command.FMT_FP16);
            outRows = Math.max(outRows, rows);
          }
        }
        Program prog = finish(b, d, m, n, outRows);
        ProgramCosim.Outcome o = ProgramCosim.run(NPU.rtl(), RandomPrograms.place(image(p, programs), prog, 0), 0);
        ProgramErrorCases.assertExact(o, d + " program " + i + ":\n" + Disassembler.disassemble(prog));
        programs++;
      }
    }
    assertEquals(24, programs);
  }

  /**
   * A copy of {@code rows} rows after {@code lead} rows of {@code dspin} (which move it into the drain) beside a GEMM
   * of 8×4×16 (128 drain lines), and the same after a fence; returns {cycles, gemmCycles} of each, both runs exact.
   */
  private static long[] besideAndFenced(Drain d, boolean out, int lead, int rows) {
    MachineParams p = NPU.rtl().config().machine();
    long[] k = new long[4];
    for (int fenced = 0; fenced < 2; fenced++) {
      Program.Builder b = Program.builder();
      gemm(b, d, 0, 8, 4, 16);
      if (fenced == 1) {
        b.fence();
      }
      if (lead > 0) {
        b.dspIn(2048, 64, 32, lead, 0, Command.FMT_INT8, 0);
      }
      if (out) {
        b.dspOut(3072, 64, 32, rows, 0, Command.FMT_FP16);
      } else {
        b.dspIn(2048, 64, 32, rows, 0, Command.FMT_INT8, 0);
      }
      Program prog = finish(b, d, 8, 16, out ? rows : 0);
      ProgramCosim.Outcome o = ProgramCosim.run(NPU.rtl(), RandomPrograms.place(image(p, 77), prog, 0), 0);
      ProgramErrorCases.assertExact(o, d + " lead " + lead + " fenced " + fenced + ":\n"
          + Disassembler.disassemble(prog));
      k[2 * fenced] = o.rtl().counters().get(Counter.CYCLES);
      k[2 * fenced + 1] = o.rtl().counters().get(Counter.GEMM_CYCLES);
    }
    return k;
  }

  @Test
  void everyPhaseOfEveryDrainKindIsExact() {
    // leads of 0..12 dspin rows (8 cycles each) put a copy of 1 or 3 rows before the engine is done, at the drain's
    // start, inside it, at its end and in a fused drain's tail (128 drain lines + L)
    for (Drain d : Drain.values()) {
      for (int lead = 0; lead <= 12; lead++) {
        besideAndFenced(d, true, lead, 1 + 2 * (lead % 2));
        besideAndFenced(d, false, lead, 1 + 2 * (lead % 2));
      }
    }
  }

  /**
   * The GEMM cycles a copy of 2 rows adds when it runs after {@code lead} rows of {@code dspin} beside a GEMM of
   * 8×4×16 (128 drain lines) and before a fence: the same program without the copy is the reference (both exact).
   */
  private static long pauseOf(Drain d, boolean out, int lead) {
    MachineParams p = NPU.rtl().config().machine();
    long[] gemm = new long[2];
    for (int with = 0; with < 2; with++) {
      Program.Builder b = Program.builder();
      gemm(b, d, 0, 8, 4, 16);
      b.dspIn(2048, 64, 32, lead, 0, Command.FMT_INT8, 0);
      if (with == 1) {
        if (out) {
          b.dspOut(3072, 64, 32, 2, 0, Command.FMT_FP16);
        } else {
          b.dspIn(2048, 64, 32, 2, 0, Command.FMT_INT8, 0);
        }
      }
      Program prog = finish(b.fence(), d, 8, 16, out && with == 1 ? 2 : 0);
      ProgramCosim.Outcome o = ProgramCosim.run(NPU.rtl(), RandomPrograms.place(image(p, 78), prog, 0), 0);
      ProgramErrorCases.assertExact(o, d + " lead " + lead + ":\n" + Disassembler.disassemble(prog));
      gemm[with] = o.rtl().counters().get(Counter.GEMM_CYCLES);
    }
    return gemm[1] - gemm[0];
  }

  /**
   * After 6 and 8 rows of {@code dspin} (48, 64 cycles: the engine of K = 4 is done after about 20, the drain of 128
   * lines runs) a copy of 2 rows runs inside the drain and pauses it for exactly its {@code portCycles}; beside a drain
   * through the PPM ({@code portCycles} −1) for more than its 32 writing cycles: from its decode, while the codes in
   * flight land. (Before sharedport such a copy waited for the back-end: 0 more GEMM cycles.)
   */
  private static void assertPausedInside(Drain d, boolean out, long portCycles) {
    for (int lead = 6; lead <= 8; lead += 2) {
      long pause = pauseOf(d, out, lead);
      String what = d + (out ? " dspout" : " dspin") + " after " + lead + " rows: the GEMM " + pause + " cycles longer";
      if (portCycles < 0) {
        assertTrue(pause > 32, what);
      } else {
        assertEquals(portCycles, pause, what);
      }
    }
  }

  @Test
  void aDspoutInsideAPlainOrAccumulatingDrainPausesItForItsWritingCycles() {
    // 2 rows of 32 FP16 elements, 2 a cycle on 4-byte lines: 32 writing cycles
    assertPausedInside(Drain.PLAIN, true, 32);
    assertPausedInside(Drain.ACCUMULATE, true, 32);
  }

  @Test
  void aDspinInsideAGatedOrAccumulatingDrainPausesItForItsReadingCycles() {
    // 2 rows of 32 INT8 elements, 4 a cycle: 16 reading cycles (then DSP_DRAIN)
    assertPausedInside(Drain.GATED, false, 16);
    assertPausedInside(Drain.ACCUMULATE, false, 16);
  }

  @Test
  void aDspoutInsideADrainThroughThePpmPausesItsFeedFromItsDecode() {
    assertPausedInside(Drain.PPM, true, -1);
    assertPausedInside(Drain.GATED, true, -1);
  }
}
