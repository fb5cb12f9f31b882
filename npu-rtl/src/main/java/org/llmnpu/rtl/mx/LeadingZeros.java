package org.llmnpu.rtl.mx;

import static org.llmnpu.hdl.Hw.bitsLit;
import static org.llmnpu.hdl.Hw.bitsToHold;
import static org.llmnpu.hdl.Hw.boolLit;
import static org.llmnpu.hdl.Hw.cat;
import static org.llmnpu.hdl.Hw.mux;

import java.util.ArrayList;
import java.util.List;
import org.llmnpu.hdl.Bool;
import org.llmnpu.hdl.UInt;

/**
 * Leading-zero count as a balanced tree (depth log2 of the width): each node merges the
 * all-zero flags and counts of its halves, {@code count = hiZero ? {1, loCount} : {0, hiCount}}.
 * The input is padded below with a constant 1 (then 0s) to a power of two, so an all-zero input
 * of width w counts w.
 */
public final class LeadingZeros {
  private LeadingZeros() {
  }

  /** Number of leading zeros of {@code value}, 0..w, in {@code bitsToHold(w)} bits. */
  public static UInt count(UInt value) {
    int w = value.width();
    int padded = Integer.highestOneBit(w) == w ? 2 * w : 2 * Integer.highestOneBit(w);
    List<Bool> msbFirst = new ArrayList<>();
    for (int i = w - 1; i >= 0; i--) {
      msbFirst.add(value.bit(i));
    }
    msbFirst.add(boolLit(true));
    while (msbFirst.size() < padded) {
      msbFirst.add(boolLit(false));
    }
    return tree(msbFirst).count.resize(bitsToHold(w));
  }

  private record Node(Bool zero, UInt count) {
  }

  private static Node tree(List<Bool> msbFirst) {
    int w = msbFirst.size();
    if (w == 2) {
      Bool hi = msbFirst.get(0);
      return new Node(hi.or(msbFirst.get(1)).not(), hi.not().asUInt());
    }
    Node hi = tree(msbFirst.subList(0, w / 2));
    Node lo = tree(msbFirst.subList(w / 2, w));
    UInt fromLo = cat(bitsLit(1, 1), lo.count).asUInt();
    UInt fromHi = cat(bitsLit(0, 1), hi.count).asUInt();
    return new Node(hi.zero.and(lo.zero), mux(hi.zero, fromLo, fromHi));
  }
}
