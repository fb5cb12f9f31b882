package org.llmnpu.verilator.axi;

/**
 * Timing and behaviour of {@link Axi4SlaveMemory}.
 *
 * @param sizeBytes memory size in bytes (addresses at or above it answer DECERR)
 * @param readLatency cycles from an AR handshake to the earliest cycle its first R beat is presented, ≥ 1
 * @param writeLatency cycles from the last W beat's handshake to the earliest cycle its B response is presented, ≥ 1
 * @param cyclesPerBeat bandwidth: at most one R beat and one W beat every {@code cyclesPerBeat} cycles, ≥ 1
 * @param maxOutstandingReads AR requests accepted and not yet fully answered, at most; 1..256
 * @param backPressure probability in [0, 1) that AWREADY, WREADY or ARREADY is held low in a cycle it could be high
 * @param reorder answer reads (and write responses) of different IDs out of order, chosen at random among those
 *     whose latency has passed; same-ID responses stay in order, as AXI4 requires
 * @param seed seed of the random choices, so a run repeats exactly
 */
public record Axi4MemoryConfig(int sizeBytes, int readLatency, int writeLatency, int cyclesPerBeat,
                               int maxOutstandingReads, double backPressure, boolean reorder, long seed) {
  public Axi4MemoryConfig {
    require(sizeBytes >= 1, "sizeBytes must be >= 1, got " + sizeBytes);
    require(readLatency >= 1, "readLatency must be >= 1 cycle, got " + readLatency);
    require(writeLatency >= 1, "writeLatency must be >= 1 cycle, got " + writeLatency);
    require(cyclesPerBeat >= 1, "cyclesPerBeat must be >= 1, got " + cyclesPerBeat);
    require(maxOutstandingReads >= 1 && maxOutstandingReads <= 256,
        "maxOutstandingReads must be in 1..256, got " + maxOutstandingReads);
    require(backPressure >= 0 && backPressure < 1, "backPressure must be in [0, 1), got " + backPressure);
  }

  /** An ideal memory: latency 1, a beat a cycle, 16 outstanding reads, no back-pressure, in order. */
  public static Axi4MemoryConfig ideal(int sizeBytes) {
    return new Axi4MemoryConfig(sizeBytes, 1, 1, 1, 16, 0, false, 1);
  }

  private static void require(boolean ok, String message) {
    if (!ok) {
      throw new IllegalArgumentException(message);
    }
  }
}
