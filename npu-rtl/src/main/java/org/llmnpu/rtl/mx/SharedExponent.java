package org.llmnpu.rtl.mx;

import static org.llmnpu.hdl.Hw.log2Ceil;

import static org.llmnpu.hdl.Hw.bool;
import static org.llmnpu.hdl.Hw.mux;
import static org.llmnpu.hdl.Hw.sintLit;
import static org.llmnpu.hdl.Hw.uint;
import static org.llmnpu.hdl.Hw.uintLit;

import java.util.List;
import org.llmnpu.hdl.Bool;
import org.llmnpu.hdl.HwModule;
import org.llmnpu.hdl.SInt;
import org.llmnpu.hdl.UInt;
import org.llmnpu.hdl.Vec;

/**
 * The OCP MX shared scale of a block of FP32/FP16 values, as {@code MxQuantizer} computes it:
 * {@code E = floor(log2(max|v_i|)) − emax}, clamped to [−127, 127], code {@code E + 127};
 * an all-zero block gets code 0 (2^-127); any NaN or ∞ gives the NaN scale 0xFF.
 *
 * <p>Hardware: the magnitudes (the value bits without the sign) of non-negative floats order as
 * unsigned integers, so {@code max|v_i|} is a balanced tree of integer comparators; its
 * floor(log2) is {@code field − bias} for a normal maximum and {@code −lzc(fraction) − bias} for
 * a subnormal one. Combinational, or (with {@code split}) one cycle: the partial maxima after
 * ceil(depth / 2) levels of the tree and the non-finite flag are registered.
 */
public final class SharedExponent extends HwModule {
  /** Each value without its sign bit. */
  public final Vec<UInt> magnitudes;
  public final UInt scale = out(uint(8));
  public final Bool nan = out(bool());
  private final FpLayout input;
  private final MxFormat format;
  private final int size;
  private final boolean split;
  private final int registers;

  /** Combinational. */
  public SharedExponent(FpLayout input, MxFormat format, int size) {
    this(input, format, size, false);
  }

  /** With {@code split}, a register halfway down the max tree (latency 1). */
  public SharedExponent(FpLayout input, MxFormat format, int size, boolean split) {
    this(input, format, size, split ? 1 : 0);
  }

  /**
   * With {@code registers} 1, a register halfway down the max tree; with 2 also one after the
   * tree (the maximum and the non-finite flag), before the log2 and clamp. Latency {@code registers}.
   */
  public SharedExponent(FpLayout input, MxFormat format, int size, int registers) {
    this.registers = registers;
    this.split = registers >= 1;
    this.input = input;
    this.format = format;
    this.size = size;
    int w = input.totalBits();
    int m = input.mantissaBits();
    magnitudes = in(Vec.of(size, () -> uint(w - 1)));
    Bool anyNonFinite = null;
    for (UInt v : magnitudes) {
      Bool nonFinite = v.slice(w - 2, m).andR();
      anyNonFinite = anyNonFinite == null ? nonFinite : anyNonFinite.or(nonFinite);
    }
    List<UInt> leaves = magnitudes.asList();
    if (split) {
      leaves = halfTree(leaves, (log2Ceil(size) + 1) / 2);
      anyNonFinite = regNext("anyNonFinite_s", anyNonFinite);
    }
    UInt amax = wire("amax", maxTree(leaves));
    if (registers >= 2) {
      amax = regNext("amax_s", amax);
      anyNonFinite = regNext("anyNonFinite_s2", anyNonFinite);
    }
    UInt field = amax.msbs(input.exponentBits());
    int xw = 11;
    SInt normalLog2 = field.resize(xw - 1).toSInt().sub(sintLit(input.bias(), xw));
    SInt subnormalLog2 = sintLit(-input.bias(), xw).sub(LeadingZeros.count(amax.lsbs(m)).resize(xw - 1).toSInt());
    SInt floorLog2 = wire("floorLog2", mux(field.orR(), normalLog2, subnormalLog2));
    SInt exponent = wire("exponent", floorLog2.sub(sintLit(format.emax(), xw)));
    SInt clamped = mux(exponent.lt(-127), sintLit(-127, xw), mux(exponent.gt(127), sintLit(127, xw), exponent));
    UInt code = clamped.add(sintLit(127, xw)).resize(8).asUInt();
    nan.set(anyNonFinite);
    scale.set(mux(anyNonFinite, uintLit(0xFF, 8), mux(amax.orR(), code, uintLit(0, 8))));
  }

  /** The partial maxima after {@code levels} levels of pairwise maxima, registered. */
  private List<UInt> halfTree(List<UInt> xs, int levels) {
    List<UInt> level = xs;
    for (int l = 0; l < levels && level.size() > 1; l++) {
      List<UInt> next = new java.util.ArrayList<>();
      for (int i = 0; i + 1 < level.size(); i += 2) {
        next.add(level.get(i).max(level.get(i + 1)));
      }
      if (level.size() % 2 == 1) {
        next.add(level.get(level.size() - 1));
      }
      level = next;
    }
    List<UInt> registered = new java.util.ArrayList<>();
    for (int i = 0; i < level.size(); i++) {
      registered.add(regNext("partialMax_s" + i, level.get(i)));
    }
    return registered;
  }

  private static UInt maxTree(List<UInt> xs) {
    if (xs.size() == 1) {
      return xs.get(0);
    }
    UInt a = maxTree(xs.subList(0, xs.size() / 2));
    UInt b = maxTree(xs.subList(xs.size() / 2, xs.size()));
    return a.max(b);
  }

  @Override
  public String moduleName() {
    return "MxSharedExponent_" + format.cliName() + "_" + MxDecoder.outputName(input) + "_n" + size
        + (registers > 0 ? "_r" + registers : "");
  }
}
