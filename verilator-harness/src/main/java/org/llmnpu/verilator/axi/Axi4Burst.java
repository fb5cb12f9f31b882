package org.llmnpu.verilator.axi;

/**
 * One AXI4 burst request as seen on AW or AR: {@code len} is AxLEN (beats − 1), {@code size} is AxSIZE (bytes
 * per beat = 2^size), {@code type} is AxBURST (0 FIXED, 1 INCR, 2 WRAP, 3 reserved).
 */
public record Axi4Burst(long id, long address, long len, int size, int type) {
  public static final int FIXED = 0;
  public static final int INCR = 1;
  public static final int WRAP = 2;

  /** Beats in the burst. */
  public long beats() {
    return len + 1;
  }

  /** Byte address of beat {@code i} (AXI4 A3.4.1: aligned after the first beat for INCR, wrapping for WRAP). */
  public long beatAddress(long i) {
    long bytes = 1L << size;
    long aligned = address & -bytes;
    return switch (type) {
      case FIXED -> address;
      case WRAP -> {
        long total = bytes * beats();
        long lower = address & -total;
        yield lower + ((address - lower + i * bytes) % total);
      }
      default -> i == 0 ? address : aligned + i * bytes;
    };
  }

  /** True when an INCR burst's bytes span two 4 KiB pages (forbidden by AXI4 A3.4.1). */
  public boolean crosses4KiB() {
    if (type != INCR) {
      return false;
    }
    long last = (address & -(1L << size)) + beats() * (1L << size) - 1;
    return (address >>> 12) != (last >>> 12);
  }

  @Override
  public String toString() {
    return String.format("id %d addr 0x%x len %d size %d burst %s", id, address, len, size,
        type == FIXED ? "FIXED" : type == INCR ? "INCR" : type == WRAP ? "WRAP" : "reserved(" + type + ")");
  }
}
