package org.llmnpu.verilator.axi;


/** An AXI4 rule broken by the master: the rule, the cycle and what was seen. */
public final class Axi4ProtocolViolation extends RuntimeException {
  private final Axi4ProtocolChecker.Rule rule;

  public Axi4ProtocolViolation(Axi4ProtocolChecker.Rule rule, long cycle, String detail) {
    super("AXI4 protocol violation " + rule + " at cycle " + cycle + ": " + detail + " (" + rule.text + ")");
    this.rule = rule;
  }

  public Axi4ProtocolChecker.Rule rule() {
    return rule;
  }
}
