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
import org.llmnpu.rtl.npu.NpuConfig;
import org.llmnpu.verilator.SimModes;
import org.llmnpu.verilator.axi.Axi4MemoryConfig;

/**
 * Random DMA → GEMM → DMA programs on the AXI NPU (4×4, 4-byte AXI data) through its register map, against the golden
 * ISA simulator: memory image bit-exact, status, the commands and MACs counters equal, on memories with random
 * latency, bandwidth, back-pressure and reordering, with the AXI4 protocol checker on every cycle.
 */
class NpuAxiCosimTest {
  static final NpuConfig AXI = NpuConfig.small().toBuilder().bus("axi").build();

  @Test
  void randomProgramsAreBitExactUnderBackPressureWithTheProtocolChecker() {
    MachineParams p = AXI.machine();
    try (NpuAxiHost host = NpuAxiHost.start(AXI, SimModes.local())) {
      Random r = new Random(37);
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
      }
    }
  }
}
