package org.llmnpu.isa;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.Random;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * The W stream of a {@code gemm wStream=1} beside the controller (npu-isa README, Overlap, *W stream beside the
 * controller*): the controller takes the next command the cycle after the start; until the stream's last W write
 * only a {@code dspin}, a {@code dspout} or a resident {@code dsprun} dispatches, every other command waits for it.
 */
class DspBesideStreamTest {
  /** Four commands in the queue: three read ahead, which the controller can take while the stream holds the port. */
  private static final MachineParams P = DspCommandTest.P.withCommandQueueDepth(4);

  /** A streamed 8×64×64 GEMM (64 W beats of 64 bytes on 16-byte lines: 256 beats), results at [4096, 6144). */
  private static CycleModel streamRunning() {
    CycleModel m = new CycleModel(P);
    m.fetchAndDecode();
    m.dispatch(false, false);
    m.streamedGemm(8, 64, 64, false, 0, 4096, 6144);
    m.fetchAndDecode();
    return m;
  }

  @Test
  void dspCopiesGoBesideTheStreamEveryOtherCommandWaitsForItsLastWrite() {
    CycleModel in = streamRunning();
    long decoded = in.now();
    in.dispatchDspCopy(true, 0, 1024);
    assertEquals(decoded, in.now(), "dspin outside the results goes at once");
    CycleModel out = streamRunning();
    out.dispatchDspCopy(false, 8192, 8192 + 256);
    assertEquals(decoded, out.now(), "dspout outside the results goes at once");

    CycleModel resident = streamRunning();
    resident.dispatchResidentRun();
    assertEquals(decoded, resident.now(), "a resident dsprun (loads nothing) goes at once");

    CycleModel run = streamRunning();
    run.dispatchBeside();
    CycleModel load = streamRunning();
    load.dispatch(true, false);
    CycleModel store = streamRunning();
    store.dispatch(false, true);
    assertTrue(run.now() > decoded + 200, "a loading dsprun waits for the 256 W beats: " + run.now() + " vs " + decoded);
    assertEquals(run.now(), load.now(), "a load waits for the stream as a dsprun (the drain starts later)");
    assertEquals(run.now(), store.now(), "an independent store waits for the stream too");

    CycleModel fence = streamRunning();
    fence.dispatch(false, false);
    assertTrue(fence.now() > run.now(), "fence waits for the back-end, after the stream");
  }

  @Test
  void aDspInBesideTheStreamEndsTheProgramEarlierWithTheSameResults() {
    byte[] mem = new byte[1 << 20];
    new Random(7).nextBytes(mem);
    // the X codes into the DSP buffer and back out as FP16: beside the stream, or after the GEMM
    IsaSimulator.Result[] r = besideAndFenced(mem, b -> b.load(0x8000, 64, 0, 64, 64, 8),
        b -> b.dspIn(0, 64, 64, 8, 0, Command.FMT_INT8, 0).dspOut(8192, 128, 64, 8, 0, Command.FMT_FP16)
            .store(0x40000, 128, 8192, 128, 128, 8));
    assertArrayEquals(Arrays.copyOfRange(r[1].memory(), 0x40000, 0x42000),
        Arrays.copyOfRange(r[0].memory(), 0x40000, 0x42000));
    long beside = r[0].counter(Counter.CYCLES);
    long fenced = r[1].counter(Counter.CYCLES);
    assertTrue(beside + 100 < fenced, "beside " + beside + " vs fenced " + fenced);
  }

  @Test
  void aResidentDspRunBesideTheStreamEndsTheProgramEarlierWithTheSameResults() {
    byte[] mem = new byte[1 << 20];
    new Random(9).nextBytes(mem);
    long[] fill = fillRows(0x3C00, 4);
    for (int i = 0; i < fill.length; i++) {
      for (int j = 0; j < 8; j++) {
        mem[0x9000 + 8 * i + j] = (byte) (fill[i] >>> (8 * j));
      }
    }
    IsaSimulator.Result[] r = besideAndFenced(mem,
        b -> b.dspLoad(0x9000, fill.length, 32).load(0x8000, 64, 0, 64, 64, 8),
        b -> b.dspRunResident(32).dspOut(8192, 128, 64, 4, 0, Command.FMT_FP16).store(0x40000, 128, 8192, 128, 128, 4));
    assertArrayEquals(Arrays.copyOfRange(r[1].memory(), 0x40000, 0x42000),
        Arrays.copyOfRange(r[0].memory(), 0x40000, 0x42000));
    assertEquals(0x3C00, (r[0].memory()[0x40000] & 0xFF) | (r[0].memory()[0x40001] & 0xFF) << 8, "the run's fill");
    long beside = r[0].counter(Counter.CYCLES);
    long fenced = r[1].counter(Counter.CYCLES);
    assertTrue(beside + 50 < fenced, "beside " + beside + " vs fenced " + fenced);
  }

  /**
   * Runs {@code setup}, a streamed GEMM, then {@code dspWork} and the GEMM's store: [0] with the DSP work beside the
   * stream, [1] with a fence before it.
   */
  private static IsaSimulator.Result[] besideAndFenced(byte[] mem, Consumer<Program.Builder> setup,
      Consumer<Program.Builder> dspWork) {
    IsaSimulator.Result[] r = new IsaSimulator.Result[2];
    for (int after = 0; after < 2; after++) {
      Program.Builder b = Program.builder();
      setup.accept(b);
      b.gemmStreamed(8, 64, 64, 0, 64, 0x10000, 64, 4096, 256, false);
      if (after == 1) {
        b.fence();
      }
      dspWork.accept(b);
      Program prog = b.store(0x41000, 256, 4096, 256, 256, 8).halt().build();
      byte[] image = mem.clone();
      System.arraycopy(prog.bytes(), 0, image, 0, prog.bytes().length);
      r[after] = IsaSimulator.run(P, image, 0);
      assertEquals(ErrorCause.NONE, r[after].error());
    }
    return r;
  }

  /** A DSP program that stores FP16 {@code value} into buffer rows 0..rows-1, then HALT. */
  private static long[] fillRows(int value, int rows) {
    org.llmnpu.isa.dsp.DspAssembler a = new org.llmnpu.isa.dsp.DspAssembler();
    a.emit(org.llmnpu.isa.dsp.DspOp.SETLEN, 0, 0, 0, 0, false, 0, 1 << 20);
    a.li(3, value);
    a.loop(rows, () -> a.store(0, 3));
    return a.finish("fill").words();
  }
}
