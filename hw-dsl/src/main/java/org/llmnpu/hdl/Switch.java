package org.llmnpu.hdl;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import org.llmnpu.hdl.ir.Literal;
import org.llmnpu.hdl.ir.Stmt;

/** Builder of the arms of a {@link HwModule#switchOn} (a case statement). */
public final class Switch {
  private final HwModule module;
  private final HwValue subject;
  final List<Stmt.Case> cases = new ArrayList<>();
  List<Stmt> defaultBody;

  Switch(HwModule module, HwValue subject) {
    this.module = module;
    this.subject = subject;
  }

  /** Arm taken when the subject equals any of {@code values}. */
  public Switch is(long value, Runnable body) {
    return is(new long[] {value}, body);
  }

  public Switch is(long[] values, Runnable body) {
    List<Literal> lits = new ArrayList<>();
    for (long v : values) {
      lits.add(Ops.literal(subject.kind(), subject.width(), BigInteger.valueOf(v)));
    }
    List<Stmt> arm = new ArrayList<>();
    module.runIn(arm, body);
    cases.add(new Stmt.Case(lits, arm));
    return this;
  }

  public void otherwise(Runnable body) {
    defaultBody = new ArrayList<>();
    module.runIn(defaultBody, body);
  }
}
