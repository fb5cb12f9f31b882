package org.llmnpu.rtl.vector;

import static org.llmnpu.hdl.Hw.cat;
import static org.llmnpu.hdl.Hw.mux;
import static org.llmnpu.hdl.Hw.uintLit;

import org.llmnpu.hdl.Bool;
import org.llmnpu.hdl.UInt;

/**
 * Fields and classes of one IEEE operand (FP16: 5/10, FP32: 8/23 exponent/fraction bits), the
 * operand decoder shared by {@link Fp16Alu}, {@link Fp16Fma}, {@link Fp32Alu}, {@link Fp32Fma} and
 * {@link Fp16Convert}: the sign, the significand with its hidden bit ({@code 1.f} for normals,
 * {@code 0.f} for subnormals), the effective exponent field ({@code max(field, 1)}), and whether
 * the operand is a NaN, an infinity or a zero. Pure wiring (a few gates), no state.
 *
 * @param negative the sign bit
 * @param significand {@code mantissaBits + 1} bits
 * @param effectiveField {@code exponentBits} bits, the field or 1 for subnormals and zeros
 * @param nan all-ones field and a nonzero fraction
 * @param infinite all-ones field and a zero fraction
 * @param zero ±0
 */
record FpOperand(Bool negative, UInt significand, UInt effectiveField, Bool nan, Bool infinite, Bool zero) {
  /** The FP16 operand in the low 16 bits of {@code x}. */
  static FpOperand fp16(UInt x) {
    return of(x, 5, 10);
  }

  /** The FP32 operand {@code x}. */
  static FpOperand fp32(UInt x) {
    return of(x, 8, 23);
  }

  static FpOperand of(UInt x, int exponentBits, int mantissaBits) {
    int top = exponentBits + mantissaBits;
    UInt field = x.slice(top - 1, mantissaBits);
    UInt fraction = x.lsbs(mantissaBits);
    Bool normal = field.orR();
    Bool special = field.andR();
    return new FpOperand(x.bit(top), cat(normal, fraction).asUInt(), mux(normal, field, uintLit(1, exponentBits)),
        special.and(fraction.orR()), special.and(fraction.orR().not()), x.lsbs(top).orR().not());
  }
}
