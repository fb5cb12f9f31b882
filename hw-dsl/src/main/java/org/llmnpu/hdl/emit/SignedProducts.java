package org.llmnpu.hdl.emit;

import org.llmnpu.hdl.Kind;
import org.llmnpu.hdl.ir.Expr;
import org.llmnpu.hdl.ir.Op;

/**
 * The widths and forms {@link ExprWriter} chooses for products: the width Verilog gives a product by
 * itself, which signed products use Verilog's signed multiply, the machine word a narrow signed product is
 * computed at, and a signed product's factors without their sign extensions. Pure functions of the IR.
 */
final class SignedProducts {
  private SignedProducts() {}

  /**
   * The width Verilog gives a product by itself: an unsigned one its wider operand's; a signed
   * one its narrowest factor's, since below the product's width the context would extend that
   * factor, with zeros in an unsigned context.
   */
  static int productWidth(Op mul) {
    int a = factor(mul.args.get(0), mul).width;
    int b = factor(mul.args.get(1), mul).width;
    return mul.kind == Kind.SINT ? Math.min(a, b) : Math.max(a, b);
  }

  /**
   * Whether a signed product is written as Verilog's signed multiply ({@code ExprWriter.signedProduct}): when both
   * factors are at most {@value #NATIVE_SIGNED_FACTOR_BITS} bits, the multipliers of MAC arrays and PEs, where
   * the benchmark measured the gain. Wider products (a requantizer's 32 × 31-bit multiply) keep the form of
   * operands sign-extended to the product's width ({@code ExprWriter.extendedProduct}): the signed form there changed
   * how Yosys and ABC built the PPM's requantizer and cost the NPU its 5.75 ns target (6.03 ns measured).
   */
  static boolean nativeSigned(Op mul) {
    return factor(mul.args.get(0), mul).width <= NATIVE_SIGNED_FACTOR_BITS
        && factor(mul.args.get(1), mul).width <= NATIVE_SIGNED_FACTOR_BITS;
  }

  /** The widest factor (in bits) of a signed product written as Verilog's signed multiply. */
  static final int NATIVE_SIGNED_FACTOR_BITS = 16;

  /**
   * The width a signed product of {@code width} bits is computed at: Verilator's machine word
   * (32 or 64 bits) when it fits, and only the low {@code width} bits are used: Verilator's signed
   * multiply at a width below its word sign-extends and masks each operand twice, at the word once.
   * Measured on mac-array's 19-bit accumulator (bench.VerilogQualityBenchmark): 0.77x to 0.85x the
   * speed of the concatenation form with the factors as signed names, 1.07x with the factors
   * sign-extended to the word ({@code ExprWriter.wordProduct}). Yosys reduces the wider product back to the operands' widths
   * (SignedProductEmissionTest), so area is unchanged.
   */
  static int machineWord(int width) {
    return width <= 32 ? 32 : width <= 64 ? 64 : width;
  }

  /**
   * A signed product's operand without its sign extensions, which the signed multiply at the
   * product's width performs itself; any other operand unchanged.
   */
  static Expr factor(Expr e, Op mul) {
    Expr f = e;
    while (mul.kind == Kind.SINT && f instanceof Op op && op.code == Op.Code.EXTEND && op.kind == Kind.SINT) {
      f = op.args.get(0);
    }
    return f;
  }
}
