package org.llmnpu.cosim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.llmnpu.isa.Counter;
import org.llmnpu.isa.ErrorCause;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.isa.Program;
import org.llmnpu.rtl.npu.NpuConfig;
import org.llmnpu.verilator.SimModes;

/**
 * Command prefetch ({@code commandQueueDepth}): a program of many small commands with a long memory latency runs
 * in fewer cycles on the small NPU with its default queue of 4 commands than with a queue of 1 (no prefetch; the shared
 * {@link SharedNpus#SMALL_REDUCED}, whose other differences, no PPU and 512 DSP words, these DMA and GEMM commands do
 * not use), both bit-exact with the golden ISA simulator and with every counter and the total cycles equal to the cycle model;
 * a program whose {@code halt} sits in the last command slot of the memory ends without an error although the
 * fetcher reads ahead.
 */
class CommandPrefetchCosimTest {
  /** The memory latency of the test (cycles): long against the commands' own work. */
  static final int LATENCY = 40;

  /** 40 small commands: per step a 2-row load of X and W, a 4×8×4 GEMM, the store of the previous result. */
  static Program manySmallCommands() {
    Program.Builder b = Program.builder();
    for (int step = 0; step < 10; step++) {
      long y = 0x800 + (step % 2) * 0x100;
      b.load(0x10000 + 64L * step, 8, 0, 8, 8, 4).load(0x20000 + 64L * step, 4, 0x100, 4, 4, 8)
          .gemm(4, 8, 4, 0, 8, 0x100, 4, y, 16);
      if (step > 0) {
        b.store(0x30000 + 64L * step, 16, 0x800 + ((step - 1) % 2) * 0x100, 16, 16, 4);
      } else {
        b.fence();
      }
    }
    return b.halt().build();
  }

  private static ProgramCosim.Outcome runExact(NpuConfig c, byte[] image, long at, String what) {
    try (NpuRtl rtl = NpuRtl.start(c, SimModes.local())) {
      ProgramCosim.Outcome o = ProgramCosim.run(rtl, image.clone(), at);
      assertEquals(ErrorCause.NONE, o.golden().error(), what);
      assertTrue(o.statusMatches(), what + ": status " + o.rtl().error() + " vs golden " + o.golden().error());
      assertTrue(o.bitExact(), what + ": first differing byte at 0x" + Long.toHexString(o.firstDifference()));
      assertEquals(Map.of(), RandomProgramCosimTest.mismatches(o), what);
      return o;
    }
  }

  @Test
  void prefetchHidesTheFetchLatencyOfSmallCommands() {
    NpuConfig queued = NpuConfig.small().withMemory(LATENCY, 4);
    NpuConfig single = SharedNpus.SMALL_REDUCED.withMemory(LATENCY, 4);
    assertEquals(1, single.commandQueueDepth());
    assertEquals(NpuConfig.DEFAULT_COMMAND_QUEUE_DEPTH, queued.commandQueueDepth());
    byte[] image = new byte[(int) queued.machine().extMemBytes()];
    new Random(13).nextBytes(image);
    Program prog = manySmallCommands();
    RandomPrograms.place(image, prog, 0);
    long prefetched = runExact(queued, image, 0, "depth 4").rtl().counters().get(Counter.CYCLES);
    long plain = runExact(single, image, 0, "depth 1").rtl().counters().get(Counter.CYCLES);
    System.out.printf("command prefetch: %d commands, latency %d: depth 1 %d cycles, depth 4 %d cycles (%.2fx)%n",
        prog.size(), LATENCY, plain, prefetched, (double) plain / prefetched);
    assertTrue(prefetched * 10 < plain * 8, "depth 4: " + prefetched + " cycles, depth 1: " + plain);
  }

  @Test
  void haltInTheLastSlotOfMemoryEndsCleanlyAlthoughTheFetcherReadsAhead() {
    NpuConfig c = NpuConfig.small();
    MachineParams p = c.machine();
    byte[] image = new byte[(int) p.extMemBytes()];
    new Random(14).nextBytes(image);
    Program prog = Program.builder().load(0x10000, 4, 0, 4, 4, 2).store(0x30000, 4, 0, 4, 4, 2).halt().build();
    long at = p.extMemBytes() - 3L * 32;
    RandomPrograms.place(image, prog, at);
    ProgramCosim.Outcome o = runExact(c, image, at, "halt at the end of memory");
    assertEquals(ErrorCause.NONE, o.rtl().error());
  }
}
