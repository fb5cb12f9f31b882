package org.llmnpu.isa.dsp;

import java.util.AbstractList;
import java.util.List;
import java.util.Objects;
import java.util.RandomAccess;

/**
 * A program's instructions: an unmodifiable list that keeps its hash once computed. The lowering's cost model and its
 * DSP residency key maps by whole programs and instruction lists, again for every run they cost; an immutable JDK list
 * hashes all its instructions each time (a third of JFR's samples of {@code SocReportSectionTest}, with the list
 * equality a hash match then asks for; the test 216 → 180 s). Lists of different hashes are unequal without a walk.
 */
final class InstructionList extends AbstractList<DspInstruction> implements RandomAccess {
  private final DspInstruction[] items;
  /** The list's hash, 0 until computed (then {@link #hashIsZero} tells a hash of 0 apart), as in {@link String}. */
  private int hash;
  private boolean hashIsZero;

  private InstructionList(DspInstruction[] items) {
    this.items = items;
  }

  /** {@code in} itself when it is one, else a copy (no null instruction). */
  static List<DspInstruction> copyOf(List<DspInstruction> in) {
    if (in instanceof InstructionList l) {
      return l;
    }
    DspInstruction[] a = in.toArray(new DspInstruction[0]);
    for (DspInstruction i : a) {
      Objects.requireNonNull(i, "a DSP program's instruction");
    }
    return new InstructionList(a);
  }

  @Override
  public DspInstruction get(int index) {
    return items[index];
  }

  @Override
  public int size() {
    return items.length;
  }

  @Override
  public int hashCode() {
    int h = hash;
    if (h == 0 && !hashIsZero) {
      h = super.hashCode();
      if (h == 0) {
        hashIsZero = true;
      } else {
        hash = h;
      }
    }
    return h;
  }

  @Override
  public boolean equals(Object o) {
    if (o == this) {
      return true;
    }
    if (o instanceof InstructionList l && (l.items.length != items.length || l.hashCode() != hashCode())) {
      return false;
    }
    return super.equals(o);
  }
}
