package org.llmnpu.isa;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@code gemm xKeep=1} in the golden simulator: the GEMM computes with the X the engine's X buffer holds from the last
 * X copy (even after the scratchpad bytes it was copied from were overwritten), reads no X line, and its controller
 * time has no X copy; the checks (an NPU without {@code xKeep}, no held copy, another M, K or sparsity, X's operands
 * not read); encoding, assembler and disassembler.
 */
class XKeepGemmCommandTest {
  private static final MachineParams P = IsaSimulatorTest.P.withXKeep(true);
  private static final long X_EXT = 0x10000;
  private static final long W_EXT = 0x20000;
  private static final long Y_EXT = 0x40000;
  private static final int M = 6;
  private static final int K = 10;
  private static final int N = 7;
  /** X rows of 12 bytes at 0, W rows (K of 8 bytes, two matrices) at 0x100 and 0x200, Y rows of 28 bytes at 0x400. */
  private static final long XS = 12;
  private static final long WS = 8;
  private static final long YS = 28;
  private static final long Y2 = 0x600;

  /**
   * X and two W loaded; GEMM 1 (X·W1) copies X; then (with {@code clobber}) X's scratchpad rows are overwritten from
   * other memory bytes; GEMM 2 (X·W2) either keeps X or copies it again; both Y stored.
   */
  private static Program program(boolean keep, boolean clobber, boolean streamed) {
    Program.Builder b = Program.builder().load(X_EXT, XS, 0, XS, K, M)
        .load(W_EXT, WS, 0x100, WS, N, K).load(W_EXT + 0x1000, WS, 0x200, WS, N, K)
        .add(gemm(0x100, 0x400, false, streamed));
    if (clobber) {
      b.load(X_EXT + 0x2000, XS, 0, XS, K, M);
    }
    return b.add(gemm(0x200, Y2, keep, streamed))
        .store(Y_EXT, YS, 0x400, YS, 4L * N, M).store(Y_EXT + 0x1000, YS, Y2, YS, 4L * N, M).halt().build();
  }

  /** X·W into {@code y}: W at scratchpad {@code w}, or (streamed) at memory {@code W_EXT + 2·(w − 0x100)·16}. */
  private static Command.Gemm gemm(long w, long y, boolean keep, boolean streamed) {
    long wAt = streamed ? W_EXT + (w - 0x100) * 16 : w;
    return new Command.Gemm(M, K, N, 0, XS, wAt, WS, y, YS, Command.DENSE, 0, streamed ? 1 : 0, 0, 0, 0,
        keep ? 1 : 0);
  }

  private static IsaSimulator.Result run(MachineParams p, Program prog, long seed) {
    byte[] mem = new byte[(int) p.extMemBytes()];
    new Random(seed).nextBytes(mem);
    System.arraycopy(prog.bytes(), 0, mem, 0, prog.bytes().length);
    return IsaSimulator.run(p, mem, 0);
  }

  private static byte[] ys(IsaSimulator.Result r) {
    return Arrays.copyOfRange(r.memory(), (int) Y_EXT, (int) Y_EXT + 0x1000 + (int) ((M - 1) * YS + 4L * N));
  }

  @Test
  void keptXGivesTheResultsOfTheCopiedXEvenAfterItsScratchpadBytesChanged() {
    for (boolean streamed : new boolean[] {false, true}) {
      for (long seed = 1; seed <= 4; seed++) {
        IsaSimulator.Result copied = run(P, program(false, false, streamed), seed);
        IsaSimulator.Result kept = run(P, program(true, false, streamed), seed);
        IsaSimulator.Result keptAfterClobber = run(P, program(true, true, streamed), seed);
        IsaSimulator.Result copiedAfterClobber = run(P, program(false, true, streamed), seed);
        assertEquals(ErrorCause.NONE, kept.error());
        assertArrayEquals(ys(copied), ys(kept), "streamed " + streamed + " seed " + seed);
        assertArrayEquals(ys(copied), ys(keptAfterClobber), "the X buffer, not the scratchpad, is read");
        assertTrue(!Arrays.equals(ys(copied), ys(copiedAfterClobber)), "the clobber changes a copied X");
        long xLines = M * ((K + P.rows() - 1) / P.rows());
        assertEquals(copied.counter(Counter.SPAD_READS) - xLines, kept.counter(Counter.SPAD_READS),
            "no X line read");
        // a scratchpad-W GEMM's engine starts after the copies: M·ceil(K/rows) cycles earlier; a streamed one here
        // waits for its W beats, which the X copy went beside
        long saved = copied.counter(Counter.CYCLES) - kept.counter(Counter.CYCLES);
        assertTrue(streamed ? saved >= 0 : saved == xLines, "saved " + saved + " streamed " + streamed);
      }
    }
  }

  @Test
  void controllerTakesTheNextCommandTheCycleAfterGemmStartAndPassesFindXReady() {
    int rows = P.rows();
    long kTiles = (K + rows - 1) / rows;
    // scratchpad W: the controller copies W only, then GEMM_START
    CycleModel copied = new CycleModel(P);
    copied.gemm(M, K, N, K, false, false, 0x400, 0x600);
    CycleModel kept = new CycleModel(P);
    kept.gemm(M, K, N, K, false, true, 0x400, 0x600);
    assertEquals(CycleFormulas.weightCopyCycles(P, K, N) + 1, kept.now());
    assertEquals(copied.now() - M * kTiles, kept.now());
    assertEquals(copied.backEndIdleFrom() - M * kTiles, kept.backEndIdleFrom(), "the same engine run after the copy");
    // streamed W: GEMM_START is the command's first cycle
    CycleModel streamed = new CycleModel(P);
    streamed.streamedGemm(M, K, N, false, 0, false, true, 0x400, 0x600);
    assertEquals(1, streamed.now());
    CycleModel streamedCopy = new CycleModel(P);
    streamedCopy.streamedGemm(M, K, N, false, 0, false, false, 0x400, 0x600);
    assertEquals(M * kTiles + 1, streamedCopy.now());
    assertTrue(streamed.backEndIdleFrom() <= streamedCopy.backEndIdleFrom());
  }

  @Test
  void checksNeedTheNpusXKeepAndACopyOfTheSameShape() {
    Command.Gemm keep = gemm(0x100, 0x400, true, false);
    HeldX held = new HeldX();
    held.copy(new byte[M][K], keep);
    CommandChecks checks = new CommandChecks(P);
    assertEquals(ErrorCause.NONE, checks.check(keep, false, held));
    assertEquals(ErrorCause.UNSUPPORTED, new CommandChecks(IsaSimulatorTest.P).check(keep, false, held));
    assertEquals(ErrorCause.UNSUPPORTED, new CommandChecks(P, EngineTiming.pim(2)).check(keep, false, held));
    assertEquals(ErrorCause.BAD_SHAPE, checks.check(keep, false, new HeldX()), "nothing held after reset");
    HeldX otherM = new HeldX();
    otherM.copy(new byte[M - 1][K], new Command.Gemm(M - 1, K, N, 0, XS, 0x100, WS, 0x400, YS));
    assertEquals(ErrorCause.BAD_SHAPE, checks.check(keep, false, otherM));
    HeldX otherK = new HeldX();
    otherK.copy(new byte[M][K - 1], new Command.Gemm(M, K - 1, N, 0, XS, 0x100, WS, 0x400, YS));
    assertEquals(ErrorCause.BAD_SHAPE, checks.check(keep, false, otherK));
    HeldX otherMode = new HeldX();
    otherMode.copy(new byte[M][K], new Command.Gemm(M, K, N, 0, XS, 0x100, WS, 0x400, YS, Command.S2_4));
    assertEquals(ErrorCause.BAD_SHAPE, checks.check(keep, false, otherMode));
    // X's operands are not read: an X beyond the scratchpad or unaligned is no error with xKeep
    Command.Gemm farX = new Command.Gemm(M, K, N, P.spadBytes() + 3, 5, 0x100, WS, 0x400, YS, Command.DENSE, 0, 0, 0,
        0, 0, 1);
    assertEquals(ErrorCause.NONE, checks.check(farX, false, held));
    assertEquals(ErrorCause.SPAD_ADDRESS, checks.check(farX.withXKeep(0), false, held));
    // in a program: a kept-X GEMM before any copy halts with BAD_SHAPE at that command
    Program first = Program.builder().add(keep).halt().build();
    IsaSimulator.Result r = run(P, first, 1);
    assertEquals(ErrorCause.BAD_SHAPE, r.error());
    assertEquals(0, r.errorCommand());
  }

  /**
   * An NPU with more memory than a JVM array (3 GiB) runs on a bounded image, and a kept-X GEMM is checked against the
   * image's end as any other command: inside it, the whole-memory run's results and counters; its W streamed from
   * beyond it (the NPU's own checks pass), an error naming the command. {@code withExtMemBytes} keeps {@code xKeep}.
   */
  @Test
  void aBoundedImageChecksAKeptXGemmAsAnyOther() {
    MachineParams big = P.withExtMemBytes(3L << 30);
    assertTrue(big.xKeep());
    byte[] mem = new byte[(int) P.extMemBytes()];
    new Random(5).nextBytes(mem);
    IsaSimulatorTest.assertBoundedRunsAsWhole(P, big, program(true, false, true), mem);

    Command.Gemm farW = new Command.Gemm(M, K, N, 0, XS, 2L << 30, WS, Y2, YS, Command.DENSE, 0, 1, 0, 0, 0, 1);
    Program beyond = Program.builder().load(X_EXT, XS, 0, XS, K, M).add(gemm(0x100, 0x400, false, true)).add(farW)
        .halt().build();
    System.arraycopy(beyond.bytes(), 0, mem, 0, beyond.bytes().length);
    IllegalStateException e = assertThrows(IllegalStateException.class, () -> IsaSimulator.run(big, mem, 0));
    assertTrue(e.getMessage().contains("command 2") && e.getMessage().contains("beyond the bounded memory image"),
        e.getMessage());
  }

  @Test
  void encodesAsWord2Bit25AndRoundTripsThroughTheAssembler() {
    Command.Gemm keep = gemm(0x100, 0x400, true, true);
    int[] w = CommandCodec.encode(keep);
    assertEquals(1, (w[2] >>> 25) & 1);
    assertEquals(keep, CommandCodec.decode(w).orElseThrow());
    assertEquals(0, (CommandCodec.encode(keep.withXKeep(0))[2] >>> 25) & 1);
    Program p = Program.builder().add(keep).halt().build();
    String text = Disassembler.disassemble(p);
    assertTrue(text.contains("xKeep=1"), text);
    assertArrayEquals(p.bytes(), Assembler.assemble(text, "d.npu").program().bytes());
  }
}
