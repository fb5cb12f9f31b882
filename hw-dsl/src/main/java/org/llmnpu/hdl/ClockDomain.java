package org.llmnpu.hdl;

/**
 * A clock, an optional reset and an optional clock enable. Registers belong to the domain
 * that is current when they are created. Reset is synchronous or asynchronous, active high
 * or low; registers made with an initial value return to it on reset, others have no reset.
 */
public final class ClockDomain {
  /** When reset acts. */
  public enum ResetKind { SYNC, ASYNC }

  /** Which reset level is active. */
  public enum Polarity { HIGH, LOW }

  final HwModule owner;
  final String prefix;
  ResetKind resetKind;
  Polarity polarity;
  final boolean withEnable;
  /** Port names chosen by the user (null: derived from the prefix). */
  String clockName;
  String resetName;
  String enableName;
  Bool clock;
  Bool reset;
  Bool enable;

  ClockDomain(HwModule owner, String prefix, ResetKind resetKind, Polarity polarity, boolean withEnable) {
    this.owner = owner;
    this.prefix = prefix;
    this.resetKind = resetKind;
    this.polarity = polarity;
    this.withEnable = withEnable;
  }

  public ResetKind resetKind() {
    return resetKind;
  }

  public Polarity polarity() {
    return polarity;
  }

  /** The clock input (created on first use for a module's default domain). */
  public Bool clock() {
    if (clock == null) {
      clock = owner.makeDomainPort(clockName != null ? clockName : prefix.isEmpty() ? "clk" : prefix + "_clk");
    }
    return clock;
  }

  /** The reset input (created on first use for a module's default domain). */
  public Bool reset() {
    if (reset == null) {
      clock();  // every module lists its clock before its reset
      String base = prefix.isEmpty() ? "reset" : prefix + "_reset";
      reset = owner.makeDomainPort(resetName != null ? resetName : polarity == Polarity.LOW ? base + "_n" : base);
    }
    return reset;
  }

  /** The clock enable input, or null when the domain has none. */
  public Bool enable() {
    if (withEnable && enable == null) {
      enable = owner.makeDomainPort(enableName != null ? enableName : prefix.isEmpty() ? "clk_en" : prefix + "_clk_en");
    }
    return enable;
  }

  /** True when some register of the domain has a reset value (the reset port exists). */
  public boolean hasReset() {
    return reset != null;
  }

  /** Signal node of the clock (for the emitter). */
  public org.llmnpu.hdl.ir.Signal clockSignal() {
    return clock().signal();
  }

  /** Signal node of the reset (for the emitter). */
  public org.llmnpu.hdl.ir.Signal resetSignal() {
    return reset().signal();
  }

  /** Signal node of the clock enable, or null. */
  public org.llmnpu.hdl.ir.Signal enableSignal() {
    return withEnable ? enable().signal() : null;
  }

  /**
   * Gives the ports these names and sets the reset's kind and polarity; only before the
   * ports exist (before the domain's first register or memory).
   */
  void configure(String clockName, String resetName, String enableName, ResetKind kind, Polarity polarity) {
    if (clock != null || reset != null || enable != null) {
      Bool first = clock != null ? clock : reset != null ? reset : enable;
      throw new ElaborationException(SourceLocation.here(), "the ports of this clock domain already exist (`"
          + first.signal().displayName() + "`, made at " + first.signal().location
          + " for the first register or memory); name them before creating registers");
    }
    this.clockName = java.util.Objects.requireNonNull(clockName, "clockName");
    this.resetName = java.util.Objects.requireNonNull(resetName, "resetName");
    this.enableName = enableName;
    this.resetKind = java.util.Objects.requireNonNull(kind, "kind");
    this.polarity = java.util.Objects.requireNonNull(polarity, "polarity");
  }

  /** True when reset is asserted, whatever the polarity. */
  public Bool resetActive() {
    return polarity == Polarity.HIGH ? reset() : reset().not();
  }
}
