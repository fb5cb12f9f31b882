package org.llmnpu.cosim.bench;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.llmnpu.hdl.bench.BenchRecord;
import org.llmnpu.isa.Counter;
import org.llmnpu.isa.CycleFormulas;
import org.llmnpu.isa.IsaSimulator;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.isa.Program;
import org.llmnpu.rtl.npu.NpuConfig;

/**
 * Figures (not a test; {@code mvn -pl cosim -am test -Dbench -Dtest=GemvBoundsBenchmark
 * -Dsurefire.failIfNoSpecifiedTests=false}): where the cycles of a decode GEMV 1×256×1408 go on a
 * 32×32 NPU, from the cycle model (which the RTL equals exactly in the co-simulation tests): the
 * weights stream from memory in N tiles of 128 (double-buffered, the next tile loads while the array
 * runs), for several memory bandwidths and {@code weightRowsPerCycle} (W rows the GEMM's controller
 * copies into the engine per cycle). Utilization = MACs / (cycles · 32 · 32).
 *
 * <p>Columns: {@code memBound} = the weight and activation beats at the memory's rate ({@code beats ·
 * ceil(line / B)}; a 32-byte line is at most one beat a cycle, so 64 B/cycle is 32 B/cycle here);
 * {@code memCyc} the controller's memory-bound cycles (DMA busy + command fetch, each fetch a memory
 * latency); {@code wCopy} the controller's W copy ({@code ceil(N/rows)·ceil(K/R)} per GEMM);
 * {@code arrayCyc} the array's run. One controller does the fetches, loads and copies in turn while
 * the array overlaps the next tile's load, so cycles ≈ Σ per tile (fetches + W copy + max(load, array
 * + drain)); {@code mem%}, {@code copy%}, {@code array%} are their shares of the cycles (memory and copy
 * add up on the controller, the array overlaps them), {@code vsMem} = cycles / memBound, and {@code bound}
 * names the largest of memory ({@code memCyc}), weight path ({@code wCopy}) and array ({@code arrayCyc}).
 */
@ExtendWith(BenchRecord.class)
class GemvBoundsBenchmark {
  @Test
  void gemv1x256x1408() {
    int k = 256;
    int n = 1408;
    int tile = 128;
    System.out.printf("%4s %8s %9s %7s %9s %8s %9s %6s %9s %6s %9s %6s %-12s%n", "R", "B/cycle", "cycles", "util%",
        "memBound", "vsMem", "memCyc", "mem%", "wCopy", "copy%", "arrayCyc", "array%", "bound");
    for (int rowsPerCycle : new int[] {1, 2, 4, 8}) {
      for (int bw : new int[] {16, 32, 64}) {
        NpuConfig c = new NpuConfig(32, 256, 4, 16, 16, 32, 0, 64, 512, 128, 32, bw, 4096)
            .withWeightRowsPerCycle(rowsPerCycle);
        MachineParams p = c.machine();
        Program.Builder b = Program.builder().load(0x100000, 256, 0, 256, k, 1);
        int tiles = n / tile;
        long wCopy = 0;
        for (int t = 0; t <= tiles; t++) {
          if (t < tiles) {
            long w = 0x1000 + (t % 2) * 0x8000L;
            b.load(0x200000 + t * (long) tile, n, w, tile, tile, k);
            b.gemm(1, k, tile, 0, 256, w, tile, 0x20000 + (t % 2) * 0x1000L, 4L * tile);
            wCopy += CycleFormulas.weightCopyCycles(p, k, tile);
          }
          if (t > 0) {
            b.store(0x400000 + (t - 1) * 4L * tile, 4L * n, 0x20000 + ((t - 1) % 2) * 0x1000L, 4L * tile, 4L * tile,
                1);
          }
        }
        Program prog = b.halt().build();
        byte[] image = new byte[(int) p.extMemBytes()];
        System.arraycopy(prog.bytes(), 0, image, 0, prog.bytes().length);
        IsaSimulator.Result r = IsaSimulator.run(p, image, 0);
        long cycles = r.counter(Counter.CYCLES);
        long beats = (long) k * n / p.lineBytes() + (k + p.lineBytes() - 1) / p.lineBytes();
        long memBound = beats * p.beatInterval();
        long dma = r.counter(Counter.DMA_CYCLES) + r.counter(Counter.FETCH_CYCLES);
        long array = r.counter(Counter.ARRAY_CYCLES);
        String bound = dma >= wCopy && dma >= array ? "memory" : wCopy >= array ? "weight path" : "array";
        System.out.printf("%4d %8d %9d %7.2f %9d %8.2f %9d %6.1f %9d %6.1f %9d %6.1f %-12s%n", rowsPerCycle, bw,
            cycles, 100.0 * k * n / (cycles * 1024.0), memBound, (double) cycles / memBound, dma, 100.0 * dma / cycles,
            wCopy, 100.0 * wCopy / cycles, array, 100.0 * array / cycles, bound);
      }
    }
  }
}
