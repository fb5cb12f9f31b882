package org.llmnpu.cosim.bench;

import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.llmnpu.cosim.NpuRtl;
import org.llmnpu.cosim.ProgramCosim;
import org.llmnpu.hdl.bench.BenchRecord;
import org.llmnpu.hdl.emit.Verilog;
import org.llmnpu.hdl.sim.Simulator;
import org.llmnpu.isa.Counter;
import org.llmnpu.isa.Program;
import org.llmnpu.rtl.npu.Npu;
import org.llmnpu.rtl.npu.NpuConfig;
import org.llmnpu.rtl.npu.NpuDriver;
import org.llmnpu.verilator.SimModes;
import org.llmnpu.verilator.Simulators;

/**
 * Benchmarks (not tests; {@code mvn -pl cosim -am test -Dbench -Dtest=NpuBenchmark
 * -Dsurefire.failIfNoSpecifiedTests=false}): free-running simulation speed of a 512×512×512 GEMM
 * with its DMA on the default NPU against a raw {@code s n} loop and a per-cycle round trip, and
 * the MAC utilization of a streamed GEMM at several memory bandwidths.
 */
@ExtendWith(BenchRecord.class)
class NpuBenchmark {

  /**
   * An M×512×N GEMM (M, N multiples of 64 and 128) as GEMMs of 64×512×128 with their loads and
   * stores, overlapped: the next tile's operands load and the previous tile's results (in the other
   * of two result buffers) store while the array runs the current one.
   */
  static Program tiled(int mTiles, int nTiles) {
    Program.Builder b = Program.builder();
    long xExt = 0x100000;
    long wExt = 0x200000;
    long yExt = 0x400000;
    int tiles = mTiles * nTiles;
    for (int t = 0; t <= tiles; t++) {
      if (t < tiles) {
        int mt = t / nTiles;
        int nt = t % nTiles;
        b.load(xExt + mt * 64L * 512, 512, 0, 512, 512, 64);
        b.load(wExt + nt * 128L, 128L * nTiles, 0x8000, 128, 128, 512);
        b.gemm(64, 512, 128, 0, 512, 0x8000, 128, 0x18000 + (t % 2) * 0x8000L, 512);
      }
      if (t > 0) {
        int mt = (t - 1) / nTiles;
        int nt = (t - 1) % nTiles;
        b.store(yExt + mt * 64L * 512 * nTiles + nt * 512L, 512L * nTiles, 0x18000 + ((t - 1) % 2) * 0x8000L, 512,
            512, 64);
      }
    }
    return b.halt().build();
  }

  static Program gemm512() {
    return tiled(8, 4);
  }

  @Test
  void simulationSpeedAndStreamingUtilization() {
    NpuConfig c = NpuConfig.defaults();
    byte[] image = new byte[(int) c.machine().extMemBytes()];
    new Random(1).nextBytes(image);
    Program prog = gemm512();
    System.arraycopy(prog.bytes(), 0, image, 0, prog.bytes().length);
    long cycles;
    try (NpuRtl rtl = NpuRtl.start(c, SimModes.local())) {
      ProgramCosim.Outcome o = ProgramCosim.run(rtl, image, 0);
      cycles = o.rtlCycles();
      System.out.printf("512x512x512 GEMM with DMA: bit-exact %s, RTL %,d cycles, model %,d; free-running %.2f s = "
          + "%.0f k cycles/s; MAC utilization %.1f %%%n", o.bitExact(), cycles, o.modelCycles(), o.rtl().wallSeconds(),
          cycles / o.rtl().wallSeconds() / 1e3, 100.0 * o.rtl().counters().get(Counter.MACS) / (256.0 * cycles));
    }
    // Free-running ('r') against a raw 's n' loop of the same length on the same model, alternated
    // three times so both see the same machine load; then a round trip per cycle.
    try (Simulator sim = Simulators.start(Verilog.emit(new Npu(c)), SimModes.local())) {
      NpuDriver npu = new NpuDriver(sim, c);
      npu.loadImage(image);
      for (int round = 0; round < 3; round++) {
        npu.reset();
        npu.start(0);
        long t0 = System.nanoTime();
        long n = npu.awaitFinished(10 * cycles);
        double free = (System.nanoTime() - t0) / 1e9;
        npu.reset();
        npu.start(0);
        t0 = System.nanoTime();
        sim.step((int) n);
        boolean fin = npu.finished();
        double raw = (System.nanoTime() - t0) / 1e9;
        System.out.printf("round %d: free-running %,d cycles in %.2f s = %.0f k cycles/s; raw 's n' loop %.2f s = "
            + "%.0f k cycles/s (finished=%b); ratio %.2f%n", round, n, free, n / free / 1e3, raw, n / raw / 1e3, fin,
            raw / free);
      }
      npu.reset();
      npu.start(0);
      int n = 20_000;
      long t0 = System.nanoTime();
      for (int i = 0; i < n; i++) {
        sim.step(1);
        npu.finished();
      }
      double perCycle = (System.nanoTime() - t0) / 1e9;
      System.out.printf("round trip per cycle (step + peek): %.0f k cycles/s%n", n / perCycle / 1e3);
    }
    for (int bpc : new int[] {4, 8, 16}) {
      NpuConfig cb = c.withMemory(c.memLatency(), bpc);
      Program one = tiled(1, 4);
      System.arraycopy(one.bytes(), 0, image, 0, one.bytes().length);
      try (NpuRtl rtl = NpuRtl.start(cb, SimModes.local())) {
        ProgramCosim.Outcome o = ProgramCosim.run(rtl, image, 0);
        long cyc = o.rtlCycles();
        System.out.printf("64x512x512 GEMM (4 tiles, overlapped) streamed at %d B/cycle (latency %d): %,d cycles (model %,d), DMA %,d, "
            + "GEMM unit %,d, array %,d; MAC utilization %.1f %%%n", bpc, cb.memLatency(), cyc, o.modelCycles(),
            o.rtl().counters().get(Counter.DMA_CYCLES), o.rtl().counters().get(Counter.GEMM_CYCLES),
            o.rtl().counters().get(Counter.ARRAY_CYCLES), 100.0 * o.rtl().counters().get(Counter.MACS) / (256.0 * cyc));
      }
    }
  }
}
