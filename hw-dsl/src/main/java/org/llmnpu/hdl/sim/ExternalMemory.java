package org.llmnpu.hdl.sim;

/**
 * The external-memory model that serves a design's memory port inside a running simulation: loaded
 * and dumped in bulk, with a read latency and a bandwidth, and a free-running run in which a whole
 * program executes inside the model with no round trip per cycle. Obtain it with
 * {@link Simulator#externalMemory()}; the Verilator harness describes the port and its timing.
 */
public interface ExternalMemory {
  /**
   * Allocates {@code bytes} zeroed bytes; read latency (cycles, ≥ 1) and cycles per beat (≥ 1). The memory is a new
   * one: no read of an earlier (e.g. interrupted) run is still in flight and it takes a request at once.
   */
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
   * @throws SimulationException when the limit is reached first
   */
  long runUntilNonZero(String port, long maxCycles);

  /** Accesses outside the memory (reads returned zeros, writes were dropped). */
  long faults();

  /** Beats read and written since {@link #configure}. */
  long[] beats();
}
