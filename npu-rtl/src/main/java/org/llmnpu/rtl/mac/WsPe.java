package org.llmnpu.rtl.mac;

import static org.llmnpu.hdl.Hw.bool;
import static org.llmnpu.hdl.Hw.mux;
import static org.llmnpu.hdl.Hw.sint;
import static org.llmnpu.hdl.Hw.uint;

import org.llmnpu.hdl.Bool;
import org.llmnpu.hdl.HwModule;
import org.llmnpu.hdl.SInt;
import org.llmnpu.hdl.UInt;
import org.llmnpu.hdl.Vec;

/**
 * Weight-stationary PE with a double-buffered weight.
 *
 * <p>{@code psumOut <= psumIn + act · weight} (exact INT8×INT8 product, {@code psumWidth}-bit sum
 * that cannot overflow for the array's column height); {@code actsOut <= actsIn},
 * {@code swapOut <= swapIn}: activations and the swap token move one PE to the right per cycle.
 *
 * <p>Double buffering: {@code loadShadow} writes {@code weightIn} into the shadow register while
 * the active weight keeps computing. The first activation of a new tile carries {@code swapIn}:
 * in that cycle the PE multiplies by the shadow weight and copies it into the active register,
 * so the swap sweeps the array with the activation wavefront and no cycle is lost.
 *
 * <p>N:M ({@code actsIn} has M lanes: 4 with 2:4, 8 with 4:8): the PE holds a value and its
 * {@code log2 M}-bit position in the group (double-buffered like the value) and multiplies the
 * activation it selects. Latency 1 cycle on every path.
 *
 * <p>With {@code lateSwap} the PE forms the products of both weights (shadow and active, each with its own
 * selected activation under N:M) and {@code swapIn} picks one after the multipliers: the same result, for a PE
 * whose {@code swapIn} arrives late in the cycle. {@link MacArray} builds its first PE (row 0, column 0) so: its
 * swap is the array's {@code tileStart} itself, which the GEMM engine decodes from its streamer's state in the
 * same cycle (every other PE's swap comes from a register); in the default NPU that decode before the weight
 * select put this PE 0.1 ns over the 5.75 ns target clock.
 *
 * <p>With {@code externalShadow} ({@link #withExternalShadow}) the shadow registers are the array's, not the PE's:
 * the PE reads them through {@code shadowIn} (and {@code shadowIndexIn} with N:M) and has no {@code weightIn},
 * {@code indexIn}, {@code loadShadow}; the array puts each PE row's shadows on a clock gate opened by the row's
 * load and the PE's other registers on a gate opened by its wavefront ({@link MacArray}).
 */
public final class WsPe extends HwModule {
  public final Vec<SInt> actsIn;
  public final Bool swapIn;
  public final SInt weightIn;
  public final UInt indexIn;
  public final Bool loadShadow;
  /** With {@code externalShadow}: the shadow weight (and its N:M index), else null. */
  public final SInt shadowIn;
  public final UInt shadowIndexIn;
  public final SInt psumIn;
  public final Vec<SInt> actsOut;
  public final Bool swapOut;
  public final SInt psumOut;
  private final WeightSparsity sparsity;
  private final int psumWidth;
  private final boolean lateSwap;
  private final boolean externalShadow;

  public WsPe(WeightSparsity sparsity, int psumWidth) {
    this(sparsity, psumWidth, false);
  }

  /** With {@code lateSwap}: both weights' products, selected by {@code swapIn} after the multipliers. */
  public WsPe(WeightSparsity sparsity, int psumWidth, boolean lateSwap) {
    this(sparsity, psumWidth, lateSwap, false);
  }

  /** A PE whose shadow registers are outside it, read through {@link #shadowIn} (class comment). */
  public static WsPe withExternalShadow(WeightSparsity sparsity, int psumWidth, boolean lateSwap) {
    return new WsPe(sparsity, psumWidth, lateSwap, true);
  }

  private WsPe(WeightSparsity sparsity, int psumWidth, boolean lateSwap, boolean externalShadow) {
    this.sparsity = sparsity;
    this.psumWidth = psumWidth;
    this.lateSwap = lateSwap;
    this.externalShadow = externalShadow;
    // the ports in the order of the PE with its own shadows (swapIn, weightIn, loadShadow, swapOut, then the rest)
    swapIn = in(bool());
    weightIn = externalShadow ? null : in(sint(8));
    loadShadow = externalShadow ? null : in(bool());
    swapOut = out(bool());
    boolean sparse = sparsity.sparse();
    int lanes = sparsity.group();
    int indexBits = sparsity.indexBits();
    actsIn = in(Vec.of(lanes, () -> sint(8)));
    indexIn = sparse && !externalShadow ? in(uint(indexBits)) : null;
    shadowIn = externalShadow ? in(sint(8)) : null;
    shadowIndexIn = sparse && externalShadow ? in(uint(indexBits)) : null;
    psumIn = in(sint(psumWidth));
    actsOut = out(Vec.of(lanes, () -> sint(8)));
    psumOut = out(sint(psumWidth));

    SInt shadow = externalShadow ? shadowIn : reg("shadow", sint(8));
    SInt active = reg("active", sint(8));
    if (!externalShadow) {
      when(loadShadow, () -> shadow.set(weightIn));
    }
    when(swapIn, () -> active.set(shadow));
    SInt product;
    if (sparse) {
      UInt shadowIndex = externalShadow ? shadowIndexIn : reg("shadowIndex", uint(indexBits));
      UInt activeIndex = reg("activeIndex", uint(indexBits));
      if (!externalShadow) {
        when(loadShadow, () -> shadowIndex.set(indexIn));
      }
      when(swapIn, () -> activeIndex.set(shadowIndex));
      product = lateSwap
          ? mux(swapIn, actsIn.read(shadowIndex).mul(shadow), actsIn.read(activeIndex).mul(active))
          : wire("act", actsIn.read(mux(swapIn, shadowIndex, activeIndex))).mul(wire("weight", mux(swapIn, shadow,
              active)));
    } else {
      SInt act = actsIn.get(0);
      product = lateSwap ? mux(swapIn, act.mul(shadow), act.mul(active)) : act.mul(wire("weight", mux(swapIn, shadow,
          active)));
    }
    for (int i = 0; i < lanes; i++) {
      actsOut.get(i).set(regNext("act_q" + i, actsIn.get(i)));
    }
    swapOut.set(regNext("swap_q", swapIn));
    psumOut.set(regNext("psum_q", psumIn.add(product.resize(psumWidth))));
  }

  @Override
  public String moduleName() {
    return "WsPe_" + (sparsity.sparse() ? sparsity.cliName().replace("_", "") : "dense") + "_p" + psumWidth
        + (lateSwap ? "_late" : "") + (externalShadow ? "_xs" : "");
  }
}
