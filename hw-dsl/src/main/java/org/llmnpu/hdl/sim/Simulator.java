package org.llmnpu.hdl.sim;

import java.math.BigInteger;
import java.nio.file.Path;

/**
 * A running simulation of a generated design, driven through its top-level ports.
 * Pokes and steps are batched; a peek or a wait returns the value after every command
 * sent before it. Ports of any width (beyond 64 bits as {@link BigInteger}).
 *
 * <p>Clocking: every input named {@code clk} or ending in {@code _clk} is toggled by
 * {@link #step}: one cycle is a falling then a rising edge, after which registers hold
 * their new values. Values poked before a step are seen at that rising edge.
 */
public interface Simulator extends AutoCloseable {
  /** Sets an input port (the low {@code width} bits of {@code value}, two's complement). */
  void poke(String port, BigInteger value);

  default void poke(String port, long value) {
    poke(port, BigInteger.valueOf(value));
  }

  /** The current value of a port as an unsigned bit pattern. */
  BigInteger peek(String port);

  default long peekLong(String port) {
    return peek(port).longValue();
  }

  /** The current value read as a two's-complement signed number of the port's width. */
  BigInteger peekSigned(String port);

  /** Advances {@code cycles} clock cycles. */
  void step(int cycles);

  default void step() {
    step(1);
  }

  /**
   * Holds the design's reset active for {@code cycles} cycles and releases it: the port
   * {@code reset} or {@code rst} (active high), or {@code reset_n}, {@code rst_n},
   * {@code resetn}, {@code aresetn}, {@code areset_n} (active low).
   */
  void reset(int cycles);

  /**
   * Steps until {@code port} equals {@code value}, checking before each cycle; returns the
   * cycles stepped. Throws {@link SimulationException} naming the port, the cycles run and
   * the limit when it does not happen within {@code maxCycles}.
   */
  long runUntil(String port, BigInteger value, long maxCycles);

  default long runUntil(String port, long value, long maxCycles) {
    return runUntil(port, BigInteger.valueOf(value), maxCycles);
  }

  /**
   * The model that serves the design's memory port (a port with the prefix {@code P} of
   * {@code P_req_valid} ... {@code P_resp_data}).
   *
   * @throws UnsupportedOperationException when this simulator has no such model or the design no such port
   */
  default ExternalMemory externalMemory() {
    throw new UnsupportedOperationException(getClass().getSimpleName() + " has no external-memory model; start a "
        + "Verilator model of a design with a memory port (P_req_valid ... P_resp_data)");
  }

  /** Cycles stepped since the start. */
  long cycle();

  /** Starts or stops writing waveforms (the model must be built with waveforms, see options). */
  void waves(boolean on);

  /** Where the waveform file is (VCD or FST), or null when the model has none. */
  Path waveFile();

  /** The file of every command sent, which replays the run without Java. */
  Path replayFile();

  /** Ends the model process (and its container) and collects the waveform file. */
  @Override
  void close();
}
