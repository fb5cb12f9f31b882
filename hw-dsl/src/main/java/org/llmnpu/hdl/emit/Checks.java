package org.llmnpu.hdl.emit;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.llmnpu.hdl.ElaborationException;
import org.llmnpu.hdl.HwModule;
import org.llmnpu.hdl.ModuleIr;
import org.llmnpu.hdl.SourceLines;
import org.llmnpu.hdl.SourceLocation;
import org.llmnpu.hdl.ir.Expr;
import org.llmnpu.hdl.ir.MemRead;
import org.llmnpu.hdl.ir.Op;
import org.llmnpu.hdl.ir.Signal;
import org.llmnpu.hdl.ir.Signal.Role;
import org.llmnpu.hdl.ir.Stmt;

/**
 * Elaboration checks of one module: visibility of every signal used, undriven outputs,
 * wires and submodule inputs, latches (a combinational signal not assigned on every path)
 * and combinational loops (the whole loop is printed). Returns the module's combinational
 * input-to-output paths so the parent can see loops through this module.
 */
final class Checks {
  private final ModuleIr ir;
  private final HwModule module;
  private final Map<HwModule, Map<Signal, Set<Signal>>> childPaths;
  private final ExprWalk walk = new ExprWalk();
  private final Map<Signal, Set<Signal>> deps = new LinkedHashMap<>();
  private final Map<Signal, SourceLocation> firstAssign = new IdentityHashMap<>();
  private final Set<Signal> read = new HashSet<>();
  private final Set<Expr> visited = java.util.Collections.newSetFromMap(new IdentityHashMap<>());
  private final Set<HwModule> children = java.util.Collections.newSetFromMap(new IdentityHashMap<>());

  Checks(ModuleIr ir, Map<HwModule, Map<Signal, Set<Signal>>> childPaths) {
    this.ir = ir;
    this.module = ir.module();
    this.childPaths = childPaths;
    this.children.addAll(ir.children());
  }

  /** Signals read anywhere in the module (after {@link #run()}). */
  Set<Signal> readSignals() {
    return read;
  }

  /** Runs all checks; returns output port to the input ports it depends on combinationally. */
  Map<Signal, Set<Signal>> run() {
    collect(ir.body(), new ArrayDeque<>());
    checkDrivers();
    checkLatches();
    return checkLoops();
  }

  private void collect(List<Stmt> block, Deque<Expr> conds) {
    for (Stmt st : block) {
      if (st instanceof Stmt.Assign a) {
        visible(a.target(), a.location());
        visibleAll(a.value(), a.location());
        firstAssign.putIfAbsent(a.target(), a.location());
        if (isComb(a.target())) {
          Set<Signal> d = deps.computeIfAbsent(a.target(), k -> new LinkedHashSet<>());
          d.addAll(walk.refs(a.value()));
          conds.forEach(c -> d.addAll(walk.refs(c)));
        }
      } else if (st instanceof Stmt.When w) {
        visibleAll(w.cond(), w.location());
        conds.push(w.cond());
        collect(w.thenBody(), conds);
        collect(w.elseBody(), conds);
        conds.pop();
      } else if (st instanceof Stmt.Switch s) {
        visibleAll(s.subject(), s.location());
        conds.push(s.subject());
        s.cases().forEach(c -> collect(c.body(), conds));
        if (s.defaultBody() != null) {
          collect(s.defaultBody(), conds);
        }
        conds.pop();
      } else if (st instanceof Stmt.MemWrite m) {
        if (m.memory().owner != module) {
          throw new ElaborationException(m.location(), "memory of " + m.memory().owner.moduleName()
              + " written from " + module.moduleName());
        }
        visibleAll(m.address(), m.location());
        visibleAll(m.data(), m.location());
        if (m.mask() != null) {
          visibleAll(m.mask(), m.location());
        }
      }
    }
  }

  private boolean isComb(Signal s) {
    return s.role != Role.REG && !(s.role == Role.INPUT && s.owner == module);
  }

  private void visibleAll(Expr e, SourceLocation loc) {
    if (!visited.add(e)) {
      return;
    }
    if (e instanceof Signal s) {
      visible(s, loc);
      read.add(s);
    } else if (e instanceof MemRead r) {
      if (r.memory.owner != module) {
        throw new ElaborationException(loc, "memory of " + r.memory.owner.moduleName() + " read from "
            + module.moduleName());
      }
      visibleAll(r.address, loc);
    } else if (e instanceof Op op) {
      for (Expr a : op.args) {
        visibleAll(a, loc);
      }
    }
  }

  private void visible(Signal s, SourceLocation loc) {
    boolean own = s.owner == module;
    boolean childPort = s.isPort() && s.owner != module && children.contains(s.owner);
    if (!own && !childPort) {
      throw new ElaborationException(loc, String.format(
          "signal `%s` of %s (declared at %s) is not visible in %s: only its own signals and the ports "
              + "of its direct submodules (made with instance(...)) can be used",
          s.displayName(), s.owner.moduleName(), s.location, module.moduleName()));
    }
  }

  private void checkDrivers() {
    for (Signal s : ir.signals()) {
      if (firstAssign.containsKey(s)) {
        continue;
      }
      switch (s.role) {
        case OUTPUT -> throw new ElaborationException(s.location, "undriven output `" + userName(s) + "` of "
            + module.moduleName() + ": assign it on every path");
        case WIRE -> throw new ElaborationException(s.location, "undriven wire `" + userName(s) + "` in "
            + module.moduleName() + (read.contains(s) ? " (it is read)" : " (and never used)"));
        case REG -> {
          if (s.resetValue == null) {
            throw new ElaborationException(s.location, "register `" + userName(s) + "` in " + module.moduleName()
                + " is never assigned and has no reset value");
          }
        }
        default -> { }
      }
    }
    for (HwModule child : ir.children()) {
      for (Signal p : child.ir().ports()) {
        if (p.role == Role.INPUT && !firstAssign.containsKey(p)) {
          throw new ElaborationException(child.ir().createdAt(), String.format(
              "undriven submodule input `%s` of instance `%s` (%s) in %s", p.name, child.ir().instanceName(),
              child.moduleName(), module.moduleName()));
        }
      }
    }
  }

  private void checkLatches() {
    Set<Signal> covered = Coverage.assignedOnEveryPath(ir.body());
    for (Signal t : deps.keySet()) {
      if (!covered.contains(t)) {
        SourceLocation at = firstAssign.get(t);
        String declared = t.nameHint == null && !t.location.equals(at) ? SourceLines.quote(t.location) : "";
        throw new ElaborationException(at, String.format(
            "latch: combinational `%s` in %s is not assigned on every path; assign a default before the "
                + "when/switch or add otherwise%s%s", userName(t), module.moduleName(), SourceLines.quote(at), declared),
            false);
      }
    }
  }

  /**
   * The name the user gave a signal: its explicit or field name, or the variable it is stored
   * in (all three are its Verilog name); else, when the class file has no local variable
   * table, the variable its declaring source line assigns ({@code UInt sum = wire(uint(8))}
   * gives {@code sum}); else the generated Verilog name.
   */
  static String userName(Signal s) {
    if (s.nameHint != null || s.variable != null) {
      return s.displayName();
    }
    return SourceLines.assignedVariable(s.location).orElse(s.displayName());
  }

  private Map<Signal, Set<Signal>> checkLoops() {
    Map<Signal, Set<Signal>> graph = new LinkedHashMap<>(deps);
    for (HwModule child : ir.children()) {
      Map<Signal, Set<Signal>> paths = childPaths.getOrDefault(child, Map.of());
      paths.forEach((out, ins) -> graph.put(out, ins));
    }
    new LoopFinder(graph, firstAssign).run();
    Map<Signal, Set<Signal>> result = new LinkedHashMap<>();
    Map<Signal, Set<Signal>> memo = new IdentityHashMap<>();
    for (Signal p : ir.ports()) {
      if (p.role == Role.OUTPUT) {
        result.put(p, reach(p, graph, memo));
      }
    }
    return result;
  }

  private Set<Signal> reach(Signal n, Map<Signal, Set<Signal>> graph, Map<Signal, Set<Signal>> memo) {
    Set<Signal> cached = memo.get(n);
    if (cached != null) {
      return cached;
    }
    Set<Signal> out = new LinkedHashSet<>();
    memo.put(n, out);
    for (Signal d : graph.getOrDefault(n, Set.of())) {
      if (d.role == Role.INPUT && d.owner == module) {
        out.add(d);
      } else if (graph.containsKey(d)) {
        out.addAll(reach(d, graph, memo));
      }
    }
    return out;
  }

  /** Depth-first search for a cycle in the combinational dependency graph. */
  private record LoopFinder(Map<Signal, Set<Signal>> graph, Map<Signal, SourceLocation> where) {
    void run() {
      Map<Signal, Integer> state = new IdentityHashMap<>();
      for (Signal start : graph.keySet()) {
        if (!state.containsKey(start)) {
          dfs(start, state, new ArrayList<>());
        }
      }
    }

    private void dfs(Signal n, Map<Signal, Integer> state, List<Signal> path) {
      state.put(n, 1);
      path.add(n);
      for (Signal d : graph.getOrDefault(n, Set.of())) {
        if (!graph.containsKey(d)) {
          continue;
        }
        Integer st = state.get(d);
        if (st == null) {
          dfs(d, state, path);
        } else if (st == 1) {
          report(path.subList(path.indexOf(d), path.size()));
        }
      }
      path.remove(path.size() - 1);
      state.put(n, 2);
    }

    private void report(List<Signal> loop) {
      StringBuilder sb = new StringBuilder("combinational loop: ");
      List<Signal> ordered = new ArrayList<>(loop);
      java.util.Collections.reverse(ordered);
      StringBuilder quotes = new StringBuilder();
      for (Signal s : ordered) {
        SourceLocation at = where.getOrDefault(s, s.location);
        sb.append('`').append(label(s)).append("` (").append(at).append(") -> ");
        quotes.append(SourceLines.quote(at));
      }
      sb.append('`').append(label(ordered.get(0))).append('`');
      Signal first = ordered.get(0);
      throw new ElaborationException(where.getOrDefault(first, first.location), sb.append(quotes).toString(), false);
    }

    private static String label(Signal s) {
      return s.owner.ir().parent() != null && s.isPort() && s.name != null
          ? s.owner.ir().instanceName() + "." + s.name : userName(s);
    }
  }
}
