package org.llmnpu.isa;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.Test;
import org.llmnpu.numerics.gemm.IntGemm;

class IsaSimulatorTest {
  static final MachineParams P = MachineParams.builder().rows(4).lineBytes(4).spadBytes(4096).spadBanks(2)
      .extMemBytes(1 << 20).mTile(8).accWidth(32).icAccumDepth(0).maxM(64).maxK(128).maxN(64).memLatency(3)
      .memBytesPerCycle(4).watchdogCycles(256).build();

  @Test
  void stridedDmaAndGemmComputeTheDenseProduct() {
    byte[] mem = new byte[1 << 20];
    new Random(2).nextBytes(mem);
    int m = 5;
    int k = 7;
    int n = 6;
    Program prog = Program.builder()
        .load(0x1000, 16, 0, 8, k, m)
        .load(0x2000, 8, 64, 8, n, k)
        .gemm(m, k, n, 0, 8, 64, 8, 256, 32)
        .store(0x3000, 32, 256, 32, 4 * n, m)
        .halt().build();
    System.arraycopy(prog.bytes(), 0, mem, 0, prog.bytes().length);
    IsaSimulator.Result r = IsaSimulator.run(P, mem, 0);
    assertEquals(ErrorCause.NONE, r.error());
    byte[][] x = new byte[m][k];
    byte[][] w = new byte[k][n];
    for (int i = 0; i < m; i++) {
      System.arraycopy(mem, 0x1000 + 16 * i, x[i], 0, k);
    }
    for (int i = 0; i < k; i++) {
      System.arraycopy(mem, 0x2000 + 8 * i, w[i], 0, n);
    }
    int[][] y = IntGemm.gemm(x, w, 32).y();
    for (int i = 0; i < m; i++) {
      for (int j = 0; j < n; j++) {
        int a = 0x3000 + 32 * i + 4 * j;
        int v = (r.memory()[a] & 0xFF) | (r.memory()[a + 1] & 0xFF) << 8 | (r.memory()[a + 2] & 0xFF) << 16
            | r.memory()[a + 3] << 24;
        assertEquals(y[i][j], v, "y[" + i + "][" + j + "]");
      }
    }
    assertEquals((long) m * k * n, r.counter(Counter.MACS));
    assertEquals(m * k + k * n, r.counter(Counter.DMA_LOAD_BYTES));
    assertEquals(5, r.counter(Counter.COMMANDS));
  }

  @Test
  void cycleModelOfALoadInIsolation() {
    // Fetch: 8 beats (32-byte command, 4-byte line) at one per cycle, data 3 cycles later, the command lands a
    // cycle later, decode, then 2 rows × 3 beats; the next fetch one cycle after the last datum.
    byte[] mem = new byte[1 << 20];
    Program prog = Program.builder().load(0x1000, 16, 0, 16, 10, 2).halt().build();
    System.arraycopy(prog.bytes(), 0, mem, 0, prog.bytes().length);
    IsaSimulator.Result r = IsaSimulator.run(P, mem, 0);
    long fetch = 7 + 3 + 3;       // last beat at 7, datum at 10, lands at 11, decode at 12, start at 13
    long load = 5 + 3 + 1;        // 6 beats: last issued at +5, datum at +8, next fetch at +9
    assertEquals(fetch + load + fetch, r.counter(Counter.CYCLES));
    assertEquals(load, r.counter(Counter.DMA_CYCLES));
  }

  /**
   * {@code prog} in {@code mem} (the whole memory of {@code whole}) runs on {@code big}, a machine with more memory, as a
   * bounded image to the same memory and counters, without an error.
   */
  static void assertBoundedRunsAsWhole(MachineParams whole, MachineParams big, Program prog, byte[] mem) {
    System.arraycopy(prog.bytes(), 0, mem, 0, prog.bytes().length);
    IsaSimulator.Result w = IsaSimulator.run(whole, mem, 0);
    IsaSimulator.Result bounded = IsaSimulator.run(big, mem, 0);
    assertEquals(ErrorCause.NONE, bounded.error());
    assertArrayEquals(w.memory(), bounded.memory());
    assertArrayEquals(w.counters(), bounded.counters());
  }

  /**
   * An NPU with 3 GiB of external memory (more than a JVM array) runs on a bounded image, its first bytes: a program
   * inside it gives the results and counters of the whole-memory run; one that reaches beyond it (the NPU's address
   * checks pass) stops with an error naming the command; an address beyond the NPU's memory is the NPU's fault as ever.
   */
  @Test
  void aBoundedImageRunsAsTheWholeMemoryAndStopsBeyondIt() {
    MachineParams big = P.withExtMemBytes(3L << 30);
    byte[] mem = new byte[1 << 20];
    new Random(3).nextBytes(mem);
    Program prog = Program.builder().load(0x1000, 16, 0, 8, 7, 5).load(0x2000, 8, 64, 8, 6, 7)
        .gemm(5, 7, 6, 0, 8, 64, 8, 256, 32).store(0x3000, 32, 256, 32, 24, 5).halt().build();
    assertBoundedRunsAsWhole(P, big, prog, mem);

    Program beyond = Program.builder().load(0x1000, 16, 0, 8, 7, 5).store(2L << 30, 16, 0, 8, 7, 5).halt().build();
    System.arraycopy(beyond.bytes(), 0, mem, 0, beyond.bytes().length);
    IllegalStateException e = assertThrows(IllegalStateException.class, () -> IsaSimulator.run(big, mem, 0));
    assertTrue(e.getMessage().contains("command 1") && e.getMessage().contains("1048576 bytes"), e.getMessage());
    Program outside = Program.builder().store((3L << 30) + 0x1000, 16, 0, 8, 7, 5).halt().build();
    System.arraycopy(outside.bytes(), 0, mem, 0, outside.bytes().length);
    assertEquals(ErrorCause.EXT_ADDRESS, IsaSimulator.run(big, mem, 0).error());
    assertThrows(IllegalArgumentException.class, () -> IsaSimulator.run(big, new byte[1001], 0));
  }
}
