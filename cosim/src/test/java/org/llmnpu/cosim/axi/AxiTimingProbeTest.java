package org.llmnpu.cosim.axi;

import java.util.Random;
import org.junit.jupiter.api.Test;
import org.llmnpu.cosim.RandomPrograms;
import org.llmnpu.isa.Counter;
import org.llmnpu.isa.IsaSimulator;
import org.llmnpu.rtl.npu.NpuConfig;
import org.llmnpu.verilator.SimModes;
import org.llmnpu.verilator.axi.Axi4MemoryConfig;

class AxiTimingProbeTest {
  @Test
  void probe() {
    NpuConfig axi = NpuAxiCosimTest.AXI;
    try (NpuAxiHost host = NpuAxiHost.start(axi, SimModes.local())) {
      Random r = new Random(3);
      for (int i = 0; i < 6; i++) {
        RandomPrograms.Case c = RandomPrograms.generate(axi.machine(), r, 1 + r.nextInt(3), r.nextBoolean(), false);
        int lat = new int[] {1, 3, 8, 20, 32, 5}[i];
        Axi4MemoryConfig mem = new Axi4MemoryConfig(c.image().length, lat, 1, 1, 16, 0, false, 1);
        NpuAxiHost.Run run = host.run(c.image(), 0, c.program().bytes().length, mem, 1_000_000, false);
        StringBuilder s = new StringBuilder("probe lat " + lat + " rtl " + run.counter(Counter.CYCLES) + " stall "
            + run.counter(Counter.MEM_STALL_CYCLES) + " models");
        for (int d = 0; d <= 4; d++) {
          NpuConfig m = axi.toBuilder().memory(lat + d, axi.machine().lineBytes()).build();
          IsaSimulator.Result g = IsaSimulator.run(m.machine(), m.engineTiming(), c.image(), 0);
          s.append(" ").append(d).append(":").append(g.counter(Counter.CYCLES)).append("/")
              .append(g.counter(Counter.MEM_STALL_CYCLES));
        }
        System.out.println(s);
      }
    }
  }
}
