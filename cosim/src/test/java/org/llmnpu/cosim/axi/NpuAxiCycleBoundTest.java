package org.llmnpu.cosim.axi;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.Test;
import org.llmnpu.cosim.RandomPrograms;
import org.llmnpu.isa.Counter;
import org.llmnpu.isa.IsaSimulator;
import org.llmnpu.rtl.npu.NpuConfig;
import org.llmnpu.verilator.SimModes;
import org.llmnpu.verilator.axi.Axi4MemoryConfig;

/**
 * The AXI NPU's cycles against the golden cycle model, the stated bound of {@code npu-rtl/README.md} ("The NPU as SoC
 * IP"): on an AXI memory of read latency {@code La}, a beat a cycle, without back-pressure, the NPU's own
 * {@code cycles} counter lies between the model's cycles with {@code memLatency = La + 3} (the request buffer, the AR
 * register and the R register of the master) and {@value #BOUND} times them; and the dispatch overhead is exact: {@value #START_TO_FETCH}
 * cycles from the CTRL write to the first AR handshake, at least {@code writeLatency + }{@value #STORE_TO_IRQ} cycles
 * from the last W beat to {@code irq} (exactly that when the {@code halt} was fetched before the last store; a fetch
 * after a store waits for its write response).
 */
class NpuAxiCycleBoundTest {
  static final double BOUND = 2.0;
  static final int START_TO_FETCH = 4;
  static final int STORE_TO_IRQ = 8;

  @Test
  void cyclesStayWithinTheStatedBoundOfTheModel() {
    NpuConfig axi = NpuAxiCosimTest.AXI;
    int line = axi.machine().lineBytes();
    try (NpuAxiHost host = NpuAxiHost.start(axi, SimModes.local())) {
      Random r = new Random(11);
      boolean minimumSeen = false;
      for (int i = 0; i < 9; i++) {
        RandomPrograms.Case c = RandomPrograms.generate(axi.machine(), r, 1 + r.nextInt(3), r.nextBoolean(), false);
        int la = new int[] {1, 8, 32}[i % 3];
        int lw = 1 + r.nextInt(8);
        Axi4MemoryConfig mem = new Axi4MemoryConfig(c.image().length, la, lw, 1, 16, 0, false, 1);
        NpuConfig model = axi.toBuilder().memory(la + 3, line).build();
        IsaSimulator.Result g = IsaSimulator.run(model.machine(), model.engineTiming(), c.image(), 0);
        NpuAxiHost.Run run = host.run(c.image(), 0, c.program().bytes().length, mem, 1_000_000, false);
        assertArrayEquals(g.memory(), run.memory(), "program " + i);
        long rtl = run.counter(Counter.CYCLES);
        long m = g.counter(Counter.CYCLES);
        System.out.printf("axi bound: La %d Lw %d rtl %d model(La+3) %d ratio %.3f startToFetch %d "
            + "lastStoreToIrq %d%n", la, lw, rtl, m, (double) rtl / m, run.startToFetch(), run.lastStoreToIrq());
        assertTrue(rtl >= m && rtl <= BOUND * m, "program " + i + " at La " + la + ": " + rtl + " cycles, model "
            + "(memLatency La + 3) " + m);
        assertEquals(START_TO_FETCH, run.startToFetch(), "CTRL write to the first AR");
        assertTrue(run.lastStoreToIrq() >= lw + STORE_TO_IRQ, "last W beat to irq, write latency " + lw + ": "
            + run.lastStoreToIrq());
        minimumSeen |= run.lastStoreToIrq() == lw + STORE_TO_IRQ;
      }
      assertTrue(minimumSeen, "some program's last store reached irq in writeLatency + " + STORE_TO_IRQ + " cycles");
    }
  }
}
