package org.llmnpu.cosim;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.llmnpu.isa.Command;
import org.llmnpu.isa.Counter;
import org.llmnpu.isa.Disassembler;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.isa.Program;

/**
 * DSP copies and stores beside a GEMM whose drain reads the scratchpad ({@code gemm ppm=1 gate=1}, scratchpad or
 * streamed W, and {@code gemm accumulate=1}), npu-isa README, Overlap: a {@code dspin} clear of the GEMM's Y range goes
 * at once and has the read port while it reads — the drain's start is held, a running drain pauses (one read port); a
 * {@code dspin} of Y waits for the back-end; a {@code dspout} clear of Y pauses the drain too (beside the gated one
 * from its decode, once the codes in flight landed); every {@code store} waits.
 * Random programs of them (1..8 copied rows, fences between, the copies' data stored through a last {@code dspout})
 * are bit-exact with the golden ISA simulator, every counter equal, RTL cycles = {@code CycleModel}'s; and a
 * {@code dspin} after a gated GEMM runs beside it (fewer cycles than after a fence) and holds or pauses its drain.
 */
class DspInBesideReadingDrainCosimTest {
  @RegisterExtension
  static final NpuRtlFixture NPU = new NpuRtlFixture(GatedGemmCosimTest.SMALL_GATED);

  private static byte[] image(MachineParams p, long seed) {
    byte[] image = ProgramErrorCases.ppmRecordsImage(p);
    byte[] noise = new byte[0x40000];
    new Random(seed).nextBytes(noise);
    System.arraycopy(noise, 0, image, 0x10000, noise.length);
    return image;
  }

  /** X at 0, scratchpad W at 256 (or streamed from 0x11000), Y at 1024: gated INT8 codes, or INT32 accumulated. */
  private static void readingGemm(Program.Builder b, Random r, boolean gated, boolean streamed, int m, int k, int n) {
    // the DSP buffer rows the copies' last dspouts read, written first (the RTL keeps the previous program's state)
    b.load(0x10000, 16, 0, 16, k, m).load(0x30000, 64, 2048, 64, 64, 8)
        .dspIn(2048, 64, 32, 8, 0, Command.FMT_INT8, 0).dspIn(2048, 64, 16, 4, 64, Command.FMT_INT8, 0);
    if (!streamed) {
      b.load(0x11000, 16, 256, 16, n, k);
    }
    if (gated) {
      int bank = r.nextInt(2);
      b.ppmCfg(0x8400, n, 0, bank).load(0x12000, 16, 1024, 16, n, m);
      b.add(new Command.Gemm(m, k, n, 0, 16, streamed ? 0x11000 : 256, 16, 1024, 16, Command.DENSE, 0,
          streamed ? 1 : 0, 0, bank + 1, 1));
    } else {
      b.load(0x12000, 64, 1024, 64, 4L * n, m).gemm(m, k, n, 0, 16, 256, 16, 1024, 64, Command.DENSE, true);
    }
  }

  @Test
  void randomCopiesAndStoresBesideGatedAndAccumulatingDrainsAreExact() {
    MachineParams p = NPU.rtl().config().machine();
    Random r = new Random(4301);
    int[] kinds = new int[5];
    for (int i = 0; i < 24; i++) {
      boolean gated = i % 3 != 2;
      boolean streamed = gated && r.nextBoolean();
      int m = 1 + r.nextInt(4);
      int k = 1 + r.nextInt(16);
      int n = 1 + r.nextInt(16);
      Program.Builder b = Program.builder();
      readingGemm(b, r, gated, streamed, m, k, n);
      int ops = 1 + r.nextInt(3);
      int outRows = 0;
      for (int j = 0; j < ops; j++) {
        int rows = 1 + r.nextInt(8);
        int kind = j == 0 && r.nextInt(3) > 0 ? 0 : r.nextInt(5);
        kinds[kind]++;
        switch (kind) {
          case 0 -> b.dspIn(2048, 64, 32, rows, 0, Command.FMT_INT8, 0);
          case 1 -> b.dspIn(1024, gated ? 16 : 64, n, m, 64, gated ? Command.FMT_INT8 : Command.FMT_INT32, 0);
          case 2 -> {
            b.dspOut(3072, 64, 32, rows, 0, Command.FMT_FP16);
            outRows = Math.max(outRows, rows);
          }
          case 3 -> b.store(0x40000, 64, 2048, 64, 64, rows);
          default -> b.fence();
        }
      }
      // only bytes this program wrote are stored (the RTL's scratchpad keeps the previous program's bytes)
      b.dspOut(3584, 64, 32, 4, 0, Command.FMT_FP16).dspOut(3840, 64, 16, 4, 64, Command.FMT_FP16)
          .store(0x20000, 64, 1024, gated ? 16 : 64, gated ? n : 4L * n, m).store(0x50000, 64, 3584, 64, 64, 4)
          .store(0x51000, 64, 3840, 64, 32, 4);
      if (outRows > 0) {
        b.store(0x52000, 64, 3072, 64, 64, outRows);
      }
      b.halt();
      Program prog = b.build();
      ProgramCosim.Outcome o = ProgramCosim.run(NPU.rtl(), RandomPrograms.place(image(p, i), prog, 0), 0);
      ProgramErrorCases.assertExact(o, "program " + i + ":\n" + Disassembler.disassemble(prog));
    }
    assertTrue(kinds[0] >= 10 && kinds[1] > 0 && kinds[2] > 0 && kinds[3] > 0, java.util.Arrays.toString(kinds));
  }

  @Test
  void aDspInClearOfYRunsBesideAGatedStreamAndHoldsItsDrain() {
    MachineParams p = NPU.rtl().config().machine();
    boolean held = false;
    boolean beside = false;
    for (int rows = 1; rows <= 8; rows++) {
      long[] cycles = new long[2];
      long[] gemm = new long[2];
      for (int fenced = 0; fenced < 2; fenced++) {
        Program.Builder b = Program.builder();
        readingGemm(b, new Random(5), true, true, 4, 16, 16);
        if (fenced == 1) {
          b.fence();
        }
        b.dspIn(2048, 64, 32, rows, 0, Command.FMT_INT8, 0).dspOut(3072, 64, 32, rows, 0, Command.FMT_FP16)
            .store(0x20000, 16, 1024, 16, 16, 4).store(0x50000, 64, 3072, 64, 64, rows).halt();
        Program prog = b.build();
        ProgramCosim.Outcome o = ProgramCosim.run(NPU.rtl(), RandomPrograms.place(image(p, 9), prog, 0), 0);
        ProgramErrorCases.assertExact(o, rows + " rows, fenced " + fenced + ":\n" + Disassembler.disassemble(prog));
        cycles[fenced] = o.rtl().counters().get(Counter.CYCLES);
        gemm[fenced] = o.rtl().counters().get(Counter.GEMM_CYCLES);
      }
      beside |= cycles[0] < cycles[1];
      held |= gemm[0] > gemm[1];
    }
    assertTrue(beside, "no dspin ran beside the gated GEMM");
    assertTrue(held, "no dspin length held the gated drain");
  }
}
