package org.llmnpu.spinal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.llmnpu.hdl.ToolsForTests;
import org.llmnpu.hdl.emit.Verilog;
import org.llmnpu.hdl.emit.VerilogDesign;
import org.llmnpu.hdl.sim.Simulator;
import org.llmnpu.hdl.tools.DesignChecks;
import org.llmnpu.verilator.SimModes;
import org.llmnpu.verilator.axi.AxiLiteHost;

/** The SpinalHDL control registers imported into hw-dsl: lint, synthesis and the register map in Verilator. */
class NpuControlRegsTest {
  static final int ID = 0x00;
  static final int PROG_BASE = 0x04;
  static final int PROG_LEN = 0x08;
  static final int CTRL = 0x0C;
  static final int STATUS = 0x10;
  static final int IRQ_ENABLE = 0x14;
  static final int IRQ_STATUS = 0x18;
  static final int COUNTER_0 = 0x20;

  @TempDir
  Path dir;

  @Test
  void importedIpIsLintCleanUnderWallAndSynthesizes() {
    ToolsForTests.require("verilator");
    ToolsForTests.require("yosys");
    VerilogDesign d = Verilog.emit(new ControlRegsTop());
    assertEquals(List.of("NpuControlRegs.v", "ControlRegsTop.v"), List.copyOf(d.files().keySet()));
    d.writeTo(dir);
    List<String> findings = DesignChecks.lint(d, dir).stream().filter(f -> !f.startsWith("%Error: Exiting")).toList();
    List<String> waived = LintWaivers.read(SpinalIp.class, "NpuControlRegs.lint-waivers.txt");
    List<String> unwaived = findings.stream().filter(f -> waived.stream().noneMatch(w -> LintWaivers.matches(w, f)))
        .toList();
    List<String> stale = waived.stream().filter(w -> findings.stream().noneMatch(f -> LintWaivers.matches(w, f)))
        .toList();
    assertEquals(List.of(), unwaived, "verilator -Wall findings not in the reviewed waiver list");
    assertEquals(List.of(), stale, "waivers that no longer match a finding");
    assertTrue(findings.stream().noneMatch(f -> f.contains("ControlRegsTop.v")), "hw-dsl's own Verilog is clean");
    assertTrue(DesignChecks.synthesize(d, dir) > 0, "yosys produced no cells");
  }

  @Test
  void registerMapBehavesAsDocumented() {
    try (Simulator sim = SimModes.startLocal(new ControlRegsTop())) {
      for (String in : new String[] {"io_busy", "io_done", "io_error", "io_errorCause"}) {
        sim.poke(in, 0);
      }
      sim.reset(2);
      AxiLiteHost host = new AxiLiteHost(sim, "ctrl_", 50);
      assertEquals(0x4E505501L, host.read(ID));
      long readCycles = host.lastAccessCycles();
      host.write(PROG_BASE, 0);
      assertEquals(2, readCycles, "read: AR handshake, then R the next cycle");
      assertEquals(2, host.lastAccessCycles(), "write: AW and W handshake, then B the next cycle");
      // RW registers against a model, random values and unmapped addresses
      Random random = new Random(5);
      long base = 0;
      long len = 0;
      for (int i = 0; i < 40; i++) {
        long value = random.nextLong() & 0xFFFF_FFFFL;
        int register = new int[] {PROG_BASE, PROG_LEN, 0x3C, 0x80}[random.nextInt(4)];
        host.write(register, value);
        base = register == PROG_BASE ? value : base;
        len = register == PROG_LEN ? value : len;
        assertEquals(base, host.read(PROG_BASE));
        assertEquals(len, host.read(PROG_LEN));
        assertEquals(base, sim.peekLong("io_progBase"));
        assertEquals(len, sim.peekLong("io_progLen"));
        assertEquals(0, host.read(0x80), "unmapped reads 0");
      }
      // counters pass through
      for (int i = 0; i < 4; i++) {
        sim.poke("io_counters_" + i, 1000L * (i + 1) + i);
      }
      for (int i = 0; i < 4; i++) {
        assertEquals(1000L * (i + 1) + i, host.read(COUNTER_0 + 4 * i));
      }
      // start: one pulse, none while busy
      host.write(IRQ_ENABLE, 0b11);
      assertEquals(0b11, host.read(IRQ_ENABLE));
      int pulses = countStartPulsesDuring(sim, host, () -> host.write(CTRL, 1));
      assertEquals(1, pulses, "one start pulse per CTRL write");
      sim.poke("io_busy", 1);
      assertEquals(0, countStartPulsesDuring(sim, host, () -> host.write(CTRL, 1)), "no start while busy");
      assertEquals(0, countStartPulsesDuring(sim, host, () -> host.write(CTRL, 2)), "bit 0 starts, not others");
      assertEquals(1, host.read(STATUS) & 1, "busy");
      // done: sticky status and interrupt until cleared
      pulse(sim, "io_done");
      sim.poke("io_busy", 0);
      sim.step();
      assertEquals(1, sim.peekLong("io_irq"));
      assertEquals(0b010, host.read(STATUS) & 0b111);
      assertEquals(0b01, host.read(IRQ_STATUS));
      host.write(IRQ_STATUS, 0b01);
      sim.step();
      assertEquals(0, host.read(IRQ_STATUS));
      assertEquals(0, sim.peekLong("io_irq"));
      assertEquals(0b010, host.read(STATUS) & 0b111, "done stays until the next start");
      // error with its cause; masked interrupt
      host.write(IRQ_ENABLE, 0b01);
      sim.poke("io_errorCause", 0x5A);
      pulse(sim, "io_error");
      sim.poke("io_errorCause", 0);
      sim.step(2);
      assertEquals(0, sim.peekLong("io_irq"), "error interrupt disabled");
      assertEquals(0x5A00 | 0b110, host.read(STATUS) & 0xFF07);
      assertEquals(0b10, host.read(IRQ_STATUS));
      host.write(IRQ_ENABLE, 0b10);
      sim.step(2);
      assertEquals(1, sim.peekLong("io_irq"), "enabling a pending interrupt raises irq");
      host.write(CTRL, 1);
      assertEquals(0, host.read(STATUS) & 0b110, "start clears done and error");
    }
  }

  private static void pulse(Simulator sim, String port) {
    sim.poke(port, 1);
    sim.step();
    sim.poke(port, 0);
  }

  private static int countStartPulsesDuring(Simulator sim, AxiLiteHost host, Runnable access) {
    int[] pulses = {0};
    Runnable watch = () -> pulses[0] += (int) sim.peekLong("io_start");
    host.observeEachCycle(watch);
    access.run();
    host.observeEachCycle(() -> { });
    for (int i = 0; i < 3; i++) {  // and a few cycles after the response
      watch.run();
      sim.step();
    }
    return pulses[0];
  }
}
