package org.llmnpu.hdl.emit;

import java.util.List;
import java.util.function.Predicate;
import org.llmnpu.hdl.ir.Stmt;

/**
 * Writes the part of a statement tree that concerns some targets (a predicate over
 * statements) as procedural Verilog, keeping the user's if/else and case structure and the
 * {@code // File.java:line} of every statement. Branches that touch no target are dropped.
 */
final class TreeWriter {
  private final ExprWriter exprs;
  private final Predicate<Stmt> relevant;
  private final LeafWriter leaf;

  /** Writes one relevant leaf statement (an assignment or a memory write). */
  interface LeafWriter {
    void write(Stmt st, String indent, StringBuilder out);
  }

  TreeWriter(ExprWriter exprs, Predicate<Stmt> relevant, LeafWriter leaf) {
    this.exprs = exprs;
    this.relevant = relevant;
    this.leaf = leaf;
  }

  /** True when the block contains a relevant leaf somewhere. */
  boolean touches(List<Stmt> block) {
    for (Stmt st : block) {
      boolean t;
      if (st instanceof Stmt.When w) {
        t = touches(w.thenBody()) || touches(w.elseBody());
      } else if (st instanceof Stmt.Switch s) {
        t = s.cases().stream().anyMatch(c -> touches(c.body()))
            || s.defaultBody() != null && touches(s.defaultBody());
      } else {
        t = relevant.test(st);
      }
      if (t) {
        return true;
      }
    }
    return false;
  }

  void write(List<Stmt> block, String indent, StringBuilder out) {
    for (Stmt st : block) {
      if (st instanceof Stmt.When w) {
        writeWhen(w, indent, out, false);
      } else if (st instanceof Stmt.Switch s) {
        writeSwitch(s, indent, out);
      } else if (relevant.test(st)) {
        leaf.write(st, indent, out);
      }
    }
  }

  private void writeWhen(Stmt.When w, String indent, StringBuilder out, boolean chained) {
    boolean t = touches(w.thenBody());
    boolean e = touches(w.elseBody());
    if (!t && !e) {
      return;
    }
    String cond = exprs.selfDetermined(w.cond());
    if (!chained) {
      out.append(indent);
    }
    if (!t) {
      out.append("if (!(").append(cond).append(")) begin  // ").append(w.location()).append('\n');
      write(w.elseBody(), indent + "  ", out);
      out.append(indent).append("end\n");
      return;
    }
    out.append("if (").append(cond).append(") begin  // ").append(w.location()).append('\n');
    write(w.thenBody(), indent + "  ", out);
    out.append(indent).append("end");
    if (!e) {
      out.append('\n');
      return;
    }
    if (w.elseBody().size() == 1 && w.elseBody().get(0) instanceof Stmt.When inner) {
      out.append(" else ");
      writeWhen(inner, indent, out, true);
      return;
    }
    out.append(" else begin\n");
    write(w.elseBody(), indent + "  ", out);
    out.append(indent).append("end\n");
  }

  private void writeSwitch(Stmt.Switch s, String indent, StringBuilder out) {
    boolean any = s.cases().stream().anyMatch(c -> touches(c.body()))
        || s.defaultBody() != null && touches(s.defaultBody());
    if (!any) {
      return;
    }
    out.append(indent).append("case (").append(exprs.selfDetermined(s.subject())).append(")  // ")
        .append(s.location()).append('\n');
    String in = indent + "  ";
    boolean defaultTouches = s.defaultBody() != null && touches(s.defaultBody());
    for (Stmt.Case c : s.cases()) {
      if (!defaultTouches && !touches(c.body())) {
        continue;
      }
      out.append(in).append(String.join(", ", c.values().stream().map(ExprWriter::literal).toList()))
          .append(": begin\n");
      write(c.body(), in + "  ", out);
      out.append(in).append("end\n");
    }
    out.append(in).append("default: begin\n");
    if (s.defaultBody() != null) {
      write(s.defaultBody(), in + "  ", out);
    }
    out.append(in).append("end\n");
    out.append(indent).append("endcase\n");
  }

}
