package org.llmnpu.rtl.mx;

import static org.llmnpu.hdl.Hw.bool;
import static org.llmnpu.hdl.Hw.boolLit;
import static org.llmnpu.hdl.Hw.cat;
import static org.llmnpu.hdl.Hw.mux;
import static org.llmnpu.hdl.Hw.uint;
import static org.llmnpu.hdl.Hw.uintLit;

import org.llmnpu.hdl.Bool;
import org.llmnpu.hdl.HwModule;
import org.llmnpu.hdl.UInt;

/**
 * Splits an MX element code into sign and magnitude: the element value is
 * {@code (-1)^negative · significand · 2^(binadeShift + quantumExponent)}, and the exact
 * element integer (value · 2^-quantumExponent) is {@code integerMagnitude = significand <<
 * binadeShift}. Floats: {@code significand = {E != 0, M}}, {@code binadeShift = max(E, 1) − 1};
 * INT8: {@code significand = |code|} (128 for code 0x80), shift 0. {@code nan} and
 * {@code infinite} flag the FP8 special codes (E4M3 S.1111.111; E5M2 IEEE). Combinational.
 */
public final class ElementUnpack extends HwModule {
  public final UInt code;
  public final Bool negative = out(bool());
  public final UInt significand;
  public final UInt binadeShift;
  public final UInt integerMagnitude;
  public final Bool nan = out(bool());
  public final Bool infinite = out(bool());
  private final MxFormat format;

  public ElementUnpack(MxFormat format) {
    this.format = format;
    FpLayout l = format.layout();
    code = in(uint(format.bits()));
    int sigWidth = l == null ? 8 : l.mantissaBits() + 1;
    int shiftWidth = l == null ? 1 : l.exponentBits();
    significand = out(uint(sigWidth));
    binadeShift = out(uint(shiftWidth));
    integerMagnitude = out(uint(format.integerMagnitudeBits()));
    negative.set(code.bit(format.bits() - 1));
    if (l == null) {
      significand.set(mux(negative, code.not().add(1), code));
      binadeShift.set(uintLit(0, 1));
      integerMagnitude.set(significand);
      nan.set(boolLit(false));
      infinite.set(boolLit(false));
      return;
    }
    int m = l.mantissaBits();
    UInt exponentField = code.slice(m + l.exponentBits() - 1, m);
    UInt mantissaField = code.lsbs(m);
    Bool normal = exponentField.orR();
    significand.set(cat(normal, mantissaField).asUInt());
    binadeShift.set(mux(normal, exponentField.sub(1), uintLit(0, l.exponentBits())));
    integerMagnitude.set(significand.resize(format.integerMagnitudeBits()).shiftLeft(binadeShift));
    Bool topExponent = exponentField.andR();
    switch (l.specials()) {
      case IEEE -> {
        nan.set(topExponent.and(mantissaField.orR()));
        infinite.set(topExponent.and(mantissaField.orR().not()));
      }
      case NAN_ALL_ONES -> {
        nan.set(topExponent.and(mantissaField.andR()));
        infinite.set(boolLit(false));
      }
      case NONE -> {
        nan.set(boolLit(false));
        infinite.set(boolLit(false));
      }
    }
  }

  @Override
  public String moduleName() {
    return "MxElementUnpack_" + format.cliName();
  }
}
