package org.llmnpu.rtl.mx;

import static org.llmnpu.hdl.Hw.mux;
import static org.llmnpu.hdl.Hw.uintLit;

import java.util.ArrayList;
import java.util.List;
import org.llmnpu.hdl.Bool;
import org.llmnpu.hdl.SInt;
import org.llmnpu.hdl.UInt;

/**
 * The short-path forms of {@link MxDotProduct}'s deep pipelines (stages ≥ 6): the signed product
 * of two unpacked elements as a small significand product shifted by the summed binade shifts,
 * and the absolute value of the sum as a log-depth negation. Both are bit-exact with the direct
 * forms ({@code ±(integerMagnitudeA · integerMagnitudeB)} and {@code mux(s < 0, −s, s)}) for
 * every finite element; products with a special (NaN or ∞) element may differ, but then the
 * unit's output is the special result regardless of the sum. The carry-save reduction
 * ({@link #carrySaveRows}) is also {@code Fp32Fma}'s significand multiplier.
 */
public final class MxDotTerms {
  private MxDotTerms() {
  }

  /**
   * {@code (−1)^negative · (sigA · sigB) · 2^(shiftA + shiftB)} in {@code width} bits (two's
   * complement): the significands' product (e.g. 4 × 4 bits for E4M3) is negated while it is
   * small, then sign-extended and shifted by the summed binade shifts, instead of multiplying the
   * shifted integer magnitudes (18 × 18 bits for E4M3) and negating the wide product.
   */
  static SInt shiftedProduct(ElementUnpack a, ElementUnpack b, Bool negative, int width) {
    SInt small = a.significand.mul(b.significand).toSInt();
    SInt signed = mux(negative, small.neg(), small);
    int shiftWidth = Math.max(a.binadeShift.width(), b.binadeShift.width());
    UInt shift = a.binadeShift.resize(shiftWidth).addExpand(b.binadeShift.resize(shiftWidth));
    return signed.resize(width).shiftLeft(shift);
  }

  /**
   * {@code |x|} as an unsigned value of x's width (the most negative x gives 2^(w−1)), without a
   * carry chain: bit i of {@code −x} is {@code x_i XOR (x_{i−1} | … | x_0)}, and the prefix OR is
   * formed in ⌈log2 w⌉ levels of doubling spans.
   */
  static UInt absolute(SInt x) {
    int w = x.width();
    UInt bits = x.asUInt();
    UInt prefixOr = bits;
    for (int k = 1; k < w; k <<= 1) {
      prefixOr = prefixOr.or(prefixOr.shiftLeft(k).resize(w));
    }
    // bit i: some bit below i is set
    UInt anyBelow = prefixOr.shiftLeft(1).resize(w);
    return bits.xor(mux(x.isNegative(), anyBelow, uintLit(0, w)));
  }

  /**
   * Reduces {@code terms} (equal widths w, summed mod 2^w) to two rows with the same sum mod 2^w,
   * by levels of 3:2 carry-save compressors (per bit: sum {@code a ^ b ^ c}, carry {@code
   * maj(a, b, c)} one bit up): no carry travels along a row, so each level costs one full-adder
   * delay (32 terms: 8 levels). Terms left over from a level's groups of three pass to the next.
   */
  public static List<UInt> carrySaveRows(List<UInt> terms) {
    int w = terms.get(0).width();
    List<UInt> rows = terms;
    while (rows.size() > 2) {
      List<UInt> next = new ArrayList<>();
      int i = 0;
      for (; i + 2 < rows.size(); i += 3) {
        UInt a = rows.get(i);
        UInt b = rows.get(i + 1);
        UInt c = rows.get(i + 2);
        next.add(a.xor(b).xor(c));
        next.add(a.and(b).or(a.and(c)).or(b.and(c)).shiftLeft(1).resize(w));
      }
      for (; i < rows.size(); i++) {
        next.add(rows.get(i));
      }
      rows = next;
    }
    return rows.size() == 2 ? rows : List.of(rows.get(0), uintLit(0, w));
  }
}
