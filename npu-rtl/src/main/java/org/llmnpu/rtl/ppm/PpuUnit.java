package org.llmnpu.rtl.ppm;

import static org.llmnpu.hdl.Hw.mux;
import static org.llmnpu.hdl.Hw.sint;
import static org.llmnpu.hdl.Hw.sintLit;
import static org.llmnpu.hdl.Hw.uint;
import static org.llmnpu.hdl.Hw.uintLit;

import java.util.ArrayList;
import java.util.List;
import org.llmnpu.hdl.Bool;
import org.llmnpu.hdl.HwModule;
import org.llmnpu.hdl.SInt;
import org.llmnpu.hdl.UInt;
import org.llmnpu.hdl.Vec;

/**
 * One lane of the programmable piecewise-polynomial unit, equal to
 * {@code org.llmnpu.numerics.ppu.PpuEvaluator.evaluate} on the C-LUT contents it is given,
 * in {@link PpmConfig#ppuStages()} = {@code 3·degree + 4} register stages:
 * <ol>
 *   <li><b>segment search</b>: {@code s} = number of boundaries {@code b ≤ q} (comparators and a
 *       population count);</li>
 *   <li><b>select</b>: {@code t = q − base(s)} (8 bits unsigned; base(0) = −128) and the
 *       coefficients of segment s;</li>
 *   <li><b>Horner</b>, three stages per step k = degree−1 … 0 (one carry chain each: the exact
 *       product {@code acc · t}; {@code shifted = sat32(rshift(product, hornerShift[k]))};
 *       {@code acc = sat32(shifted + c[k])}), starting from
 *       {@code acc = c[degree]}, where {@code hornerShift[k] = fracBits[k+1] − fracBits[k]};</li>
 *   <li><b>output</b>, two stages (the rounding shift, then the clamp, so that neither exceeds the
 *       NPU's target clock): {@code y = clamp(rshift(acc, outputShift), −128, 127)},
 *       {@code outputShift = fracBits[0]}.</li>
 * </ol>
 * {@code rshift} rounds to nearest, ties away from zero, on the exact value. The table inputs are
 * read combinationally, so they must be stable while an element of this lane is in flight.
 */
public final class PpuUnit extends HwModule {
  public final SInt q = in(sint(8));
  /** segments − 1 boundaries (INT8 codes); null for a single segment. */
  public final Vec<SInt> boundaries;
  /** Coefficient of t^k in segment s at index {@code s·(degree+1) + k}. */
  public final Vec<SInt> coefficients;
  /** Right shift after the product of Horner step k, k = 0..degree−1; null for degree 0. */
  public final Vec<UInt> hornerShift;
  public final UInt outputShift = in(uint(PpmConfig.SHIFT_BITS));
  public final SInt y = out(sint(8));
  private final PpmConfig config;

  public PpuUnit(PpmConfig c) {
    config = c;
    int d = c.degree();
    boundaries = c.segments() > 1 ? in(Vec.of(c.segments() - 1, () -> sint(8))) : null;
    coefficients = in(Vec.of(c.segments() * (d + 1), () -> sint(c.coeffBits())));
    hornerShift = d > 0 ? in(Vec.of(d, () -> uint(PpmConfig.SHIFT_BITS))) : null;

    UInt segment = c.segments() > 1 ? regNext("segment", segmentOf(q)) : null;
    SInt qAtSelect = d > 0 ? regNext("qAtSelect", q) : null;

    List<SInt> baseOfSegment = new ArrayList<>();
    baseOfSegment.add(sintLit(-128, 8));
    for (int s = 1; s < c.segments(); s++) {
      baseOfSegment.add(boundaries.get(s - 1));
    }
    UInt offset = d > 0 ? regNext("offset", qAtSelect.sub(select(baseOfSegment, segment)).asUInt()) : null;
    List<SInt> coeff = new ArrayList<>();
    for (int k = 0; k <= d; k++) {
      List<SInt> column = new ArrayList<>();
      for (int s = 0; s < c.segments(); s++) {
        column.add(coefficients.get(s * (d + 1) + k));
      }
      coeff.add(regNext("coeff" + k, select(column, segment)));
    }

    int h = c.hornerStages();
    SInt acc = coeff.get(d);
    UInt t = offset;
    for (int k = d - 1; k >= 0; k--) {
      SInt product = hornerProduct(k, acc, t, coeff);
      SInt shifted;
      if (h == 3) {
        shifted = regNext("horner" + k + "_shifted",
            FixedPointHw.roundingShiftRight(product, hornerShift.get(k)).saturate(32));
      } else {
        SInt floor = regNext("horner" + k + "_floor", FixedPointHw.floorShiftKeepingRoundBit(product, hornerShift.get(k)));
        Bool sticky = regNext("horner" + k + "_sticky", FixedPointHw.stickyBelowRoundBit(product, hornerShift.get(k)));
        delay(coeff, k + 1, "_f" + k);
        shifted = regNext("horner" + k + "_shifted", FixedPointHw.roundUpFromRoundBit(floor, sticky).saturate(32));
      }
      delay(coeff, k + 1, "_s" + k);
      acc = regNext("horner" + k, FixedPointHw.saturatingAdd(shifted, coeff.get(k).resize(32), 32));
      if (k > 0) {
        for (int stage = 0; stage < h; stage++) {
          t = regNext("offset" + k + "_" + stage, t);
        }
        delay(coeff, k, "_h" + k);
      }
    }
    SInt rounded;
    if (c.outputStages() == 2) {
      rounded = regNext("outputRounded", FixedPointHw.roundingShiftRight(acc, outputShift));
    } else {
      SInt floor = regNext("outputFloor", FixedPointHw.floorShiftKeepingRoundBit(acc, outputShift));
      Bool sticky = regNext("outputSticky", FixedPointHw.stickyBelowRoundBit(acc, outputShift));
      rounded = regNext("outputRounded", FixedPointHw.roundUpFromRoundBit(floor, sticky));
    }
    y.set(regNext("output", FixedPointHw.clamp(rounded, sintLit(-128, 8), sintLit(127, 8))));
  }

  /**
   * The exact product {@code acc · t} of Horner step k, registered: in one stage, or (with
   * {@code hornerStages} 5) as two registered partial products {@code acc · t[3:0]} and
   * {@code acc · t[7:4]} summed in the next stage. Coefficients 0..k move along.
   */
  private SInt hornerProduct(int k, SInt acc, UInt t, List<SInt> coeff) {
    int width = acc.width() + t.width() + 1;
    if (config.hornerStages() < 5) {
      SInt product = regNext("horner" + k + "_product", acc.mul(t.toSInt()));
      delay(coeff, k + 1, "_p" + k);
      return product;
    }
    SInt low = regNext("horner" + k + "_productLow", acc.mul(t.slice(3, 0).toSInt()));
    SInt high = regNext("horner" + k + "_productHigh", acc.mul(t.slice(7, 4).toSInt()));
    delay(coeff, k + 1, "_l" + k);
    SInt product = regNext("horner" + k + "_product",
        high.resize(width).shiftLeft(4).resize(width).add(low.resize(width)));
    delay(coeff, k + 1, "_p" + k);
    return product;
  }

  /** Number of boundaries at or below q: the population count of the comparator outputs. */
  private UInt segmentOf(SInt code) {
    int bits = config.segmentBits();
    List<UInt> counts = new ArrayList<>();
    for (int i = 0; i < config.segments() - 1; i++) {
      Bool atOrAbove = code.ge(boundaries.get(i));
      counts.add(mux(atOrAbove, uintLit(1, bits), uintLit(0, bits)));
    }
    while (counts.size() > 1) {
      List<UInt> next = new ArrayList<>();
      for (int i = 0; i + 1 < counts.size(); i += 2) {
        next.add(counts.get(i).add(counts.get(i + 1)));
      }
      if (counts.size() % 2 == 1) {
        next.add(counts.get(counts.size() - 1));
      }
      counts = next;
    }
    return counts.get(0);
  }

  /** Moves coefficients 0..count−1 one stage down the pipeline. */
  private void delay(List<SInt> coeff, int count, String stage) {
    for (int j = 0; j < count; j++) {
      coeff.set(j, regNext("coeff" + j + stage, coeff.get(j)));
    }
  }

  private static SInt select(List<SInt> values, UInt index) {
    if (values.size() == 1) {
      return values.get(0);
    }
    SInt result = values.get(values.size() - 1);
    for (int i = values.size() - 2; i >= 0; i--) {
      result = mux(index.eq(i), values.get(i), result);
    }
    return result;
  }

  @Override
  public String moduleName() {
    return "PpmPpu_s" + config.segments() + "_d" + config.degree() + "_w" + config.coeffBits() + "_h"
        + config.hornerStages();
  }
}
