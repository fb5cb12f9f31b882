package org.llmnpu.hdl.examples;

import static org.llmnpu.hdl.Hw.bool;
import static org.llmnpu.hdl.Hw.sint;

import org.llmnpu.hdl.Bool;
import org.llmnpu.hdl.HwModule;
import org.llmnpu.hdl.SInt;

/**
 * Weight-stationary processing element: {@code psumOut <= psumIn + actIn * weight}
 * (8x8-bit signed product, 32-bit wrapping sum), {@code actOut <= actIn}; the weight
 * register loads {@code weightIn} when {@code load} is high and is passed down as
 * {@code weightOut}. Latency 1 cycle on every path.
 */
public final class MacPe extends HwModule {
  public final SInt actIn = in(sint(8));
  public final SInt weightIn = in(sint(8));
  public final Bool load = in(bool());
  public final SInt psumIn = in(sint(32));
  public final SInt actOut = out(sint(8));
  public final SInt weightOut = out(sint(8));
  public final SInt psumOut = out(sint(32));

  public MacPe() {
    SInt weight = reg("weight", sint(8));
    when(load, () -> weight.set(weightIn));
    actOut.set(regNext("act_q", actIn));
    weightOut.set(weight);
    psumOut.set(regNext("psum_q", psumIn.add(actIn.mul(weight).resize(32))));
  }
}
