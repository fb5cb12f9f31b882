package org.llmnpu.cosim.blocks;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.llmnpu.hdl.HwModule;
import org.llmnpu.hdl.emit.Verilog;
import org.llmnpu.hdl.sim.Simulator;
import org.llmnpu.numerics.fp.Rounding;
import org.llmnpu.numerics.mx.MxBlock;
import org.llmnpu.numerics.mx.MxDot;
import org.llmnpu.numerics.mx.MxElementType;
import org.llmnpu.numerics.mx.MxPrealign;
import org.llmnpu.numerics.mx.MxQuantizer;
import org.llmnpu.rtl.mx.FpLayout;
import org.llmnpu.rtl.mx.MxBlockQuantizer;
import org.llmnpu.rtl.mx.MxDecoder;
import org.llmnpu.rtl.mx.MxDequantizer;
import org.llmnpu.rtl.mx.MxDotProduct;
import org.llmnpu.rtl.mx.MxEncoder;
import org.llmnpu.rtl.mx.MxFormat;
import org.llmnpu.rtl.mx.MxPrealigner;
import org.llmnpu.rtl.mx.RoundMode;

/**
 * Runs every MX unit of one element format in Verilator against the golden models: decode over
 * every code × every E8M0 scale, encode over every code's value, its midpoints and ±1 FP32 ulp at
 * several scales, quantize → dequantize round trips and dot products on random Gaussian blocks
 * streamed one block per cycle, and pre-alignment of every code. Errors are measured against
 * double precision.
 */
public final class MxCosimRun {
  private static final int BLOCK = 32;

  /** One unit's result: cases checked, mismatches, max error (unit named by {@code errorUnit}), cycles. */
  public record UnitResult(String unit, long cases, long mismatches, double maxError, String errorUnit, long cycles,
                    String cycleFormula) {
  }

  private MxCosimRun() {
  }

  /** Every unit of {@code format}, with {@code blocks} random Gaussian blocks from {@code seed}. */
  public static List<UnitResult> run(MxFormat format, int blocks, long seed) {
    MxElementType type = MxElementType.valueOf(format.name());
    List<UnitResult> out = new ArrayList<>();
    out.add(decode(format, type));
    out.add(encode(format, type));
    Random rnd = new Random(seed);
    List<double[]> values = everyCodeBlocks(type);
    for (int b = 0; b < blocks; b++) {
      double[] v = new double[BLOCK];
      int e = rnd.nextInt(20) - 10;
      for (int i = 0; i < BLOCK; i++) {
        v[i] = (float) Math.scalb(rnd.nextGaussian(), e);
      }
      values.add(v);
    }
    List<MxBlock> quantized = new ArrayList<>();
    out.add(quantize(format, type, values, quantized));
    out.add(dequantize(format, type, values, quantized));
    out.add(dot(format, type, quantized));
    if (format != MxFormat.FP8_E5M2) {
      out.add(prealign(format, type));
    }
    return out;
  }

  private static Simulator start(HwModule m) {
    return org.llmnpu.verilator.Simulators.start(Verilog.emit(m));
  }

  private static long fp32(double v) {
    return Float.floatToRawIntBits((float) v) & 0xFFFFFFFFL;
  }

  private static UnitResult decode(MxFormat format, MxElementType type) {
    long cases = 0;
    long bad = 0;
    double maxRel = 0;
    try (Simulator sim = start(new MxDecoder(new MxDecoder.Config(format, FpLayout.FP32)))) {
      for (int scale = 0; scale < 256; scale++) {
        sim.poke("scale", scale);
        for (int code = 0; code < type.codeCount(); code++) {
          MxBlock b = new MxBlock(type, scale, new int[] {code});
          long expected = Float.floatToRawIntBits(b.dequantizeToFp32()[0]) & 0xFFFFFFFFL;
          sim.poke("code", code);
          long got = sim.peekLong("value");
          cases++;
          bad += got == expected ? 0 : 1;
          double exact = b.value(0);
          float rtl = Float.intBitsToFloat((int) got);
          if (Double.isFinite(exact) && Float.isFinite(rtl) && exact != 0) {
            maxRel = Math.max(maxRel, Math.abs(rtl - exact) / Math.abs(exact));
          }
        }
      }
    }
    return new UnitResult("decode (mx-decode, FP32 out; every code x every scale)", cases, bad, maxRel,
        "relative", 0, "combinational");
  }

  private static UnitResult encode(MxFormat format, MxElementType type) {
    long cases = 0;
    long bad = 0;
    double maxUlps = 0;
    int[] scales = {100, 120, 127, 134, 150};
    try (Simulator sim = start(new MxEncoder(new MxEncoder.Config(format, FpLayout.FP32, RoundMode.NEAREST_EVEN)))) {
      for (int scale : scales) {
        int e = scale - 127;
        sim.poke("scale", scale);
        for (double r : gridAndMidpoints(type)) {
          for (long bits : new long[] {fp32(Math.scalb(r, e)), fp32(Math.scalb(r, e)) + 1, fp32(Math.scalb(r, e)) - 1}) {
            double v = Float.intBitsToFloat((int) bits);
            if (!Double.isFinite(v)) {
              continue;
            }
            int expected = type.encode(Math.scalb(v, -e), Rounding.NEAREST_EVEN);
            sim.poke("value", bits);
            long got = sim.peekLong("code");
            cases++;
            bad += got == expected ? 0 : 1;
            double element = Math.scalb(v, -e);
            if (Math.abs(element) <= type.maxNormal()) {
              double q = type.decode((int) got);
              maxUlps = Math.max(maxUlps, Math.abs(q - element) / ulp(type, element));
            }
          }
        }
      }
    }
    return new UnitResult("encode (mx-encode, FP32 in, RNE; codes, midpoints, +-1 ulp, 5 scales)", cases, bad,
        maxUlps, "element ulp", 0, "combinational");
  }

  private static UnitResult quantize(MxFormat format, MxElementType type, List<double[]> values, List<MxBlock> out) {
    long bad = 0;
    long cycles;
    try (Simulator sim = start(new MxBlockQuantizer(new MxBlockQuantizer.Config(format, FpLayout.FP32,
        RoundMode.NEAREST_EVEN, BLOCK)))) {
      sim.reset(1);
      long start = sim.cycle();
      for (double[] v : values) {
        for (int i = 0; i < BLOCK; i++) {
          sim.poke("values_" + i, fp32(v[i]));
        }
        sim.poke("inValid", 1);
        sim.step();
        MxBlock expected = MxQuantizer.quantize(type, v);
        int[] codes = new int[BLOCK];
        for (int i = 0; i < BLOCK; i++) {
          codes[i] = (int) sim.peekLong("codes_" + i);
        }
        MxBlock got = new MxBlock(type, (int) sim.peekLong("scale"), codes);
        bad += got.equals(expected) ? 0 : 1;
        out.add(got);
      }
      cycles = sim.cycle() - start;
    }
    return new UnitResult("quantize (mx-quantizer, 32 x FP32 -> block; every code, then random Gaussian blocks)",
        values.size(), bad, 0, "", cycles, "one block per cycle, latency 1");
  }

  private static UnitResult dequantize(MxFormat format, MxElementType type, List<double[]> values, List<MxBlock> blocks) {
    long bad = 0;
    double maxRel = 0;
    long cycles;
    try (Simulator sim = start(new MxDequantizer(new MxDequantizer.Config(format, FpLayout.FP32, BLOCK)))) {
      sim.reset(1);
      long start = sim.cycle();
      for (int b = 0; b < blocks.size(); b++) {
        MxBlock block = blocks.get(b);
        for (int i = 0; i < BLOCK; i++) {
          sim.poke("codes_" + i, block.element(i));
        }
        sim.poke("scale", block.scaleCode());
        sim.poke("inValid", 1);
        sim.step();
        float[] expected = block.dequantizeToFp32();
        double amax = 0;
        for (double v : values.get(b)) {
          amax = Math.max(amax, Math.abs(v));
        }
        for (int i = 0; i < BLOCK; i++) {
          long got = sim.peekLong("values_" + i);
          bad += got == (Float.floatToRawIntBits(expected[i]) & 0xFFFFFFFFL) ? 0 : 1;
          maxRel = Math.max(maxRel, Math.abs(Float.intBitsToFloat((int) got) - values.get(b)[i]) / amax);
        }
      }
      cycles = sim.cycle() - start;
    }
    return new UnitResult("dequantize (mx-dequantizer, block -> 32 x FP32; round trip of the quantized blocks)",
        (long) blocks.size() * BLOCK, bad, maxRel, "of block max |v| (quantization error)", cycles, "one block per cycle, latency 1");
  }

  private static UnitResult dot(MxFormat format, MxElementType type, List<MxBlock> blocks) {
    long bad = 0;
    double maxUlps = 0;
    long cycles;
    try (Simulator sim = start(new MxDotProduct(new MxDotProduct.Config(format, format, BLOCK)))) {
      sim.reset(1);
      long start = sim.cycle();
      for (int k = 0; k < blocks.size(); k++) {
        MxBlock a = blocks.get(k);
        MxBlock b = blocks.get((k + 1) % blocks.size());
        for (int i = 0; i < BLOCK; i++) {
          sim.poke("codesA_" + i, a.element(i));
          sim.poke("codesB_" + i, b.element(i));
        }
        sim.poke("scaleA", a.scaleCode());
        sim.poke("scaleB", b.scaleCode());
        sim.poke("inValid", 1);
        sim.step();
        long got = sim.peekLong("result");
        bad += got == (Float.floatToRawIntBits(MxDot.dot(a, b)) & 0xFFFFFFFFL) ? 0 : 1;
        double exact = 0;
        for (int i = 0; i < BLOCK; i++) {
          exact += a.value(i) * b.value(i);
        }
        float rtl = Float.intBitsToFloat((int) got);
        if (exact != 0) {
          maxUlps = Math.max(maxUlps, Math.abs(rtl - exact) / Math.ulp((float) exact));
        }
      }
      cycles = sim.cycle() - start;
    }
    return new UnitResult("dot (mx-dot, two blocks -> FP32; accumulator "
        + new MxDotProduct.Config(format, format, BLOCK).accumulatorBits() + " bits)", blocks.size(), bad, maxUlps,
        "FP32 ulp vs double", cycles, "one block pair per cycle, latency 1");
  }

  private static UnitResult prealign(MxFormat format, MxElementType type) {
    long bad = 0;
    long cases = 0;
    long cycles;
    try (Simulator sim = start(new MxPrealigner(new MxPrealigner.Config(format, 0, RoundMode.TOWARD_ZERO, BLOCK)))) {
      sim.reset(1);
      long start = sim.cycle();
      for (int first = 0; first < type.codeCount(); first += BLOCK) {
        int[] codes = new int[BLOCK];
        for (int i = 0; i < BLOCK; i++) {
          codes[i] = (first + i) % type.codeCount();
        }
        MxBlock block = new MxBlock(type, 127, codes);
        for (int i = 0; i < BLOCK; i++) {
          sim.poke("codes_" + i, codes[i]);
        }
        sim.poke("scale", 127);
        sim.poke("inValid", 1);
        sim.step();
        MxPrealign.Prealigned expected = MxPrealign.exact(block);
        int[] ints = expected.ints();
        cases += BLOCK;
        boolean ok = sim.peekSigned("exponent").intValue() == expected.exponent()
            && (sim.peekLong("nan") == 1) == expected.nan();
        for (int i = 0; i < BLOCK; i++) {
          ok &= sim.peekSigned("ints_" + i).intValue() == ints[i];
        }
        bad += ok ? 0 : BLOCK;
      }
      cycles = sim.cycle() - start;
    }
    return new UnitResult("prealign (mx-prealign, exact integers; every code)", cases, bad, 0, "", cycles,
        "one block per cycle, latency 1");
  }

  /** Blocks holding every finite code's value, 31 at a time next to the largest normal (scale 2^0). */
  private static List<double[]> everyCodeBlocks(MxElementType type) {
    List<double[]> out = new ArrayList<>();
    for (int start = 0; start < type.codeCount(); start += BLOCK - 1) {
      double[] v = new double[BLOCK];
      for (int i = 0; i < BLOCK - 1; i++) {
        int c = start + i;
        v[i] = c < type.codeCount() && Double.isFinite(type.decode(c)) ? type.decode(c) : 0;
      }
      v[BLOCK - 1] = type.maxNormal();
      out.add(v);
    }
    return out;
  }

  private static List<Double> gridAndMidpoints(MxElementType type) {
    List<Double> reals = new ArrayList<>();
    for (int c = 0; c < type.codeCount(); c++) {
      double a = type.decode(c);
      if (!Double.isFinite(a)) {
        continue;
      }
      reals.add(a);
      if (c + 1 < type.codeCount() && Double.isFinite(type.decode(c + 1))
          && Math.signum(type.decode(c + 1)) * Math.signum(a) >= 0) {
        reals.add((a + type.decode(c + 1)) / 2);
      }
    }
    return reals;
  }

  /** Element ulp at |x| (x in element units): 2^(max(floor(log2|x|), emin) − m), INT8 2^-6. */
  private static double ulp(MxElementType type, double x) {
    if (type.format() == null) {
      return Math.scalb(1.0, MxElementType.INT8_SCALE_EXPONENT);
    }
    int emin = type.format().emin();
    int e = x == 0 ? emin : Math.max(Math.getExponent(x), emin);
    return Math.scalb(1.0, e - type.format().mantissaBits());
  }
}
