package org.llmnpu.rtl.mx;

import static org.llmnpu.hdl.Hw.boolLit;

import java.util.Arrays;
import java.util.List;
import org.llmnpu.hdl.Bool;

/**
 * How the MX units round a value that falls between two codes; the same modes as
 * {@code org.llmnpu.numerics.fp.Rounding}: ties to even (the default), ties away from zero (the
 * OCP option), or truncation of the magnitude.
 */
public enum RoundMode {
  NEAREST_EVEN("nearest_even"),
  NEAREST_AWAY("nearest_away"),
  TOWARD_ZERO("toward_zero");

  private final String cliName;

  RoundMode(String cliName) {
    this.cliName = cliName;
  }

  public String cliName() {
    return cliName;
  }

  /** The increment decision from the kept LSB, the first dropped bit and the OR of the rest. */
  public Bool roundsUp(Bool keptOdd, Bool half, Bool sticky) {
    return switch (this) {
      case NEAREST_EVEN -> half.and(sticky.or(keptOdd));
      case NEAREST_AWAY -> half;
      case TOWARD_ZERO -> boolLit(false);
    };
  }

  public static RoundMode fromCliName(String name) {
    for (RoundMode r : values()) {
      if (r.cliName.equals(name)) {
        return r;
      }
    }
    throw new IllegalArgumentException("parameter 'rounding' = '" + name + "' is not allowed; allowed: "
        + String.join(", ", cliNames()));
  }

  public static List<String> cliNames() {
    return Arrays.stream(values()).map(RoundMode::cliName).toList();
  }
}
