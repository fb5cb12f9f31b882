package org.llmnpu.hdl.emit;

import java.math.BigInteger;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.llmnpu.hdl.ir.Literal;
import org.llmnpu.hdl.ir.Signal;
import org.llmnpu.hdl.ir.Stmt;

/** Whether a block assigns a signal on every path (no latch). */
final class Coverage {
  private Coverage() {
  }

  static boolean assignedOnEveryPath(List<Stmt> block, Signal target) {
    for (Stmt st : block) {
      boolean covered;
      if (st instanceof Stmt.Assign a) {
        covered = a.target() == target;
      } else if (st instanceof Stmt.When w) {
        covered = assignedOnEveryPath(w.thenBody(), target) && assignedOnEveryPath(w.elseBody(), target);
      } else if (st instanceof Stmt.Switch s) {
        covered = switchCovers(s, target);
      } else {
        covered = false;
      }
      if (covered) {
        return true;
      }
    }
    return false;
  }

  private static boolean switchCovers(Stmt.Switch s, Signal target) {
    for (Stmt.Case c : s.cases()) {
      if (!assignedOnEveryPath(c.body(), target)) {
        return false;
      }
    }
    if (s.defaultBody() != null) {
      return assignedOnEveryPath(s.defaultBody(), target);
    }
    Set<BigInteger> values = new HashSet<>();
    for (Stmt.Case c : s.cases()) {
      for (Literal l : c.values()) {
        values.add(l.bits);
      }
    }
    return s.subject().width < 31 && values.size() == (1 << s.subject().width);
  }
}
