package org.llmnpu.cosim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.llmnpu.isa.Counter;
import org.llmnpu.isa.ErrorCause;
import org.llmnpu.isa.IsaSimulator;
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
 * fetcher reads ahead. The deepest queue ({@link #DEEPEST}, the top of {@code commandQueueDepth}'s range) is exact
 * too: on a program whose fence behind a long GEMM lets the fetcher fill all {@code DEEPEST − 1} slots, on random
 * DMA/GEMM programs and GEMM → DSP chains, and with a {@code halt} in the last slot of memory.
 */
class CommandPrefetchCosimTest {
  /** The memory latency of the test (cycles): long against the commands' own work. */
  static final int LATENCY = 40;
  /** The largest {@code commandQueueDepth} ({@code NpuParameter.COMMAND_QUEUE_DEPTH}'s range). */
  static final int DEEPEST = 64;

  /** 40 small commands: per step a 2-row load of X and W, a 4×8×4 GEMM, the store of the previous result. */
  static Program manySmallCommands() {
    return smallSteps(Program.builder()).halt().build();
  }

  /** The 40 commands of {@link #manySmallCommands()} (without its {@code halt}) after {@code b}'s. */
  static Program.Builder smallSteps(Program.Builder b) {
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
    return b;
  }

  /**
   * A program whose queue fills: X (8 × 64) and W (64 × 32) loaded, an 8×64×32 GEMM and a fence behind it, during
   * which the fetcher reads ahead until the queue is full; then 80 small GEMMs on the loaded operands (4×8×4, no
   * memory phase, each longer than its fetch: the queue stays full) and the results stored.
   */
  static Program fillingProgram() {
    Program.Builder b = Program.builder().load(0x50000, 64, 0, 64, 64, 8).load(0x60000, 32, 0x400, 32, 32, 64)
        .gemm(8, 64, 32, 0, 64, 0x400, 32, 0xC00, 128).fence();
    for (int g = 0; g < 80; g++) {
      b.gemm(4, 8, 4, 0, 8, 0x100, 4, 0x800 + (g % 2) * 0x100, 16);
    }
    return b.store(0x30000, 16, 0x800, 16, 16, 4).store(0x30100, 16, 0x900, 16, 16, 4)
        .store(0x70000, 128, 0xC00, 128, 128, 8).halt().build();
  }

  private static ProgramCosim.Outcome runExact(NpuConfig c, byte[] image, long at, String what) {
    try (NpuRtl rtl = NpuRtl.start(c, SimModes.local())) {
      return runExact(rtl, image, at, what);
    }
  }

  private static ProgramCosim.Outcome runExact(NpuRtl rtl, byte[] image, long at, String what) {
    ProgramCosim.Outcome o = ProgramCosim.run(rtl, image.clone(), at);
    assertEquals(ErrorCause.NONE, o.golden().error(), what);
    assertTrue(o.statusMatches(), what + ": status " + o.rtl().error() + " vs golden " + o.golden().error());
    assertTrue(o.bitExact(), what + ": first differing byte at 0x" + Long.toHexString(o.firstDifference()));
    assertEquals(Map.of(), RandomProgramCosimTest.mismatches(o), what);
    return o;
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

  @Test
  void theDeepestQueueIsExactWhenFullOnRandomProgramsAndAtTheEndOfMemory() {
    NpuConfig deep = NpuConfig.small().withMemory(LATENCY, 4).withCommandQueueDepth(DEEPEST);
    MachineParams p = deep.machine();
    Random r = new Random(15);
    try (NpuRtl rtl = NpuRtl.start(deep, SimModes.local())) {
      byte[] image = new byte[(int) p.extMemBytes()];
      r.nextBytes(image);
      Program filling = fillingProgram();
      assertTrue(filling.size() > DEEPEST, "the program outlasts the queue: " + filling.size());
      RandomPrograms.place(image, filling, 0);
      ProgramCosim.Outcome full = runExact(rtl, image, 0, "filling program, depth " + DEEPEST);
      // the queue was full: each small GEMM takes longer than its fetch, so the fetcher is ahead by the whole queue
      // when the halt runs, and a golden machine with a queue twice as deep has read more commands past the halt
      long beats = full.rtl().counters().get(Counter.EXT_READ_BEATS);
      long deeper = IsaSimulator.run(p.withCommandQueueDepth(2 * DEEPEST), deep.engineTiming(), image.clone(), 0)
          .counter(Counter.EXT_READ_BEATS);
      System.out.printf("filling program, %d commands: depth %d %d cycles, %d read beats; depth %d (golden) %d%n",
          filling.size(), DEEPEST, full.rtl().counters().get(Counter.CYCLES), beats, 2 * DEEPEST, deeper);
      assertEquals((long) DEEPEST * p.beatsPerCommand(), deeper - beats, "read beats, depth " + DEEPEST + " and "
          + 2 * DEEPEST);
      for (int i = 0; i < 4; i++) {
        RandomPrograms.Case t = i < 2 ? RandomPrograms.generate(p, r, 1 + r.nextInt(3), i % 2 == 1)
            : DspChains.generate(p, r, 1 + r.nextInt(2), i % 2 == 1);
        runExact(rtl, t.image(), t.programAddress(), "random program " + i + ":\n"
            + org.llmnpu.isa.Disassembler.disassemble(t.program()));
      }
      byte[] end = new byte[(int) p.extMemBytes()];
      r.nextBytes(end);
      Program last = Program.builder().load(0x10000, 4, 0, 4, 4, 2).store(0x30000, 4, 0, 4, 4, 2).halt().build();
      long at = p.extMemBytes() - 3L * 32;
      RandomPrograms.place(end, last, at);
      assertEquals(ErrorCause.NONE, runExact(rtl, end, at, "halt at the end of memory").rtl().error());
    }
  }
}
