package org.llmnpu.rtl.npu;

import static org.llmnpu.hdl.Hw.bitsToHold;
import static org.llmnpu.hdl.Hw.boolLit;
import static org.llmnpu.hdl.Hw.mux;
import static org.llmnpu.hdl.Hw.uintLit;

import java.util.ArrayList;
import java.util.List;
import org.llmnpu.hdl.Bool;
import org.llmnpu.hdl.UInt;

/**
 * {@link NpuPredecode}'s narrow sums: a range check {@code Σ terms > limit} formed from the low {@code e} bits of its
 * terms ({@code limit < 2^e}) and the flags of their high bits, exact for every input (the class comment of
 * {@link NpuPredecode}, "Narrow sums, exact checks"), and the registered partial products of a
 * {@code (x − 1)·y} term. Combinational only: the product registers are {@link NpuPredecode}'s.
 */
final class PredecodeSums {
  private PredecodeSums() {
  }

  /**
   * A registered product {@code (x − 1)·y} ({@code minus} = y's low e bits) or {@code x·y} ({@code minus} null)
   * for a check against a limit below {@code 2^e}: {@code over} = the product is at least {@code y ≥ 2^e}, else
   * the product is the sum of {@code terms} (the registered partial products of x's two bytes and y's low e bits
   * in pieces of at most {@link #PIECE} bits, each shifted to its place) less {@code minus}.
   */
  record Product(Bool over, List<UInt> terms, UInt minus) {}

  /** Bits of y per partial product: 8 × 11-bit products, whose 19-bit final carry chains fit the cycle. */
  static final int PIECE = 11;

  /** {@code Σ terms} against {@code limit}: {@code high} = some term is {@code ≥ 2^e}, else {@code sum} is exact. */
  record Sum(long limit, Bool high, UInt sum) {
    /** The sum is above the limit. */
    Bool exceeds() {
      return high.or(sum.gt(uintLit(limit, sum.width())));
    }

    /** The sum in {@code bits} bits, all ones when it does not fit below all ones. */
    UInt stored(int bits) {
      UInt ones = uintLit((1L << bits) - 1, bits);
      if (sum.width() <= bits) {
        return mux(high, ones, sum.resize(bits));
      }
      return mux(high.or(sum.msbs(sum.width() - bits).orR()), ones, sum.lsbs(bits));
    }
  }

  /**
   * {@code product} with one more registered term (non-negative, so the sum stays exact: a term at or past
   * {@code 2^(e+1)} alone exceeds the limit).
   */
  static Product withTerm(Product product, UInt term) {
    List<UInt> terms = new ArrayList<>(product.terms());
    terms.add(term);
    return new Product(product.over(), terms, product.minus());
  }

  /** A product in DSP rows as one in buffer elements ({@code lanes = 2^laneShift}): every term and y shifted. */
  static Product toElements(Product rows, int laneShift) {
    List<UInt> terms = new ArrayList<>();
    for (UInt t : rows.terms()) {
      terms.add(t.shiftLeft(laneShift));
    }
    return new Product(rows.over(), terms, rows.minus().shiftLeft(laneShift));
  }

  /** The sum of {@code product} (may be null) and {@code terms}, from their low bits ({@link NpuPredecode}'s class comment). */
  static Sum sum(long limit, Product product, UInt... terms) {
    int e = bitsToHold(limit);
    Bool high = boolLit(false);
    List<UInt> low = new ArrayList<>();
    for (UInt t : terms) {
      high = high.or(t.width() > e ? t.msbs(t.width() - e).orR() : boolLit(false));
      low.add(t.lsbs(Math.min(e, t.width())));
    }
    if (product != null) {
      // (x − 1)·y = x·y − y: partial products of x·y up to 2^(e+1) (past it (x − 1)·y ≥ 2^e), minus y's low e bits
      int bound = product.minus() == null ? e : e + 1;
      high = high.or(product.over());
      for (UInt t : product.terms()) {
        high = high.or(t.width() > bound ? t.msbs(t.width() - bound).orR() : boolLit(false));
        low.add(t.lsbs(Math.min(bound, t.width())));
      }
    }
    int sumBits = e + 1 + (64 - Long.numberOfLeadingZeros(low.size() - 1));
    UInt total = uintLit(0, sumBits);
    for (UInt t : low) {
      total = total.add(t.resize(sumBits));
    }
    if (product != null && product.minus() != null) {
      total = total.sub(product.minus().resize(sumBits));
    }
    return new Sum(limit, high, total);
  }
}
