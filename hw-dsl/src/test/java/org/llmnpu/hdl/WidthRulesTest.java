package org.llmnpu.hdl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.llmnpu.hdl.Hw.bits;
import static org.llmnpu.hdl.Hw.cat;
import static org.llmnpu.hdl.Hw.mux;
import static org.llmnpu.hdl.Hw.priorityEncoder;
import static org.llmnpu.hdl.Hw.sint;
import static org.llmnpu.hdl.Hw.uint;

import org.junit.jupiter.api.Test;

/** The width table of hw-dsl/README.md, operator by operator. */
class WidthRulesTest {
  static final class Probe extends HwModule {
    final UInt a = in(uint(8));
    final UInt b = in(uint(5));
    final SInt s = in(sint(8));
    final SInt t = in(sint(12));
    final Bits r = in(bits(6));
  }

  @Test
  void operatorsHaveTheDocumentedWidths() {
    Probe p = new Probe();
    assertEquals(8, p.a.add(p.b).width());
    assertEquals(9, p.a.addExpand(p.b).width());
    assertEquals(9, p.a.subExpand(p.b).width());
    assertEquals(13, p.a.mul(p.b).width());
    assertEquals(20, p.s.mul(p.t).width());
    assertEquals(12, p.s.sub(p.t).width());
    assertEquals(8, p.a.and(p.b).width());
    assertEquals(1, p.a.lt(p.b).width());
    assertEquals(11, p.a.shiftLeft(3).width());
    assertEquals(5, p.a.shiftRight(3).width());
    assertEquals(8, p.a.shiftLeft(p.b).width());
    assertEquals(19, cat(p.a, p.b, p.r).width());
    assertEquals(3, p.a.bits(4, 2).width());
    assertEquals(4, p.a.lsbs(4).width());
    assertEquals(16, p.s.resize(16).width());
    assertEquals(6, p.t.saturate(6).width());
    assertEquals(9, p.a.toSInt().width());
    assertEquals(8, mux(p.a.eq(1), p.a, p.b).width());
    assertEquals(3, priorityEncoder(p.r).width());
    assertEquals(1, p.r.orR().width());
  }

  @Test
  void slicesKeepTheTypeAndBitsGiveRawBits() {
    Probe p = new Probe();
    assertEquals(Kind.SINT, p.s.msbs(4).kind());
    assertEquals(Kind.BITS, p.s.bits(3, 0).kind());
    assertEquals(Kind.UINT, p.s.asUInt().kind());
  }

  @Test
  void constantsThatDoNotFitAreErrors() {
    Probe p = new Probe();
    assertThrows(ElaborationException.class, () -> p.b.add(32));
    assertThrows(ElaborationException.class, () -> p.s.add(200));
    assertThrows(ElaborationException.class, () -> p.a.shiftRight(8));
  }

  @Test
  void mixingKindsNeedsAnExplicitCast() {
    Probe p = new Probe();
    assertThrows(ElaborationException.class, () -> mux(p.a.eq(0), p.a.asBits(), (HwValue) p.b).width());
    assertEquals(8, mux(p.a.eq(0), p.a, p.b).width());
    assertThrows(ElaborationException.class, () -> new HwModule() {
      final UInt y = out(uint(8));
      {
        y.set(p.s);
      }
    });
  }
}
