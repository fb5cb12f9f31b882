package org.llmnpu.hdl.emit;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.llmnpu.hdl.ClockDomain;
import org.llmnpu.hdl.ModuleIr;
import org.llmnpu.hdl.ir.Signal;
import org.llmnpu.hdl.ir.Signal.Role;
import org.llmnpu.hdl.ir.Stmt;

/**
 * Writes the registers of a module: one {@code always} block per clock domain and reset
 * presence. Registers with a reset value load it while reset is active (synchronously or
 * asynchronously, active high or low, as the domain says); the clock enable gates all
 * updates; otherwise the user's statement tree assigns next values with {@code <=}.
 */
final class RegisterWriter {
  private final ModuleIr ir;
  private final ExprWriter exprs;
  private final Set<Signal> assigned;

  RegisterWriter(ModuleIr ir, ExprWriter exprs, Set<Signal> assigned) {
    this.ir = ir;
    this.exprs = exprs;
    this.assigned = assigned;
  }

  String write() {
    Map<ClockDomain, List<Signal>> withReset = new LinkedHashMap<>();
    Map<ClockDomain, List<Signal>> withoutReset = new LinkedHashMap<>();
    for (Signal s : ir.signals()) {
      if (s.role != Role.REG) {
        continue;
      }
      (s.resetValue != null ? withReset : withoutReset).computeIfAbsent(s.domain, k -> new ArrayList<>()).add(s);
    }
    StringBuilder sb = new StringBuilder();
    withReset.forEach((d, regs) -> block(d, regs, true, sb));
    withoutReset.forEach((d, regs) -> block(d, regs, false, sb));
    return sb.toString();
  }

  private void block(ClockDomain d, List<Signal> regs, boolean reset, StringBuilder sb) {
    Set<Signal> group = java.util.Collections.newSetFromMap(new IdentityHashMap<>());
    group.addAll(regs);
    TreeWriter tw = new TreeWriter(exprs, st -> st instanceof Stmt.Assign a && group.contains(a.target()),
        this::writeNonBlocking);
    boolean hasUpdates = regs.stream().anyMatch(assigned::contains);
    if (!reset && !hasUpdates) {
      return;
    }
    String clk = d.clockSignal().name;
    boolean async = reset && d.resetKind() == ClockDomain.ResetKind.ASYNC;
    boolean low = d.polarity() == ClockDomain.Polarity.LOW;
    sb.append("  always @(posedge ").append(clk);
    if (async) {
      sb.append(low ? " or negedge " : " or posedge ").append(d.resetSignal().name);
    }
    sb.append(") begin\n");
    String indent = "    ";
    String enable = d.enableSignal() == null ? null : d.enableSignal().name;
    if (reset) {
      sb.append("    if (").append(low ? "!" : "").append(d.resetSignal().name).append(") begin\n");
      for (Signal r : regs) {
        sb.append("      ").append(r.name).append(" <= ").append(ExprWriter.literal(r.resetValue)).append(";  // ")
            .append(r.location).append('\n');
      }
      sb.append("    end");
      if (!hasUpdates) {
        sb.append("\n  end\n");
        return;
      }
      if (enable != null) {
        sb.append(" else if (").append(enable).append(") begin\n");
      } else {
        sb.append(" else begin\n");
      }
      indent = "      ";
    } else if (enable != null) {
      sb.append("    if (").append(enable).append(") begin\n");
      indent = "      ";
    }
    tw.write(ir.body(), indent, sb);
    if (reset || enable != null) {
      sb.append("    end\n");
    }
    sb.append("  end\n");
  }

  private void writeNonBlocking(Stmt st, String indent, StringBuilder out) {
    Stmt.Assign a = (Stmt.Assign) st;
    exprs.context(a.target().name, a.location());
    out.append(indent).append(a.target().name).append(" <= ").append(exprs.top(a.value()))
        .append(";  // ").append(a.location()).append('\n');
  }
}
