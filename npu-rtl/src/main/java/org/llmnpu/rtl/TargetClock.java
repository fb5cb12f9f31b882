package org.llmnpu.rtl;

/**
 * The NPU's target clock: the period every shipped block is built to meet at its default
 * parameters, so an NPU assembled from them runs at the MAC array's clock rather than at its
 * slowest neighbour's.
 *
 * <p>5.75 ns (173.9 MHz) at 180 nm (osu018, Yosys timing-driven mapping + OpenSTA, the
 * {@code reports} PPA flow, which counts cell delays only — no wires). It was set to the Fmax of
 * the default 8×8 {@code mac-array} measured with the flow of that time (174.0 MHz, 5.747 ns).
 * With today's flow (timing-driven mapping at this period, the reset as a false path) the same
 * array reaches 192.3 MHz (critical delay 5.199 ns, slack 0.55 ns), so the target stays at
 * 5.75 ns as the NPU clock with about 10 % margin on the array, for the wire delay that a
 * pre-layout figure leaves out, rather than moving to 5.2 ns: the other blocks' stages are
 * balanced to 5.75 ns (the PPM's single 32-bit ripple-carry additions — bias add, rounding shift —
 * take about 5.3 ns in this library, so 5.2 ns would need every such addition split in two), and
 * the 2:4 and 4:8 arrays (170 and 166 MHz) sit below it already. {@code npu generate} writes it
 * into the block's SDC unless {@code --clock-ns} says otherwise; {@code cli}'s
 * {@code TargetClockRegressionTest} holds every shipped block to it.
 */
public final class TargetClock {
  /** Target period at 180 nm in ns (≈ 173.9 MHz). */
  public static final double PERIOD_NS = 5.75;
  /** {@link #PERIOD_NS} as text, for command-line defaults. */
  public static final String PERIOD_NS_TEXT = "5.75";

  private TargetClock() {
  }

  /** Target frequency in MHz. */
  public static double mhz() {
    return 1000 / PERIOD_NS;
  }
}
