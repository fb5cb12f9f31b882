package org.llmnpu.cosim.bench;

import org.junit.jupiter.api.Test;
import org.llmnpu.isa.Counter;
import org.llmnpu.isa.IsaSimulator;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.isa.Program;
import org.llmnpu.rtl.npu.NpuConfig;

/**
 * Figures (not a test; {@code mvn -pl cosim -am test -Dbench -Dtest=GemvBoundsBenchmark
 * -Dsurefire.failIfNoSpecifiedTests=false}): where the cycles of a decode GEMV 1×256×1408 go on a
 * 32×32 NPU, from the cycle model (which the RTL equals exactly in the co-simulation tests): the
 * weights stream from memory in N tiles of 128 (double-buffered, the next tile loads while the array
 * runs), for several memory bandwidths. Utilization = MACs / (cycles · 32 · 32).
 */
class GemvBoundsBenchmark {
  @Test
  void gemv1x256x1408() {
    int k = 256;
    int n = 1408;
    int tile = 128;
    System.out.printf("%8s %9s %8s %9s %9s %9s %8s%n", "B/cycle", "cycles", "util%", "dmaCyc", "gemmCyc", "arrayCyc",
        "memBound");
    for (int bw : new int[] {16, 32, 64, 128}) {
      NpuConfig c = new NpuConfig(32, 256, 4, 16, 16, 32, 0, 64, 512, 128, 32, bw, 4096);
      MachineParams p = c.machine();
      Program.Builder b = Program.builder().load(0x100000, 256, 0, 256, k, 1);
      int tiles = n / tile;
      for (int t = 0; t <= tiles; t++) {
        if (t < tiles) {
          long w = 0x1000 + (t % 2) * 0x8000L;
          b.load(0x200000 + t * (long) tile, n, w, tile, tile, k);
          b.gemm(1, k, tile, 0, 256, w, tile, 0x20000 + (t % 2) * 0x1000L, 4L * tile);
        }
        if (t > 0) {
          b.store(0x400000 + (t - 1) * 4L * tile, 4L * n, 0x20000 + ((t - 1) % 2) * 0x1000L, 4L * tile, 4L * tile, 1);
        }
      }
      Program prog = b.halt().build();
      byte[] image = new byte[(int) p.extMemBytes()];
      System.arraycopy(prog.bytes(), 0, image, 0, prog.bytes().length);
      IsaSimulator.Result r = IsaSimulator.run(p, image, 0);
      long cycles = r.counter(Counter.CYCLES);
      long memBound = (long) k * n / bw;
      System.out.printf("%8d %9d %8.2f %9d %9d %9d %8d%n", bw, cycles, 100.0 * k * n / (cycles * 1024.0),
          r.counter(Counter.DMA_CYCLES), r.counter(Counter.GEMM_CYCLES), r.counter(Counter.ARRAY_CYCLES), memBound);
    }
  }
}
