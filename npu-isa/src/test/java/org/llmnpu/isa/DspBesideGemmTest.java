package org.llmnpu.isa;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.Test;
import org.llmnpu.isa.dsp.DspKernel;
import org.llmnpu.isa.dsp.DspKernels;
import org.llmnpu.isa.dsp.DspLayout;
import org.llmnpu.isa.dsp.DspMath;
import org.llmnpu.isa.dsp.DspProgram;

/**
 * DSP commands beside the GEMM back-end (npu-isa README, Overlap): {@code dsprun} goes at once, a {@code dspin}
 * that reads none of the running GEMM's results goes at once, a {@code dspout} that writes none of them goes at once
 * too (beside a drain through the PPM once its codes in flight landed) and holds the drain's start, or pauses the drain, while it writes,
 * and a copy that touches the results waits for the back-end; beside a drain that reads the scratchpad (accumulate,
 * gate) a {@code dspin} clear of Y holds the drain's start, or pauses it, while it reads, and every store waits.
 */
class DspBesideGemmTest {
  static final MachineParams P = DspCommandTest.P;

  /** A GEMM of 8×64×16 with results at [4096, 4096 + 7·64 + 64), dispatched at the model's current cycle. */
  private static CycleModel gemmRunning() {
    CycleModel m = new CycleModel(P);
    m.fetchAndDecode();
    m.dispatch(false, false);
    m.gemm(8, 64, 16, 4096, 4096 + 7 * 64 + 64);
    m.fetchAndDecode();
    return m;
  }

  @Test
  void aDspRunAndACopyOutsideTheResultsGoAtOnceACopyOfTheResultsWaits() {
    CycleModel run = gemmRunning();
    long decoded = run.now();
    run.dispatchBeside();
    assertEquals(decoded, run.now(), "dsprun goes in its decode cycle's successor");

    CycleModel in = gemmRunning();
    in.dispatchDspCopy(true, 0, 1024);
    assertEquals(decoded, in.now(), "dspin outside the results");

    CycleModel out = gemmRunning();
    out.dispatchDspCopy(false, 8192, 8192 + 256);
    assertEquals(decoded, out.now(), "dspout outside the results, before the engine is done");

    CycleModel waits = gemmRunning();
    waits.dispatchDspCopy(true, 4096 + 64, 4096 + 128);
    CycleModel fenced = gemmRunning();
    fenced.dispatch(false, false);
    assertEquals(fenced.now(), waits.now(), "dspin of the results waits for the back-end");
    assertTrue(waits.now() > decoded + 20);
  }

  @Test
  void aDspOutHoldsTheDrainStartWhileItWrites() {
    CycleModel alone = gemmRunning();
    alone.dispatch(false, false);
    long[] a = new long[Counter.values().length];
    alone.fill(a);

    CycleModel out = gemmRunning();
    out.dispatchDspCopy(false, 8192, 8192 + 64 * 200);
    out.dspCopy(200, 32, 2, false);  // 800 cycles of writes: the engine is done meanwhile
    out.dispatch(false, false);
    long[] o = new long[Counter.values().length];
    out.fill(o);
    assertTrue(o[Counter.GEMM_CYCLES.ordinal()] > a[Counter.GEMM_CYCLES.ordinal()] + 500,
        "the drain waits for the dspout: " + o[Counter.GEMM_CYCLES.ordinal()] + " vs " + a[Counter.GEMM_CYCLES.ordinal()]);
  }

  /** As {@link #gemmRunning()}, the GEMM's drain reading Y over the read port (accumulate or gate). */
  private static CycleModel readingGemmRunning() {
    CycleModel m = new CycleModel(P);
    m.fetchAndDecode();
    m.dispatch(false, false);
    m.gemm(8, 64, 16, 4096, 4096 + 7 * 64 + 64);
    m.drainReadsY();
    m.fetchAndDecode();
    return m;
  }

  @Test
  void besideADrainThatReadsADspInClearOfYGoesAsALoadAndHoldsTheDrainWhileItReadsAStoreWaits() {
    long decoded = readingGemmRunning().now();
    CycleModel in = readingGemmRunning();
    in.dispatchDspCopy(true, 0, 1024);
    assertEquals(decoded, in.now(), "dspin clear of Y, before the engine is done");

    CycleModel idle = readingGemmRunning();
    idle.dispatch(false, false);
    CycleModel waits = readingGemmRunning();
    waits.dispatchDspCopy(true, 4096 + 64, 4096 + 128);
    assertEquals(idle.now(), waits.now(), "dspin of Y waits for the back-end");
    assertTrue(readingGemmRunning().resultsOverlap(0, 64), "a store clear of Y waits: the drain reads the port");
    assertTrue(!gemmRunning().resultsOverlap(0, 64));

    long[] a = new long[Counter.values().length];
    idle.fill(a);
    CycleModel held = readingGemmRunning();
    held.dispatchDspCopy(true, 8192, 8192 + 64 * 200);
    held.dspCopy(200, 32, 2, true);  // 800 cycles of reads (then DSP_DRAIN): the engine is done meanwhile
    long afterCopy = held.now();
    held.dispatch(false, false);
    long[] h = new long[Counter.values().length];
    held.fill(h);
    long drainLines = 8 * ((4L * 16 + P.lineBytes() - 1) / P.lineBytes());
    assertEquals(afterCopy - 1 + drainLines + 1, held.now() - 1,
        "the drain starts in the dspin's DSP_DRAIN cycle, after its last read");
    assertTrue(h[Counter.GEMM_CYCLES.ordinal()] > a[Counter.GEMM_CYCLES.ordinal()] + 500);

    CycleModel plain = gemmRunning();
    plain.dispatchDspCopy(true, 8192, 8192 + 64 * 200);
    plain.dspCopy(200, 32, 2, true);
    plain.dispatch(false, false);
    long[] q = new long[Counter.values().length];
    plain.fill(q);
    assertEquals(a[Counter.GEMM_CYCLES.ordinal()], q[Counter.GEMM_CYCLES.ordinal()],
        "a drain that reads no scratchpad byte runs beside the dspin");
  }

  /** A random memory image with {@code program} at 0x20000 and the DSP's tables at 0x30000. */
  private static byte[] randomImageWith(DspProgram program) {
    byte[] image = new byte[1 << 20];
    new Random(3).nextBytes(image);
    DspCommandTest.putLongs(image, 0x20000, program.words());
    System.arraycopy(IsaSimulator.dspTableImage(DspMath.DEFAULT), 0, image, 0x30000, Command.DSP_TABLE_BYTES);
    return image;
  }

  @Test
  void softmaxBesideTheNextGemmHasTheFencedResultsInFewerCycles() {
    int len = 16;
    DspLayout layout = new DspLayout(DspKernel.SOFTMAX, len, 16);
    DspProgram softmax = DspKernels.compile(DspKernel.SOFTMAX, len, 16, 0f, DspMath.DEFAULT);
    byte[] mem = randomImageWith(softmax);
    IsaSimulator.Result[] r = new IsaSimulator.Result[2];
    for (int fenced = 0; fenced < 2; fenced++) {
      Program.Builder b = Program.builder().dspTab(0x30000)
          .load(0x8000, 64, 0, 64, 64, 16).load(0x9000, 16, 1024, 16, 16, 64)
          .gemm(1, 64, 16, 0, 64, 1024, 16, 2048, 64);
      // head group h's scores are in: the softmax of h and its probabilities' dspout run beside GEMM h + 1
      b.dspIn(2048, 64, 16, 1, layout.inputBase(0), Command.FMT_INT32, -10)
          .gemm(16, 64, 16, 0, 64, 1024, 16, 4096, 64);
      if (fenced == 1) {
        b.fence();
      }
      b.dspRun(0x20000, softmax.size())
          .dspOut(8192, 64, len, 1, layout.outputBase(0), Command.FMT_FP16)
          .dspIn(4096, 64, 16, 16, layout.inputBase(0), Command.FMT_INT32, -10)
          .store(0x40000, 64, 8192, 64, 32, 1).store(0x41000, 64, 4096, 64, 64, 16).halt();
      Program prog = b.build();
      byte[] image = mem.clone();
      System.arraycopy(prog.bytes(), 0, image, 0, prog.bytes().length);
      r[fenced] = IsaSimulator.run(P, image, 0);
      assertEquals(ErrorCause.NONE, r[fenced].error());
    }
    assertArrayEquals(java.util.Arrays.copyOfRange(r[1].memory(), 0x40000, 0x42000),
        java.util.Arrays.copyOfRange(r[0].memory(), 0x40000, 0x42000));
    long beside = r[0].counter(Counter.CYCLES);
    long after = r[1].counter(Counter.CYCLES);
    assertTrue(beside < after, "beside " + beside + " vs fenced " + after);
  }
}
