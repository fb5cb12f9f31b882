package org.llmnpu.isa;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.Test;
import org.llmnpu.numerics.requant.RequantParams;

/**
 * A PPM as wide as the line ({@link MachineParams#ppmWide}): a {@code gemm ppm=1}'s drain takes
 * {@code M·ceil(N/line)} cycles (one N tile of a row, {@code line} INT32 results, a cycle; its codes written as one line)
 * instead of {@code M·ceil(4N/line)}; the codes, the bytes around them and every other counter are the narrow PPM's.
 * The rules of the npu-isa README's Cycle model rows "{@code gemm}, ppm" and "{@code gemm}, ppm, gate" (wide).
 */
class WidePpmDrainTest {
  static final MachineParams P16 = DspCommandTest.P.withUnits(9, false, Command.DENSE);
  static final long Y = 4096;
  static final long Y_END = Y + 8 * 64;

  @Test
  void theLanesAndTheDrainLines() {
    assertEquals(4, P16.ppmLanes());
    assertEquals(16, P16.withPpmWide(true).ppmLanes());
    // ragged N: 70 columns on 16-byte lines are 18 INT32 lines a row, 5 lines of codes
    assertEquals(3 * 18, P16.ppmDrainLines(3, 70));
    assertEquals(3 * 5, P16.withPpmWide(true).ppmDrainLines(3, 70));
    assertEquals(1, P16.withPpmWide(true).ppmDrainLines(1, 1));
    assertEquals(P16, P16.withPpmWide(true).withPpmWide(false));
    assertTrue(P16.withPpmWide(true).withXKeep(true).withPpmGate(true).withCommandQueueDepth(4).ppmWide(),
        "the with-methods keep it");
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> DspCommandTest.P.withPpmWide(true));
    assertTrue(e.getMessage().contains("ppmWide needs a PPM"), e.getMessage());
  }

  /** The back-end of one GEMM of 8×64×N, through the PPM or not, on a narrow or wide PPM: its first idle cycle. */
  private static long idle(MachineParams p, int n, boolean ppm, boolean streamed) {
    GemmBackEnd back = new GemmBackEnd(p, EngineTiming.SYSTOLIC);
    if (streamed) {
      back.streamedGemm(10, (beats, gap) -> 10 + (beats - 1) * gap, 8, 64, n, false, 0, false, true, Y, Y_END);
    } else {
      back.gemm(10, 8, 64, n, 64, false, false);
      back.results(Y, Y_END);
    }
    if (ppm) {
      back.drainThroughPpm(1);
    }
    long d = back.drainCandidate();
    long idle = back.idleFrom(0);
    assertEquals(idle, back.finish(0));
    return idle - d;
  }

  @Test
  void aWidePpmDrainsOneNTileOfARowACycleThenTheTail() {
    MachineParams wide = P16.withPpmWide(true);
    int l = P16.ppmLatency();
    for (boolean streamed : new boolean[] {false, true}) {
      for (int n : new int[] {1, 4, 15, 16, 17, 70, 128}) {
        long narrowLines = 8L * ((4L * n + 15) / 16);
        long wideLines = 8L * ((n + 15) / 16);
        assertEquals(narrowLines + l + 1, idle(P16, n, true, streamed), "narrow, n " + n);
        assertEquals(wideLines + l + 1, idle(wide, n, true, streamed), "wide, n " + n);
        // an INT32 drain (no PPM) is the same on both
        assertEquals(narrowLines + 1, idle(wide, n, false, streamed), "wide PPM, INT32 drain, n " + n);
      }
    }
  }

  @Test
  void aPpmcfgOfTheOtherBankStillGoesBesideAndOfItsBankWaitsForTheShorterDrain() {
    MachineParams wide = P16.withPpmWide(true);
    GemmBackEnd back = new GemmBackEnd(wide, EngineTiming.SYSTOLIC);
    DispatchRules rules = new DispatchRules(back);
    long next = back.gemm(10, 8, 64, 70, 64, false, false);
    back.results(Y, Y_END);
    back.drainThroughPpm(0);
    long idle = back.drainCandidate() + 8 * 5 + wide.ppmLatency() + 1;
    assertEquals(idle, back.idleFrom(next));
    assertEquals(next + 1, rules.ppmCfg(next + 1, 1), "the other bank");
    assertEquals(idle + 1, rules.ppmCfg(next + 1, 0), "the bank its PPM reads");
  }

  /**
   * The golden simulator on the 4-byte-line PPM NPU with the gate: a narrow and a wide PPM give the same memory image
   * byte for byte and the same counters but {@code spadWrites} (one line of codes a drain cycle) and the cycles; with
   * the store after the GEMM waiting for the back-end, the program is {@code M·(ceil(4N/line) − ceil(N/line))} cycles
   * shorter.
   */
  @Test
  void sameBytesAndCountersFewerDrainCyclesInTheGoldenSimulator() {
    MachineParams narrow = GatedGemmCommandTest.machine(false);
    MachineParams wide = narrow.withPpmWide(true);
    int line = narrow.lineBytes();
    int m = 6;
    int k = 19;
    for (int n : new int[] {1, 3, 4, 5, 16, 37, 64}) {
      for (long gate : new long[] {0, 1}) {
        Random r = new Random(31 * n + gate);
        RequantParams[] params = new RequantParams[n];
        int[] bias = new int[n];
        for (int j = 0; j < n; j++) {
          params[j] = GatedGemmCommandTest.params(r);
          bias[j] = r.nextInt(4000) - 2000;
        }
        Program prog = GatedGemmCommandTest.program(m, k, n, false,
            GatedGemmCommandTest.gemm(m, k, n, 1 + (n & 1), gate), 3072);
        byte[] mem = GatedGemmCommandTest.image(r, prog, params, bias);
        IsaSimulator.Result a = IsaSimulator.run(narrow, mem.clone(), 0);
        IsaSimulator.Result b = IsaSimulator.run(wide, mem.clone(), 0);
        String what = "n " + n + " gate " + gate;
        assertEquals(ErrorCause.NONE, a.error(), what);
        assertEquals(ErrorCause.NONE, b.error(), what);
        assertArrayEquals(a.memory(), b.memory(), what);
        long saved = (long) m * ((4L * n + line - 1) / line - (n + line - 1) / line);
        for (Counter c : Counter.values()) {
          long want = a.counter(c) - switch (c) {
            case CYCLES, GEMM_CYCLES, SPAD_WRITES -> saved;
            default -> 0;
          };
          assertEquals(want, b.counter(c), what + " " + c);
        }
      }
    }
  }
}
