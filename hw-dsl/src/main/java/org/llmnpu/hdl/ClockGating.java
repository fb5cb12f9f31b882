package org.llmnpu.hdl;

/**
 * How {@link HwModule#clockGated} builds a gated register bank.
 *
 * <ul>
 *   <li>{@link #OFF}: no gate; the bank's registers run on the enclosing clock (the ungated design).</li>
 *   <li>{@link #ON}: an integrated clock-gating cell ({@link ClockGateCell}: a latch transparent while the clock
 *       is low holding the enable, ANDed with the clock) drives the bank's clock; registers hold their value in
 *       cycles whose enable is low.</li>
 *   <li>{@link #CHECKED}: for simulation tests. The bank runs on the enclosing clock (the ungated design) and a
 *       simulation check stops the simulation ({@code $stop}, with a message naming the bank) at the first clock
 *       edge after a cycle in which a register of the bank changed while its enable was low: an enable that
 *       {@link #ON} would have made wrong is caught, not silently masked. Memories of the bank are not
 *       checked.</li>
 * </ul>
 */
public enum ClockGating {
  OFF, ON, CHECKED;

  /** The mode named {@code off}, {@code on} or {@code checked} (any case); an error naming the parameter. */
  public static ClockGating parse(String parameter, String value) {
    for (ClockGating g : values()) {
      if (g.name().equalsIgnoreCase(value.strip())) {
        return g;
      }
    }
    throw new IllegalArgumentException(parameter + " must be one of on, off, checked; got '" + value + "'");
  }

  /** The lower-case name ({@code on}, {@code off}, {@code checked}). */
  public String key() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }
}
