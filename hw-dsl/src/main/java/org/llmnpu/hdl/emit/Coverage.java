package org.llmnpu.hdl.emit;

import java.math.BigInteger;
import java.util.Collections;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import org.llmnpu.hdl.ir.Literal;
import org.llmnpu.hdl.ir.Signal;
import org.llmnpu.hdl.ir.Stmt;

/**
 * The signals a block assigns on every path (the others would become latches), found in one
 * pass over the statement tree so the check stays linear in the size of the module.
 */
final class Coverage {
  private Coverage() {
  }

  /** Every signal that each path through {@code block} assigns. */
  static Set<Signal> assignedOnEveryPath(List<Stmt> block) {
    Set<Signal> covered = identitySet();
    for (Stmt st : block) {
      if (st instanceof Stmt.Assign a) {
        covered.add(a.target());
      } else if (st instanceof Stmt.When w) {
        covered.addAll(intersect(assignedOnEveryPath(w.thenBody()), assignedOnEveryPath(w.elseBody())));
      } else if (st instanceof Stmt.Switch s) {
        covered.addAll(switchCovers(s));
      }
    }
    return covered;
  }

  private static Set<Signal> switchCovers(Stmt.Switch s) {
    Set<Signal> all = null;
    for (Stmt.Case c : s.cases()) {
      all = all == null ? assignedOnEveryPath(c.body()) : intersect(all, assignedOnEveryPath(c.body()));
    }
    if (s.defaultBody() != null) {
      Set<Signal> d = assignedOnEveryPath(s.defaultBody());
      return all == null ? d : intersect(all, d);
    }
    Set<BigInteger> values = new HashSet<>();
    for (Stmt.Case c : s.cases()) {
      for (Literal l : c.values()) {
        values.add(l.bits);
      }
    }
    boolean complete = s.subject().width < 31 && values.size() == (1 << s.subject().width);
    return complete && all != null ? all : Set.of();
  }

  private static Set<Signal> intersect(Set<Signal> a, Set<Signal> b) {
    Set<Signal> small = a.size() <= b.size() ? a : b;
    Set<Signal> large = small == a ? b : a;
    Set<Signal> out = identitySet();
    for (Signal s : small) {
      if (large.contains(s)) {
        out.add(s);
      }
    }
    return out;
  }

  private static Set<Signal> identitySet() {
    return Collections.newSetFromMap(new IdentityHashMap<>());
  }
}
