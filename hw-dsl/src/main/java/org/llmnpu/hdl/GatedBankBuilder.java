package org.llmnpu.hdl;

import java.util.ArrayList;
import java.util.List;
import org.llmnpu.hdl.ir.Signal.Role;

/**
 * Builds one register bank of an {@link HwModule} on a gated clock ({@code clockGated}, {@code clockGatedPipeline}):
 * the enable ORed with the reset ({@code <bank>_clockEnable}), a domain of the module whose clock is the
 * {@link ClockGateCell}'s output ({@code <bank>_clockGate} driving {@code <bank>_gatedClock}; ON, and CHECKED for a
 * pipeline bank) or the ungated clock (CHECKED with {@link GateCheck}'s simulation checks), the bank's body run in
 * that domain, and the bank's {@link GatedBank} record with its register bits (the registers on this gate, those of
 * the instances made inside it less the bits of their own nested gates). OFF runs the body unchanged.
 */
final class GatedBankBuilder {
  private GatedBankBuilder() {
  }

  static void build(HwModule m, String bank, Bool enable, ClockGating mode, boolean pipeline, Runnable body) {
    java.util.Objects.requireNonNull(mode, "mode");
    if (mode == ClockGating.OFF) {
      body.run();
      return;
    }
    ClockDomain outer = m.currentDomain();
    String name = m.scopedName(bank);
    Bool on = m.wire(bank + "_clockEnable", enable.or(outer.resetActive()));
    ClockDomain gated = new ClockDomain(m, "", outer.resetKind, outer.polarity, false);
    gated.reset = outer.reset();
    if (mode == ClockGating.ON || pipeline) {
      ClockGateCell cell = m.instance(bank + "_clockGate", new ClockGateCell());
      cell.clk.set(outer.clock());
      cell.enable.set(on);
      gated.clock = m.wire(bank + "_gatedClock", cell.gated_clk);
    } else {
      gated.clock = outer.clock();
    }
    int childrenBefore = m.children.size();
    m.scopes.inDomain(gated, body);
    List<HwModule> inside = new ArrayList<>(m.children.subList(childrenBefore, m.children.size()));
    inside.removeIf(c -> c instanceof ClockGateCell);
    // the registers of gates nested inside (an instance's own banks) are on those gates' clocks, not this one's
    long bits = m.signals.stream().filter(s -> s.role == Role.REG && s.domain == gated).mapToLong(s -> s.width).sum()
        + inside.stream().mapToLong(HwModule::registerBits).sum()
        - inside.stream().mapToLong(HwModule::gatedRegisterBits).sum();
    m.gatedBanks.add(new GatedBank(name, mode, bits));
    if (mode == ClockGating.CHECKED && !pipeline) {
      GateCheck.add(m, on, name, bank, s -> s.domain == gated, inside);
    }
  }
}
