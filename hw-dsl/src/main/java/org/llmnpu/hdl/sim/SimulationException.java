package org.llmnpu.hdl.sim;

/** A simulation that failed: model crash, compile error, timeout or an unmet wait. */
public final class SimulationException extends RuntimeException {
  public SimulationException(String message) {
    super(message);
  }

  public SimulationException(String message, Throwable cause) {
    super(message, cause);
  }
}
