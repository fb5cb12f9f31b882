package org.llmnpu.rtl;

/**
 * The NPU's target clock: the period every shipped block is built to meet at its default
 * parameters, so an NPU assembled from them runs at the MAC array's clock rather than at its
 * slowest neighbour's.
 *
 * <p>The default is the Fmax of the default 8×8 {@code mac-array} (PEs and periphery
 * accumulators) at 180 nm (osu018, Yosys timing-driven mapping + OpenSTA, the {@code reports} PPA
 * flow): 174.0 MHz, a critical delay of 5.747 ns, so the period is 5.75 ns (the bare PE grid,
 * {@code pe-array}, reaches 177 MHz). {@code npu generate} writes it into the block's SDC unless {@code --clock-ns}
 * says otherwise.
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
