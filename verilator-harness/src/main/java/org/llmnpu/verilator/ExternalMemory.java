package org.llmnpu.verilator;

import org.llmnpu.hdl.sim.Simulator;

/**
 * The external-memory model on the C++ side of a running model (see {@link MemoryPortSource} for
 * the port and its timing), loaded and dumped in bulk, and a free-running run: a whole program
 * executes inside the model with no Java round trip per cycle. Obtain it with {@link #of}.
 */
public interface ExternalMemory {
  /** Allocates {@code bytes} zeroed bytes; read latency (cycles, ≥ 1) and cycles per beat (≥ 1). */
  void configure(long bytes, int latency, int beatInterval);

  /** Bytes per beat of the design's memory port. */
  int beatBytes();

  /** Writes {@code data} at {@code address}. */
  void load(long address, byte[] data);

  /** Reads {@code length} bytes at {@code address}. */
  byte[] dump(long address, int length);

  /**
   * Runs until output {@code port} is non-zero (sampled after each rising edge; use a registered
   * status port), at most {@code maxCycles}; returns the cycles run.
   *
   * @throws org.llmnpu.hdl.sim.SimulationException when the limit is reached first
   */
  long runUntilNonZero(String port, long maxCycles);

  /** Accesses outside the memory (reads returned zeros, writes were dropped). */
  long faults();

  /** Beats read and written since {@link #configure}. */
  long[] beats();

  /** The external memory of a model started by {@link Simulators}; the design must have a memory port. */
  static ExternalMemory of(Simulator sim) {
    if (sim instanceof ProtocolSimulator p) {
      return p.externalMemory();
    }
    throw new IllegalArgumentException("external memory needs a Verilator model started by Simulators, got "
        + sim.getClass().getName());
  }
}
