package org.llmnpu.hdl;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import org.llmnpu.hdl.ir.Expr;
import org.llmnpu.hdl.ir.Signal;
import org.llmnpu.hdl.ir.Signal.Role;
import org.llmnpu.hdl.ir.Stmt;

/**
 * The simulation check of {@link ClockGating#CHECKED} ({@link HwModule#clockGated}): it proves in simulation that a
 * generator's clock enable is high whenever a register of its gated bank changes, so that gating the clock
 * ({@link ClockGating#ON}) gives the same design as not gating it.
 */
final class GateCheck {
  private GateCheck() {
  }

  /**
   * The simulation check of a bank in module {@code m}: a copy of the bank's registers and of the enable's
   * complement, one cycle old, and a stop when the copy differs from the registers after a cycle whose enable was
   * low; the instances of the bank get the enable through an input port {@code <bank>_gateCheck_enable} and
   * check all their registers the same way.
   */
  static void add(HwModule m, Bool enable, String bank, String localName, Predicate<Signal> inBank,
                  List<HwModule> kids) {
    String base = localName + "_gateCheck";
    SourceLocation at = SourceLocation.here();
    List<Expr> regs = new ArrayList<>();
    for (Signal s : m.signals) {
      if (s.role == Role.REG && inBank.test(s)) {
        regs.add(s);
      }
    }
    ClockDomain clockOf = m.currentDomain();
    if (!regs.isEmpty()) {
      Bits now = (Bits) Ops.wrap(Ops.cat(regs));
      Bits previous = m.declare(base + "_previous", now.copyType(), Role.REG, null);
      m.body.add(new Stmt.Assign(previous.signal(), now.expr(), at));
      Bool wasOff = m.declare(base + "_off", new Bool(null), Role.REG, null);
      m.body.add(new Stmt.Assign(wasOff.signal(), enable.not().expr(), at));
      Bool violation = m.declare(base + "_violation", new Bool(null), Role.WIRE, null);
      m.body.add(new Stmt.Assign(violation.signal(), wasOff.and(previous.ne(now)).expr(), at));
      List<Signal> shown = new ArrayList<>();
      shown.add(previous.signal());
      regs.forEach(r -> shown.add((Signal) r));
      m.simulationChecks.add(new SimulationCheck(violation.signal(), clockOf.clockSignal(), "clock gate " + bank
          + ": a register of the gated bank changed in a cycle whose enable was low", shown));
    }
    for (HwModule k : kids) {
      if (k instanceof BlackBox || k.registerBits() == 0) {
        continue;
      }
      String kName = bank + "_gateCheck_enable";
      Bool kEnable = k.port(kName, new Bool(null), false);
      m.body.add(new Stmt.Assign(kEnable.signal(), enable.expr(), at));
      add(k, kEnable, bank, bank, s -> true, k.children);
    }
  }
}
