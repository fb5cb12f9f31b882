package org.llmnpu.cosim.axi;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.Test;
import org.llmnpu.cosim.RandomPrograms;
import org.llmnpu.isa.Counter;
import org.llmnpu.isa.ErrorCause;
import org.llmnpu.isa.IsaSimulator;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.isa.Program;
import org.llmnpu.rtl.npu.NpuConfig;
import org.llmnpu.verilator.SimModes;
import org.llmnpu.verilator.axi.Axi4MemoryConfig;

/**
 * Random DMA → GEMM → DMA programs on the AXI NPU (4×4, 4-byte AXI data) through its register map, against the golden
 * ISA simulator: memory image bit-exact, status, the commands and MACs counters equal, on memories with random
 * latency, bandwidth, back-pressure and reordering (the fetcher's reads on ID 1 overtake the DMA's on ID 0, and do in
 * these runs), with the AXI4 protocol checker on every cycle.
 */
class NpuAxiCosimTest {
  static final NpuConfig AXI = NpuConfig.small().toBuilder().bus("axi").build();

  @Test
  void randomProgramsAreBitExactUnderBackPressureWithTheProtocolChecker() {
    MachineParams p = AXI.machine();
    try (NpuAxiHost host = NpuAxiHost.start(AXI, SimModes.local())) {
      Random r = new Random(37);
      long outOfOrder = 0;
      for (int i = 0; i < 8; i++) {
        RandomPrograms.Case c = RandomPrograms.generate(p, r, 1 + r.nextInt(3), r.nextBoolean(), r.nextBoolean());
        Axi4MemoryConfig mem = new Axi4MemoryConfig(c.image().length, 1 + r.nextInt(30), 1 + r.nextInt(10),
            1 + r.nextInt(2), 1 + r.nextInt(8), 0.5 * r.nextDouble(), true, r.nextLong());
        IsaSimulator.Result g = IsaSimulator.run(p, AXI.engineTiming(), c.image(), c.programAddress());
        NpuAxiHost.Run run = host.run(c.image(), c.programAddress(), c.program().bytes().length, mem,
            40 * g.counter(Counter.CYCLES) + 10_000, r.nextBoolean());
        String what = "program " + i + " on " + mem;
        assertEquals(ErrorCause.NONE, g.error(), what);
        assertTrue(run.done(), what + ": STATUS.done, cause " + run.errorCause());
        assertArrayEquals(g.memory(), run.memory(), what + ": memory image");
        assertEquals(g.counter(Counter.COMMANDS), run.counter(Counter.COMMANDS), what + ": commands");
        assertEquals(g.counter(Counter.MACS), run.counter(Counter.MACS), what + ": MACs");
        System.out.printf("axi random %d: rtl %d cycles (npu %d), model %d; startToFetch %d lastStoreToIrq %d "
                + "bursts %d beats %d/%d checks %s%n", i, run.cycles(), run.counter(Counter.CYCLES),
            g.counter(Counter.CYCLES), run.startToFetch(), run.lastStoreToIrq(), run.readBursts(), run.readBeats(),
            run.writeBeats(), run.checks());
        System.out.printf("axi random %d: %d read bursts answered before an older one (fetch ID 1 vs DMA ID 0)%n", i,
            run.readsOutOfOrder());
        outOfOrder += run.readsOutOfOrder();
      }
      System.out.printf("axi random: %d read bursts answered out of order in 8 programs%n", outOfOrder);
    }
  }

  /**
   * The fetcher's reads (ID 1) overtaking the DMA's (ID 0): a load of 24 rows of 4 lines, each row its own burst, on a
   * memory of a beat every 2 cycles, so command reads made while row bursts wait can be answered first; the rows are
   * stored back elsewhere. Bit-exact, and some read bursts were answered out of order.
   */
  @Test
  void commandReadsOvertakeDmaReadsOnTheirOwnId() {
    MachineParams p = AXI.machine();
    int line = p.lineBytes();
    int rows = 24;
    int rowBytes = 4 * line;
    Program prog = Program.builder().load(0x1000, 64, 0, rowBytes, rowBytes, rows)
        .store(0x3000, rowBytes, 0, rowBytes, rowBytes, rows).halt().build();
    byte[] image = new byte[(int) p.extMemBytes()];
    System.arraycopy(prog.bytes(), 0, image, 0, prog.bytes().length);
    Random r = new Random(11);
    for (int i = 0; i < rows * 64; i++) {
      image[0x1000 + i] = (byte) r.nextInt(256);
    }
    IsaSimulator.Result g = IsaSimulator.run(p, AXI.engineTiming(), image, 0);
    long outOfOrder = 0;
    try (NpuAxiHost host = NpuAxiHost.start(AXI, SimModes.local())) {
      for (long seed = 1; seed <= 4; seed++) {
        Axi4MemoryConfig mem = new Axi4MemoryConfig(image.length, 6, 3, 2, 8, 0.2, true, seed);
        NpuAxiHost.Run run = host.run(image, 0, prog.bytes().length, mem, 100_000, true);
        assertTrue(run.done(), run.status());
        assertArrayEquals(g.memory(), run.memory(), "memory image on " + mem);
        assertEquals(g.counter(Counter.COMMANDS), run.counter(Counter.COMMANDS));
        System.out.printf("axi ids seed %d: %d of %d read bursts answered before an older one, %d cycles%n", seed,
            run.readsOutOfOrder(), run.readBursts(), run.cycles());
        outOfOrder += run.readsOutOfOrder();
      }
    }
    assertTrue(outOfOrder > 0, "no command read overtook a DMA read");
  }
}
