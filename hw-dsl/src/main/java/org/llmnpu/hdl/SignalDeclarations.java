package org.llmnpu.hdl;

import org.llmnpu.hdl.ir.Literal;
import org.llmnpu.hdl.ir.MemoryNode;
import org.llmnpu.hdl.ir.Signal;
import org.llmnpu.hdl.ir.Signal.Role;

/**
 * Creates the signals and memories of one {@link HwModule} and binds its hardware values to them: ports (a
 * bundle's leaves each a port, the flipped ones the other way), the clock/reset/enable ports of its domains,
 * wires, registers (clocked by the current domain, with or without a reset value) and memories. Each gets the
 * source location and the variable of the user's call ({@link SourceLocation#callSite}) and its explicit name
 * prefixed by the enclosing sections (hw-dsl/README.md, "How names are chosen").
 */
final class SignalDeclarations {
  private final HwModule module;
  /** Domain ports made so far: they come first in the port list. */
  private int domainPorts;

  SignalDeclarations(HwModule module) {
    this.module = module;
  }

  /** A port (each leaf of {@code type}), an output if {@code output} (flipped leaves the other way). */
  <T extends Data> T port(String name, T type, boolean output) {
    SourceLocation.CallSite site = SourceLocation.callSite();
    for (Leaves.Leaf leaf : Leaves.of(type)) {
      Role role = (output ^ leaf.flipped()) ? Role.OUTPUT : Role.INPUT;
      Signal s = bindLeaf(leaf, role, name, null, null, site);
      module.ports.add(s);
    }
    return type;
  }

  /**
   * A clock, reset or enable input. These come first in the port list, in the order the
   * domains were made, each domain's clock before its reset before its enable.
   */
  Bool domainPort(String name) {
    Bool b = new Bool(null);
    Signal s = new Signal(Role.INPUT, 1, Kind.BOOL, module, SourceLocation.here(), name, null, null);
    b.bind(s);
    module.signals.add(s);
    module.ports.add(domainPorts++, s);
    return b;
  }

  /** A wire or register (each leaf of {@code type}); registers in the current domain, reset to {@code resetValue}. */
  <T extends Data> T declare(String name, T type, Role role, Literal resetValue) {
    SourceLocation.CallSite site = SourceLocation.callSite();
    ClockDomain domain = role == Role.REG ? module.currentDomain() : null;
    if (domain != null) {
      domain.clock();
    }
    for (Leaves.Leaf leaf : Leaves.of(type)) {
      bindLeaf(leaf, role, name, domain, resetValue, site);
    }
    return type;
  }

  private Signal bindLeaf(Leaves.Leaf leaf, Role role, String name, ClockDomain domain, Literal resetValue,
                          SourceLocation.CallSite site) {
    HwValue v = leaf.value();
    if (name != null && name.isEmpty() && leaf.path().isEmpty()) {
      throw new ElaborationException(site.location(), "the empty port name is only for bundles (their fields name the ports)");
    }
    String hint = name == null ? null : name.isEmpty() ? module.scopedName(leaf.path().substring(1))
        : module.scopedName(name) + leaf.path();
    Signal s = new Signal(role, v.width(), v.kind(), module, site.location(), hint, domain, resetValue);
    s.aggregatePath = leaf.path();
    s.variable = site.variable() == null ? null : module.scopedName(site.variable());
    v.bind(s);
    module.signals.add(s);
    return s;
  }

  /** A memory of {@code depth} words of the given type, clocked by the current domain. */
  <T extends HwValue> Mem<T> memory(String name, T type, int depth) {
    if (depth < 1) {
      throw new ElaborationException(SourceLocation.here(), "memory depth must be >= 1, got " + depth);
    }
    SourceLocation.CallSite site = SourceLocation.callSite();
    ClockDomain domain = module.currentDomain();
    domain.clock();
    MemoryNode node = new MemoryNode(module, type.width(), depth, type.kind(), domain, site.location(),
        name == null ? null : module.scopedName(name));
    node.variable = site.variable() == null ? null : module.scopedName(site.variable());
    module.memories.add(node);
    return new Mem<>(module, node, type);
  }
}
