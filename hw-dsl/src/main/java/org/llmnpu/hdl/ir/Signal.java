package org.llmnpu.hdl.ir;

import org.llmnpu.hdl.ClockDomain;
import org.llmnpu.hdl.Kind;
import org.llmnpu.hdl.HwModule;
import org.llmnpu.hdl.SourceLocation;

/** A named piece of hardware storage or wiring: a port, a wire or a register. */
public final class Signal extends Expr {
  /** What a signal is. */
  public enum Role { INPUT, OUTPUT, WIRE, REG }

  public final Role role;
  public final HwModule owner;
  public final SourceLocation location;
  /** Explicit name given by the user, already prefixed by the enclosing sections; may be null. */
  public String nameHint;
  /**
   * The Java variable or field the user's code stores this signal in, prefixed by its sections
   * ({@code acc} for {@code UInt acc = reg(uint(8));}), recovered from the class file; null when
   * the value is not stored directly. Names the signal when it has no explicit or field name.
   */
  public String variable;
  /** Final Verilog name, set when the module is named. */
  public String name;
  /** Path of this leaf inside an aggregate port/wire/register (e.g. {@code _payload}), or "". */
  public String aggregatePath = "";
  /** Clock domain of a register; null for other roles. */
  public final ClockDomain domain;
  /** Reset value of a register with reset, else null. */
  public final Literal resetValue;

  public Signal(Role role, int width, Kind kind, HwModule owner, SourceLocation location,
                String nameHint, ClockDomain domain, Literal resetValue) {
    super(width, kind);
    this.role = role;
    this.owner = owner;
    this.location = location;
    this.nameHint = nameHint;
    this.domain = domain;
    this.resetValue = resetValue;
  }

  public boolean isPort() {
    return role == Role.INPUT || role == Role.OUTPUT;
  }

  /**
   * The name for messages: the Verilog name if known, else the explicit name, else the
   * variable it is stored in, else a placeholder naming its type and source line.
   */
  public String displayName() {
    if (name != null) {
      return name;
    }
    if (nameHint != null) {
      return nameHint;
    }
    return variable != null ? variable + aggregatePath
        : "<unnamed " + kind.display() + "(" + width + ") from " + location + ">";
  }
}
