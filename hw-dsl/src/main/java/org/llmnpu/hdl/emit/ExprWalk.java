package org.llmnpu.hdl.emit;

import java.util.IdentityHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import org.llmnpu.hdl.ir.Expr;
import org.llmnpu.hdl.ir.MemRead;
import org.llmnpu.hdl.ir.Op;
import org.llmnpu.hdl.ir.Signal;

/** Signals an expression reads combinationally (a memory read reads its address, not its contents). */
final class ExprWalk {
  private final Map<Expr, Set<Signal>> cache = new IdentityHashMap<>();

  Set<Signal> refs(Expr e) {
    Set<Signal> cached = cache.get(e);
    if (cached != null) {
      return cached;
    }
    Set<Signal> out = new LinkedHashSet<>();
    if (e instanceof Signal s) {
      out.add(s);
    } else if (e instanceof Op op) {
      for (Expr a : op.args) {
        out.addAll(refs(a));
      }
    } else if (e instanceof MemRead r) {
      out.addAll(refs(r.address));
    }
    cache.put(e, out);
    return out;
  }
}
