package org.llmnpu.hdl;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.llmnpu.hdl.ir.Literal;
import org.llmnpu.hdl.ir.MemoryNode;
import org.llmnpu.hdl.ir.Signal;
import org.llmnpu.hdl.ir.Signal.Role;
import org.llmnpu.hdl.ir.Stmt;

/**
 * Base class of hardware modules (named so that {@code import org.llmnpu.hdl.*} does not clash
 * with {@code java.lang.Module}). A subclass declares its ports as fields (their Java field
 * names become the Verilog names) and describes its logic in its constructor with the
 * methods below. See hw-dsl/README.md for the guide.
 *
 * <p>The methods here are the generator's vocabulary; the work is done by package-private helpers:
 * {@link SignalDeclarations} (ports, wires, registers, memories and their names), {@link ElaborationScopes}
 * (the current statement block, sections and clock domain) and {@link GatedBankBuilder} (register banks on
 * gated clocks).
 */
public abstract class HwModule {
  final List<Signal> signals = new ArrayList<>();
  final List<Signal> ports = new ArrayList<>();
  final List<MemoryNode> memories = new ArrayList<>();
  final List<HwModule> children = new ArrayList<>();
  final List<Stmt> body = new ArrayList<>();
  final List<SimulationCheck> simulationChecks = new ArrayList<>();
  final List<GatedBank> gatedBanks = new ArrayList<>();
  final ClockDomain mainDomain;
  final ElaborationScopes scopes;
  private final SignalDeclarations declarations = new SignalDeclarations(this);
  final SourceLocation createdAt = SourceLocation.ofModuleCreation(getClass());
  HwModule parent;
  String instanceName;
  /** The variable or field the parent's code stores this instance in, or null. */
  String instanceVariable;

  protected HwModule() {
    mainDomain = new ClockDomain(this, "", ClockDomain.ResetKind.SYNC, ClockDomain.Polarity.HIGH, false);
    scopes = new ElaborationScopes(body, mainDomain);
  }

  /** Verilog module name; override to encode parameters (e.g. {@code Fifo_w8_d16}). */
  public String moduleName() {
    return getClass().getSimpleName();
  }

  /**
   * Whether synthesis flattens this module into its parent ({@code VerilogDesign#flattened}): a unit of a larger
   * design whose timing paths run through its ports (a controller's units), so that the gate mapping sees each
   * path whole. Modules synthesized once for many instances (arrays) keep the default, false.
   */
  public boolean flattenInSynthesis() {
    return false;
  }

  // ---- ports, wires, registers ------------------------------------------------------

  /**
   * An input port of the given type. Named after the field holding it, else the variable the
   * result is stored in (see hw-dsl/README.md, "How names are chosen").
   */
  protected final <T extends Data> T in(T type) {
    return port(null, type, false);
  }

  /** An input port named {@code name} (a bundle's leaves append their field path). */
  protected final <T extends Data> T in(String name, T type) {
    return port(name, type, false);
  }

  /** An output port of the given type, named as {@link #in(Data)}. */
  protected final <T extends Data> T out(T type) {
    return port(null, type, true);
  }

  /** An output port named {@code name}. */
  protected final <T extends Data> T out(String name, T type) {
    return port(name, type, true);
  }

  /** A port whose forward elements are outputs (the producer side of a stream). */
  protected final <T extends Data> T master(T type) {
    return port(null, type, true);
  }

  /** A port whose forward elements are inputs (the consumer side of a stream). */
  protected final <T extends Data> T slave(T type) {
    return port(null, type, false);
  }

  /**
   * As {@link #slave(Data)}, named {@code name}; the empty name gives a bundle's leaves their
   * field names alone ({@code m}, not {@code load_m}), so two modules can share one bundle of
   * ports without renaming them.
   */
  protected final <T extends Data> T slave(String name, T type) {
    return port(name, type, false);
  }

  <T extends Data> T port(String name, T type, boolean output) {
    return declarations.port(name, type, output);
  }

  /** A clock, reset or enable input ({@link SignalDeclarations#domainPort}). */
  Bool makeDomainPort(String name) {
    return declarations.domainPort(name);
  }

  /** A combinational signal of the given type. */
  protected final <T extends Data> T wire(T type) {
    return wire(null, type);
  }

  /**
   * A named combinational signal. Given a type ({@code uint(8)}) it declares it; given
   * hardware (an expression) it declares a wire of that type driven by it.
   */
  @SuppressWarnings("unchecked")
  protected final <T extends Data> T wire(String name, T typeOrValue) {
    if (typeOrValue instanceof HwValue v && v.isBound()) {
      T w = (T) v.copyType();
      declare(name, w, Role.WIRE, null);
      ((HwValue) w).set(v);
      return w;
    }
    return declare(name, typeOrValue, Role.WIRE, null);
  }

  /** A register without reset, named after the field or variable holding it. */
  protected final <T extends Data> T reg(T type) {
    return declare(null, type, Role.REG, null);
  }

  /** A register without reset named {@code name} (prefixed by the enclosing sections). */
  protected final <T extends Data> T reg(String name, T type) {
    return declare(name, type, Role.REG, null);
  }

  /** A register that takes {@code init} on reset. */
  protected final <T extends HwValue> T regInit(T type, long init) {
    return regInit(null, type, init);
  }

  /** A register named {@code name} that takes {@code init} on reset. */
  protected final <T extends HwValue> T regInit(String name, T type, long init) {
    currentDomain().reset();
    return declare(name, type, Role.REG, Ops.literal(type.kind(), type.width(), BigInteger.valueOf(init)));
  }

  /**
   * A register without reset that samples {@code value} every cycle (one cycle of delay), of
   * the value's type; named after the field or variable holding it.
   */
  @SuppressWarnings("unchecked")
  protected final <T extends HwValue> T regNext(T value) {
    return regNext(null, value);
  }

  /**
   * As {@link #regNext(HwValue)}, named {@code name} (prefixed by the enclosing sections):
   * {@code UInt d1 = regNext("d1", d);}. The name takes precedence over the variable's.
   */
  @SuppressWarnings("unchecked")
  protected final <T extends HwValue> T regNext(String name, T value) {
    T r = declare(name, (T) value.copyType(), Role.REG, null);
    r.set(value);
    return r;
  }

  /** A register that samples {@code value} in cycles where {@code enable} is true. */
  @SuppressWarnings("unchecked")
  protected final <T extends HwValue> T regEnable(String name, T value, Bool enable) {
    T r = declare(name, (T) value.copyType(), Role.REG, null);
    when(enable, () -> r.set(value));
    return r;
  }

  <T extends Data> T declare(String name, T type, Role role, Literal resetValue) {
    return declarations.declare(name, type, role, resetValue);
  }

  /** A memory of {@code depth} words of the given type, clocked by the current domain. */
  protected final <T extends HwValue> Mem<T> mem(String name, T type, int depth) {
    return declarations.memory(name, type, depth);
  }

  // ---- hierarchy -----------------------------------------------------------------------

  /** Makes {@code child} a submodule of this one; its clock and reset follow the current domain. */
  protected final <M extends HwModule> M instance(M child) {
    return instance(null, child);
  }

  protected final <M extends HwModule> M instance(String name, M child) {
    if (child.parent != null) {
      throw new ElaborationException(SourceLocation.here(), "module " + child.moduleName()
          + " is already an instance inside " + child.parent.moduleName());
    }
    child.parent = this;
    child.instanceName = name == null ? null : scopedName(name);
    String variable = SourceLocation.callSite().variable();
    child.instanceVariable = variable == null ? null : scopedName(variable);
    children.add(child);
    ClockDomain mine = currentDomain();
    ClockDomain theirs = child.mainDomain;
    if (theirs.clock != null) {
      theirs.clock.set(mine.clock());
    }
    if (theirs.reset != null) {
      theirs.reset.set(theirs.polarity == mine.polarity ? mine.reset() : mine.reset().not());
    }
    return child;
  }

  // ---- control -------------------------------------------------------------------------

  /** {@code if (cond) body}; chain {@code .elseWhen(...)} and {@code .otherwise(...)}. */
  protected final When when(Bool cond, Runnable then) {
    Stmt.When w = new Stmt.When(cond.expr(), SourceLocation.here());
    currentBlock().add(w);
    runIn(w.thenBody(), then);
    return new When(w);
  }

  /** The chain returned by {@link #when}. */
  public final class When {
    private Stmt.When last;

    When(Stmt.When last) {
      this.last = last;
    }

    public When elseWhen(Bool cond, Runnable then) {
      Stmt.When w = new Stmt.When(cond.expr(), SourceLocation.here());
      last.elseBody().add(w);
      runIn(w.thenBody(), then);
      last = w;
      return this;
    }

    public void otherwise(Runnable body) {
      runIn(last.elseBody(), body);
    }
  }

  /** A case statement: {@code switchOn(state, s -> { s.is(0, () -> ...); s.otherwise(...); })}. */
  protected final void switchOn(HwValue subject, Consumer<Switch> arms) {
    Switch s = new Switch(this, subject);
    arms.accept(s);
    currentBlock().add(new Stmt.Switch(subject.expr(), s.cases, s.defaultBody, SourceLocation.here()));
  }

  /** A named section: explicit names given inside are prefixed with {@code name_}. */
  protected final void section(String name, Runnable body) {
    scopes.inSection(name, body);
  }

  /** Creates a clock domain with its own ports {@code <prefix>_clk}, reset and enable. */
  protected final ClockDomain clockDomain(String prefix, ClockDomain.ResetKind kind,
                                          ClockDomain.Polarity polarity, boolean withEnable) {
    ClockDomain d = new ClockDomain(this, prefix, kind, polarity, withEnable);
    d.clock();
    d.reset();
    d.enable();
    return d;
  }

  /**
   * A clock domain whose ports have exactly the given names, e.g. to match an existing
   * interface: {@code clockDomain("aclk", "aresetn", ResetKind.ASYNC, Polarity.LOW)}.
   */
  protected final ClockDomain clockDomain(String clockName, String resetName, ClockDomain.ResetKind kind,
                                          ClockDomain.Polarity polarity) {
    ClockDomain d = new ClockDomain(this, "", kind, polarity, false);
    d.configure(clockName, resetName, null, kind, polarity);
    d.clock();
    d.reset();
    return d;
  }

  /**
   * Names this module's default domain's ports and sets its reset kind and polarity, e.g.
   * {@code defaultDomain("clk", "rst_n", ResetKind.SYNC, Polarity.LOW)}; call it before the
   * first register or memory. Instances of the module connect to their parent's domain with
   * the reset inverted when the polarities differ.
   */
  protected final ClockDomain defaultDomain(String clockName, String resetName, ClockDomain.ResetKind kind,
                                            ClockDomain.Polarity polarity) {
    mainDomain.configure(clockName, resetName, null, kind, polarity);
    return mainDomain;
  }

  /** The default domain of this module: ports {@code clk} and {@code reset} (sync, active high) unless renamed. */
  protected final ClockDomain defaultDomain() {
    return mainDomain;
  }

  /** Registers and memories created in {@code body} belong to {@code domain}. */
  protected final void withDomain(ClockDomain domain, Runnable body) {
    if (domain.owner != this) {
      throw new ElaborationException(SourceLocation.here(), "clock domain belongs to another module");
    }
    scopes.inDomain(domain, body);
  }

  /**
   * A register bank on a gated clock: the registers, memories and instances {@code body} creates run on a clock
   * that ticks only at the rising edges that end a cycle in which {@code enable} (or the reset) was high, and hold
   * their value otherwise. With {@link ClockGating#ON} the emitter inserts one {@link ClockGateCell} (latch and
   * AND) per call, named {@code <bank>_clockGate}, driving the wire {@code <bank>_gatedClock}; with
   * {@link ClockGating#OFF} nothing changes (the ungated design); with {@link ClockGating#CHECKED} the bank stays
   * on the ungated clock and a {@link SimulationCheck} in every module of the bank stops the simulation after a
   * cycle in which one of its registers changed while {@code enable} was low.
   *
   * <p>The generator is responsible for the enable: it must be high in every cycle at whose end a register of the
   * bank would change (its next value differs from its value), else {@code ON} gives a different design than
   * {@code OFF}. The reset is ORed into the enable ({@code <bank>_clockEnable}), so registers with reset values
   * reset whatever the enable. The enable is sampled while the clock is low: it may depend on registers of any
   * domain, not on the gated clock itself. Call it at the top level of the constructor (not inside a
   * {@code when}).
   */
  protected final void clockGated(String bank, Bool enable, ClockGating mode, Runnable body) {
    gate(bank, enable, mode, false, body);
  }

  /**
   * A bank of pipeline registers on a gated clock, like {@link #clockGated}, for registers whose values matter only
   * in the cycles that follow a cycle with {@code enable} high (a pipelined unit's internal stages, whose output is
   * read only when an operation of the unit reaches it): {@code enable} must be high in every cycle at whose end an
   * operation in flight advances through the bank. Such registers take new values in other cycles too in the
   * ungated design, so {@link ClockGating#CHECKED}'s register check does not apply: with {@code CHECKED} the bank is
   * gated as with {@link ClockGating#ON} (the co-simulation of the gated design against the golden model checks the
   * enable), with {@link ClockGating#OFF} nothing changes.
   */
  protected final void clockGatedPipeline(String bank, Bool enable, ClockGating mode, Runnable body) {
    gate(bank, enable, mode, true, body);
  }

  private void gate(String bank, Bool enable, ClockGating mode, boolean pipeline, Runnable body) {
    GatedBankBuilder.build(this, bank, enable, mode, pipeline, body);
  }

  /** Register bits on the gated banks of this module and of its instances, all levels down (each bank's own). */
  final long gatedRegisterBits() {
    return gatedBanks.stream().mapToLong(GatedBank::registerBits).sum()
        + children.stream().mapToLong(HwModule::gatedRegisterBits).sum();
  }

  /** Register bits of this module and its instances, all levels down (memories not counted). */
  public final long registerBitsOfDesign() {
    return registerBits();
  }

  /** Register bits of this module and its instances, all levels down. */
  final long registerBits() {
    return signals.stream().filter(s -> s.role == Role.REG).mapToLong(s -> s.width).sum()
        + children.stream().mapToLong(HwModule::registerBits).sum();
  }

  /** The register banks this module's generator put on gated clocks, in creation order. */
  public final List<GatedBank> gatedBanks() {
    return java.util.Collections.unmodifiableList(gatedBanks);
  }

  /** The simulation-only checks of this module. */
  public final List<SimulationCheck> simulationChecks() {
    return java.util.Collections.unmodifiableList(simulationChecks);
  }

  ClockDomain currentDomain() {
    return scopes.domain();
  }

  List<Stmt> currentBlock() {
    return scopes.block();
  }

  void runIn(List<Stmt> block, Runnable body) {
    scopes.inBlock(block, body);
  }

  String scopedName(String name) {
    return scopes.scopedName(name);
  }

  /** The elaborated contents of this module, for the emitter and checks. */
  public final ModuleIr ir() {
    return new ModuleIr(this, ports, signals, memories, children, body, parent, instanceName, createdAt);
  }
}
