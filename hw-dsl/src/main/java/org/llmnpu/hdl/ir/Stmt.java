package org.llmnpu.hdl.ir;

import java.util.ArrayList;
import java.util.List;
import org.llmnpu.hdl.SourceLocation;

/** A statement of a module body. Later assignments to the same target win. */
public sealed interface Stmt {
  SourceLocation location();

  /** {@code target := value} (combinational for wires and ports, next state for registers). */
  record Assign(Signal target, Expr value, SourceLocation location) implements Stmt {
  }

  /** {@code if (cond) thenBody else elseBody}; elseWhen chains nest a When in elseBody. */
  record When(Expr cond, List<Stmt> thenBody, List<Stmt> elseBody, SourceLocation location) implements Stmt {
    public When(Expr cond, SourceLocation location) {
      this(cond, new ArrayList<>(), new ArrayList<>(), location);
    }
  }

  /** A case statement on {@code subject}; {@code defaultBody} is null when none is given. */
  record Switch(Expr subject, List<Case> cases, List<Stmt> defaultBody, SourceLocation location) implements Stmt {
  }

  /** One arm of a switch: taken when the subject equals one of {@code values}. */
  record Case(List<Literal> values, List<Stmt> body) {
  }

  /** A write of {@code data} to {@code memory[address]} at the clock edge; {@code mask} enables lanes. */
  record MemWrite(MemoryNode memory, Expr address, Expr data, Expr mask, SourceLocation location)
      implements Stmt {
  }
}
