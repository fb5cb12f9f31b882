package org.llmnpu.verilator.axi;

import org.llmnpu.hdl.sim.SimulationException;
import org.llmnpu.hdl.sim.Simulator;

/**
 * A host CPU's view of an AXI4-Lite slave inside a running model: single 32-bit register writes and reads
 * through the ports {@code <prefix>awvalid ... <prefix>rresp}, driven cycle by cycle. Each access presents
 * its address (and data) in the cycle it starts, holds them until the slave's ready, and waits for the
 * response with {@code bready}/{@code rready} high; it returns after the response's handshake. A response
 * other than OKAY, or no response within {@code maxCycles}, is a {@link SimulationException}.
 */
public final class AxiLiteHost {
  private final Simulator sim;
  private final String p;
  private final int maxCycles;
  private long lastAccessCycles;
  private Runnable observer = () -> { };
  private final Runnable clock;

  /** A host on the ports with prefix {@code prefix} (e.g. {@code "ctrl_"}); an access may take {@code maxCycles}. */
  public AxiLiteHost(Simulator sim, String prefix, int maxCycles) {
    this(sim, prefix, maxCycles, sim::step);
  }

  /**
   * A host whose cycles are {@code clock} runs instead of plain steps: e.g. {@link Axi4SlaveMemory#tick()}, so that
   * the design's AXI4 memory keeps serving it while the host accesses the registers.
   */
  public AxiLiteHost(Simulator sim, String prefix, int maxCycles, Runnable clock) {
    this.clock = clock;
    this.sim = sim;
    this.p = prefix;
    this.maxCycles = maxCycles;
    for (String s : new String[] {"awvalid", "wvalid", "bready", "arvalid", "rready"}) {
      sim.poke(p + s, 0);
    }
    sim.poke(p + "wstrb", 0xF);
  }

  /** Writes {@code value} to the register at byte address {@code address}. */
  public void write(long address, long value) {
    long start = sim.cycle();
    sim.poke(p + "awaddr", address);
    sim.poke(p + "awprot", 0);
    sim.poke(p + "wdata", value & 0xFFFF_FFFFL);
    sim.poke(p + "awvalid", 1);
    sim.poke(p + "wvalid", 1);
    sim.poke(p + "bready", 1);
    boolean addressTaken = false;
    boolean dataTaken = false;
    while (true) {
      boolean aw = !addressTaken && sim.peekLong(p + "awready") == 1;
      boolean w = !dataTaken && sim.peekLong(p + "wready") == 1;
      boolean b = addressTaken && dataTaken && sim.peekLong(p + "bvalid") == 1;
      if (b) {
        long resp = sim.peekLong(p + "bresp");
        step();
        sim.poke(p + "bready", 0);
        finish(start, "write", address, resp);
        return;
      }
      step();
      addressTaken |= aw;
      dataTaken |= w;
      if (aw) {
        sim.poke(p + "awvalid", 0);
      }
      if (w) {
        sim.poke(p + "wvalid", 0);
      }
      timeout(start, "write", address);
    }
  }

  /** Reads the register at byte address {@code address}. */
  public long read(long address) {
    long start = sim.cycle();
    sim.poke(p + "araddr", address);
    sim.poke(p + "arprot", 0);
    sim.poke(p + "arvalid", 1);
    sim.poke(p + "rready", 1);
    boolean addressTaken = false;
    while (true) {
      boolean ar = !addressTaken && sim.peekLong(p + "arready") == 1;
      if (addressTaken && sim.peekLong(p + "rvalid") == 1) {
        long data = sim.peekLong(p + "rdata");
        long resp = sim.peekLong(p + "rresp");
        step();
        sim.poke(p + "rready", 0);
        finish(start, "read", address, resp);
        return data;
      }
      step();
      if (ar) {
        addressTaken = true;
        sim.poke(p + "arvalid", 0);
      }
      timeout(start, "read", address);
    }
  }

  /** Runs {@code observer} in every cycle of an access, before its clock edge (to watch other ports). */
  public void observeEachCycle(Runnable observer) {
    this.observer = observer;
  }

  private void step() {
    observer.run();
    clock.run();
  }

  /** Cycles the last access took, from its first cycle to its response's handshake included. */
  public long lastAccessCycles() {
    return lastAccessCycles;
  }

  private void finish(long start, String what, long address, long resp) {
    lastAccessCycles = sim.cycle() - start;
    if (resp != 0) {
      throw new SimulationException(String.format("AXI4-Lite %s of 0x%x answered %s", what, address,
          resp == 2 ? "SLVERR" : resp == 3 ? "DECERR" : "EXOKAY"));
    }
  }

  private void timeout(long start, String what, long address) {
    if (sim.cycle() - start > maxCycles) {
      throw new SimulationException(String.format("AXI4-Lite %s of 0x%x: no response within %d cycles", what,
          address, maxCycles));
    }
  }
}
