package org.llmnpu.cosim.axi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.Test;
import org.llmnpu.cosim.RandomPrograms;
import org.llmnpu.hdl.sim.Simulator;
import org.llmnpu.isa.Counter;
import org.llmnpu.isa.ErrorCause;
import org.llmnpu.isa.IsaSimulator;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.isa.Program;
import org.llmnpu.rtl.npu.axi.NpuAxiStatus;
import org.llmnpu.verilator.SimModes;
import org.llmnpu.verilator.axi.Axi4MemoryConfig;
import org.llmnpu.verilator.axi.Axi4SlaveMemory;
import org.llmnpu.verilator.axi.AxiLiteHost;

/**
 * The AXI NPU's register map as a host sees it: ID, PROG_BASE/PROG_LEN, STATUS with done and the error cause (an NPU
 * error, a bus read error, a bus write error), IRQ_ENABLE masking {@code irq}, IRQ_STATUS pending and cleared, and the
 * counters.
 */
class NpuAxiRegisterMapTest {
  @Test
  void statusErrorCauseInterruptAndCounters() {
    MachineParams p = NpuAxiCosimTest.AXI.machine();
    try (NpuAxiHost host = NpuAxiHost.start(NpuAxiCosimTest.AXI, SimModes.local())) {
      Simulator sim = host.simulator();
      RandomPrograms.Case c = RandomPrograms.generate(p, new Random(5), 2, false);
      int size = c.image().length;
      Axi4MemoryConfig ideal = new Axi4MemoryConfig(size, 4, 2, 1, 8, 0, false, 1);

      // registers before any run
      sim.reset(2);
      Axi4SlaveMemory idle = new Axi4SlaveMemory(sim, "m_axi_", p.lineBytes(), ideal);
      AxiLiteHost regs = host.registers(idle);
      assertEquals(0x4E505501L, regs.read(NpuAxiHost.ID));
      regs.write(NpuAxiHost.PROG_BASE, 0x1230);
      regs.write(NpuAxiHost.PROG_LEN, 96);
      assertEquals(0x1230, regs.read(NpuAxiHost.PROG_BASE));
      assertEquals(96, regs.read(NpuAxiHost.PROG_LEN));
      assertEquals(0, regs.read(NpuAxiHost.STATUS), "idle, not done, no error");

      // a polled run with the interrupt disabled: done, irq low, IRQ_STATUS pending; enabling raises irq
      IsaSimulator.Result g = IsaSimulator.run(p, NpuAxiCosimTest.AXI.engineTiming(), c.image(), 0);
      NpuAxiHost.Run run = host.run(c.image(), 0, c.program().bytes().length, ideal, 1_000_000, true);
      assertTrue(run.done());
      assertEquals(0, run.errorCause());
      assertEquals(g.counter(Counter.COMMANDS), run.counter(Counter.COMMANDS));
      assertEquals(g.counter(Counter.MACS), run.counter(Counter.MACS));
      assertTrue(run.counter(Counter.CYCLES) > 0 && run.counter(Counter.CYCLES) <= run.cycles());
      assertTrue(run.counter(Counter.MEM_STALL_CYCLES) < run.counter(Counter.CYCLES));
      assertEquals(0, sim.peekLong("irq"), "irq masked");
      Axi4SlaveMemory after = new Axi4SlaveMemory(sim, "m_axi_", p.lineBytes(), ideal);
      regs = host.registers(after);
      assertEquals(0b01, regs.read(NpuAxiHost.IRQ_STATUS), "done pending");
      assertEquals(0b010, regs.read(NpuAxiHost.STATUS) & 0b111);
      regs.write(NpuAxiHost.IRQ_ENABLE, 0b01);
      after.tick();
      after.tick();
      assertEquals(1, sim.peekLong("irq"), "enabling the pending done raises irq");
      regs.write(NpuAxiHost.IRQ_STATUS, 0b01);
      after.tick();
      assertEquals(0, sim.peekLong("irq"), "write 1 to clear");
      for (int i = 0; i < NpuAxiStatus.SHOWN.size(); i++) {
        assertEquals(run.counter(NpuAxiStatus.SHOWN.get(i)), regs.read(NpuAxiHost.COUNTER_0 + 4L * i),
            "COUNTER_" + i + " holds after the run");
      }

      // an NPU error: an undefined opcode in the second command
      byte[] bad = c.image().clone();
      bad[RandomPrograms.commandBytes()] = (byte) 0xEE;
      IsaSimulator.Result gb = IsaSimulator.run(p, NpuAxiCosimTest.AXI.engineTiming(), bad, 0);
      assertEquals(ErrorCause.UNDEFINED_OPCODE, gb.error());
      NpuAxiHost.Run err = host.run(bad, 0, 64, ideal, 100_000, false);
      assertFalse(err.done());
      assertEquals(ErrorCause.UNDEFINED_OPCODE.code(), err.errorCause());
      assertEquals(gb.counter(Counter.COMMANDS), err.counter(Counter.COMMANDS));

      // bus errors: a memory smaller than the NPU believes answers DECERR beyond it
      Axi4MemoryConfig small = new Axi4MemoryConfig(1 << 16, 4, 2, 1, 8, 0, false, 1);
      byte[] image = new byte[size];
      byte[] load = Program.builder().load(1 << 17, p.lineBytes(), 0, p.lineBytes(), p.lineBytes(), 2).halt().build()
          .bytes();
      System.arraycopy(load, 0, image, 0, load.length);
      NpuAxiHost.Run readError = host.run(image, 0, load.length, small, 100_000, false);
      assertFalse(readError.done());
      assertEquals(NpuAxiStatus.BUS_READ_ERROR, readError.errorCause());
      byte[] store = Program.builder().store(1 << 17, p.lineBytes(), 0, p.lineBytes(), p.lineBytes(), 2).halt()
          .build().bytes();
      java.util.Arrays.fill(image, (byte) 0);
      System.arraycopy(store, 0, image, 0, store.length);
      NpuAxiHost.Run writeError = host.run(image, 0, store.length, small, 100_000, false);
      assertFalse(writeError.done());
      assertEquals(NpuAxiStatus.BUS_WRITE_ERROR, writeError.errorCause());

      // early stop: a bus error halts the NPU at once; the program's 12 further stores never run
      NpuAxiHost.Run readStop = runAfterBusError(host, image, p, small, true);
      assertTrue(readStop.counter(Counter.COMMANDS) <= 2, "commands after a read error: "
          + readStop.counter(Counter.COMMANDS) + " of 14");
      assertEquals(0, readStop.writeBeats(), "no store after the read error");
      NpuAxiHost.Run writeStop = runAfterBusError(host, image, p, small, false);
      // the B error comes write latency (2) + a few cycles after the bad store's beats: at most a store or two more
      assertTrue(writeStop.counter(Counter.COMMANDS) <= 4, "commands after a write error: "
          + writeStop.counter(Counter.COMMANDS) + " of 14");
      assertTrue(writeStop.writeBeats() <= 4 * 2, "W beats after a write error: " + writeStop.writeBeats());
      // the host can run again after a bus error: the first program's run is done and bit-exact
      NpuAxiHost.Run again = host.run(c.image(), 0, c.program().bytes().length, ideal, 1_000_000, true);
      assertTrue(again.done(), again.status());
      assertEquals(g.counter(Counter.COMMANDS), again.counter(Counter.COMMANDS));
    }
  }

  /** Runs {@link #busErrorThenStores} from {@code image} (cleared first); the run ended with the bus error's cause. */
  private static NpuAxiHost.Run runAfterBusError(NpuAxiHost host, byte[] image, MachineParams p,
      Axi4MemoryConfig memory, boolean read) {
    byte[] program = busErrorThenStores(p, read);
    java.util.Arrays.fill(image, (byte) 0);
    System.arraycopy(program, 0, image, 0, program.length);
    NpuAxiHost.Run run = host.run(image, 0, program.length, memory, 100_000, false);
    assertEquals(read ? NpuAxiStatus.BUS_READ_ERROR : NpuAxiStatus.BUS_WRITE_ERROR, run.errorCause());
    assertTrue(run.status().contains(read ? "bus read error" : "bus write error"), run.status());
    return run;
  }

  /**
   * A load ({@code read}) or a store beyond a 64 KiB memory (2 rows of a line), then 12 stores of 2 lines into it and
   * {@code halt}: 14 commands.
   */
  private static byte[] busErrorThenStores(MachineParams p, boolean read) {
    int line = p.lineBytes();
    Program.Builder b = Program.builder();
    if (read) {
      b.load(1 << 17, line, 0, line, line, 2);
    } else {
      b.store(1 << 17, line, 0, line, line, 2);
    }
    for (int i = 0; i < 12; i++) {
      b.store(0x8000 + 64L * i, line, 0, line, line, 2);
    }
    return b.halt().build().bytes();
  }
}
