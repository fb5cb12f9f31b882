package org.llmnpu.cosim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.llmnpu.isa.Counter;
import org.llmnpu.rtl.npu.NpuConfig;
import org.llmnpu.verilator.SimModes;

/**
 * Random DMA → GEMM → DMA programs on the generated NPU, in order and overlapped (the next GEMM's
 * operands load while the array runs; each result is stored while the next GEMM runs): the memory image after the run is bit-exact
 * with the golden ISA simulator, and every counter — the golden work counts and the cycle counters
 * of the cycle model, total cycles included — is equal, under several memory timings.
 */
class RandomProgramCosimTest {

  @ParameterizedTest(name = "latency {0}, {1} B/cycle")
  @CsvSource({"3, 4", "1, 4", "9, 1", "5, 2"})
  void randomProgramsAreBitExactWithExactCountersAndCycles(int latency, int bytesPerCycle) {
    NpuConfig c = NpuConfig.small().withMemory(latency, bytesPerCycle);
    Random r = new Random(latency * 100 + bytesPerCycle);
    try (NpuRtl rtl = NpuRtl.start(c, SimModes.local())) {
      for (int i = 0; i < 6; i++) {
        RandomPrograms.Case t = RandomPrograms.generate(c.machine(), r, 1 + r.nextInt(3), i % 2 == 1);
        ProgramCosim.Outcome o = ProgramCosim.run(rtl, t.image(), t.programAddress());
        String what = "program " + i + ":\n" + org.llmnpu.isa.Disassembler.disassemble(t.program());
        assertTrue(o.bitExact(), what + "first differing byte at 0x" + Long.toHexString(o.firstDifference()));
        assertTrue(o.statusMatches(), what + "status " + o.rtl().error() + " vs golden " + o.golden().error());
        assertEquals(Map.of(), mismatches(o), what);
        assertTrue(o.rtl().counters().get(Counter.MACS) > 0, what);
      }
    }
  }

  @ParameterizedTest(name = "DSP chains, latency {0}, {1} B/cycle")
  @CsvSource({"3, 4", "1, 4", "9, 1", "5, 2"})
  void gemmToDspChainsAreBitExactWithExactCountersAndCycles(int latency, int bytesPerCycle) {
    NpuConfig c = NpuConfig.small().withMemory(latency, bytesPerCycle);
    Random r = new Random(latency * 1000 + bytesPerCycle);
    try (NpuRtl rtl = NpuRtl.start(c, SimModes.local())) {
      for (int i = 0; i < 4; i++) {
        RandomPrograms.Case t = DspChains.generate(c.machine(), r, 1 + r.nextInt(2), i % 2 == 1);
        ProgramCosim.Outcome o = ProgramCosim.run(rtl, t.image(), t.programAddress());
        String what = "program " + i + ":\n" + org.llmnpu.isa.Disassembler.disassemble(t.program());
        assertEquals(org.llmnpu.isa.ErrorCause.NONE, o.golden().error(), what);
        assertTrue(o.statusMatches(), what + "status " + o.rtl().error() + " vs golden " + o.golden().error());
        assertTrue(o.bitExact(), what + "first differing byte at 0x" + Long.toHexString(o.firstDifference()));
        assertEquals(Map.of(), mismatches(o), what);
        assertTrue(o.rtl().counters().get(Counter.DSP_INSTRUCTIONS) > 0, what);
      }
    }
  }

  @org.junit.jupiter.api.Test
  void loadsOverlapTheArrayAndTheModelStaysExact() {
    NpuConfig c = NpuConfig.small();
    byte[] image = new byte[(int) c.machine().extMemBytes()];
    new Random(9).nextBytes(image);
    // Y in the upper half of the scratchpad, operands in the lower half.
    org.llmnpu.isa.Program.Builder overlapped = org.llmnpu.isa.Program.builder();
    org.llmnpu.isa.Program.Builder serial = org.llmnpu.isa.Program.builder();
    for (org.llmnpu.isa.Program.Builder b : java.util.List.of(overlapped, serial)) {
      b.load(0x10000, 64, 0, 64, 64, 30).load(0x20000, 16, 1920, 16, 14, 64);
      b.gemm(30, 64, 14, 0, 64, 1920, 16, 2048, 64);
      if (b == serial) {
        b.fence();
      }
      b.load(0x30000, 64, 0, 64, 61, 30).load(0x40000, 16, 1920, 16, 13, 61);
      b.gemm(30, 61, 13, 0, 64, 1920, 16, 2048 + 1024, 64);
      b.store(0x50000, 64, 2048, 64, 56, 30).store(0x60000, 64, 3072, 64, 52, 30).halt();
    }
    // A store of the first result while the second GEMM computes (results in different places).
    org.llmnpu.isa.Program.Builder storeOverlap = org.llmnpu.isa.Program.builder();
    org.llmnpu.isa.Program.Builder storeAfter = org.llmnpu.isa.Program.builder();
    for (org.llmnpu.isa.Program.Builder b : java.util.List.of(storeOverlap, storeAfter)) {
      b.load(0x10000, 64, 0, 64, 64, 16).load(0x20000, 16, 1024, 16, 14, 64);
      b.gemm(16, 64, 14, 0, 64, 1024, 16, 2048, 56);
      b.load(0x30000, 64, 0, 64, 61, 16).load(0x40000, 16, 1024, 16, 13, 61);
      b.gemm(16, 61, 13, 0, 64, 1024, 16, 3072, 52);
      if (b == storeAfter) {
        b.fence();
      }
      b.store(0x50000, 64, 2048, 56, 56, 16).store(0x60000, 64, 3072, 52, 52, 16).halt();
    }
    try (NpuRtl rtl = NpuRtl.start(c, SimModes.local())) {
      long[] cycles = new long[4];
      int i = 0;
      for (org.llmnpu.isa.Program.Builder b : java.util.List.of(overlapped, serial, storeOverlap, storeAfter)) {
        byte[] img = RandomPrograms.place(image.clone(), b.build(), 0);
        ProgramCosim.Outcome o = ProgramCosim.run(rtl, img, 0);
        assertTrue(o.bitExact(), "first difference at " + o.firstDifference());
        assertEquals(Map.of(), mismatches(o));
        cycles[i++] = o.rtlCycles();
      }
      assertTrue(cycles[0] + 500 < cycles[1], "overlapped " + cycles[0] + " cycles vs serialized " + cycles[1]);
      assertTrue(cycles[2] + 200 < cycles[3], "store overlapped " + cycles[2] + " cycles vs after " + cycles[3]);
    }
  }

  /**
   * A {@code dspout} beside a GEMM whose engine finishes while it writes: the drain starts after the dspout's last
   * write (one scratchpad write port), the RTL's counters and cycles equal the model's, and for some dspout length the
   * GEMM's back-end runs longer than after a fence (the drain was held).
   */
  @org.junit.jupiter.api.Test
  void aDspOutBesideAGemmHoldsItsDrainExactly() {
    NpuConfig c = NpuConfig.small();
    byte[] image = new byte[(int) c.machine().extMemBytes()];
    new Random(11).nextBytes(image);
    boolean held = false;
    try (NpuRtl rtl = NpuRtl.start(c, SimModes.local())) {
      for (int rows = 1; rows <= 8; rows++) {
        long[] gemmCycles = new long[2];
        for (int fenced = 0; fenced < 2; fenced++) {
          org.llmnpu.isa.Program.Builder b = org.llmnpu.isa.Program.builder()
              .load(0x10000, 16, 0, 16, 8, 4).load(0x20000, 16, 256, 16, 4, 8).load(0x30000, 64, 512, 64, 64, 8)
              .dspIn(512, 64, 32, 8, 0, org.llmnpu.isa.Command.FMT_INT8, 0)
              .gemm(4, 8, 4, 0, 16, 256, 16, 1024, 16);
          if (fenced == 1) {
            b.fence();
          }
          b.dspOut(2048, 64, 32, rows, 0, org.llmnpu.isa.Command.FMT_FP16)
              .store(0x40000, 16, 1024, 16, 16, 4).store(0x50000, 64, 2048, 64, 64, rows).halt();
          byte[] img = RandomPrograms.place(image.clone(), b.build(), 0);
          ProgramCosim.Outcome o = ProgramCosim.run(rtl, img, 0);
          assertTrue(o.bitExact(), rows + " rows: first difference at " + o.firstDifference());
          assertEquals(Map.of(), mismatches(o), rows + " rows");
          gemmCycles[fenced] = o.rtl().counters().get(Counter.GEMM_CYCLES);
        }
        held |= gemmCycles[0] > gemmCycles[1];
      }
    }
    assertTrue(held, "no dspout length held the drain");
  }

  /**
   * A {@code dspin} of the X codes and a {@code dspout} of them (1..4 rows) beside a streamed GEMM's W stream (the
   * controller takes them from the queue while the stream holds the memory port), against the same program with a
   * fence after the GEMM: bit-exact, every counter equal to the model, and fewer cycles beside the stream.
   */
  @org.junit.jupiter.api.Test
  void dspCopiesBesideAWeightStreamAreExact() {
    NpuConfig c = NpuConfig.small();
    byte[] image = new byte[(int) c.machine().extMemBytes()];
    new Random(13).nextBytes(image);
    try (NpuRtl rtl = NpuRtl.start(c, SimModes.local())) {
      for (int rows = 1; rows <= 4; rows++) {
        long[] cycles = new long[2];
        for (int fenced = 0; fenced < 2; fenced++) {
          org.llmnpu.isa.Program.Builder b = org.llmnpu.isa.Program.builder()
              .load(0x10000, 64, 0, 64, 32, 4)
              .gemmStreamed(4, 32, 32, 0, 64, 0x20000, 64, 1024, 128, rows % 2 == 0);
          if (fenced == 1) {
            b.fence();
          }
          b.dspIn(0, 64, 32, 4, 0, org.llmnpu.isa.Command.FMT_INT8, 0)
              .dspOut(2048, 64, 32, rows, 0, org.llmnpu.isa.Command.FMT_FP16)
              .store(0x40000, 64, 2048, 64, 64, rows).store(0x50000, 128, 1024, 128, 128, 4).halt();
          byte[] img = RandomPrograms.place(image.clone(), b.build(), 0);
          ProgramCosim.Outcome o = ProgramCosim.run(rtl, img, 0);
          assertEquals(org.llmnpu.isa.ErrorCause.NONE, o.golden().error(), rows + " rows");
          assertTrue(o.statusMatches(), rows + " rows: status " + o.rtl().error());
          assertTrue(o.bitExact(), rows + " rows: first difference at " + o.firstDifference());
          assertEquals(Map.of(), mismatches(o), rows + " rows");
          cycles[fenced] = o.rtl().counters().get(Counter.CYCLES);
        }
        assertTrue(cycles[0] < cycles[1], rows + " rows: beside the stream " + cycles[0] + ", fenced " + cycles[1]);
      }
    }
  }

  static Map<String, String> mismatches(ProgramCosim.Outcome o) {
    Map<String, String> m = new java.util.TreeMap<>();
    o.counterMismatches().forEach((k, v) -> m.put(k.key(), "rtl " + v[0] + ", golden/model " + v[1]));
    return m;
  }
}
