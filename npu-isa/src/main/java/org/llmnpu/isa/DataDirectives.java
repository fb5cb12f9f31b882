package org.llmnpu.isa;

import java.util.Locale;
import java.util.Map;
import org.llmnpu.isa.dsp.DspKernel;
import org.llmnpu.isa.dsp.DspKernels;
import org.llmnpu.isa.dsp.DspLayout;
import org.llmnpu.isa.dsp.DspMath;
import org.llmnpu.isa.dsp.DspPipeline;
import org.llmnpu.isa.dsp.DspProgram;

/**
 * The {@code .npu} directives that place data in memory next to the program, so an example runs
 * self-contained:
 * <ul>
 *   <li>{@code .dsptables ADDR}: the {@code dsptab} image of the default tables ({@code DspMath.DEFAULT},
 *       the ones the compiled kernels assume) at ADDR;</li>
 *   <li>{@code .dspkernel NAME ADDR KERNEL LEN LANES [EPS]}: the {@link DspKernels} program of KERNEL
 *       (softmax, rmsnorm, silu, …) for LEN elements on a LANES-lane DSP at ADDR; defines NAME = ADDR,
 *       NAME_words = its instruction words (the {@code dsprun words}), and the buffer rows of its
 *       operands in the kernel's {@code DspLayout}: NAME_in0, NAME_in1, … and NAME_out0, … (the
 *       {@code dspin dst} and {@code dspout src}).</li>
 *   <li>{@code .pputable ADDR FUNCTION}: the {@code pputab} image of the {@code numerics} PPU table fitted
 *       to FUNCTION (gelu, silu, sigmoid, tanh, exp; 16 segments, degree 2, 16-bit coefficients);</li>
 *   <li>{@code .ppmchannels ADDR COUNT SCALE ZEROPOINT [BIAS]}: COUNT {@code ppmcfg} records with the
 *       requantization scale SCALE (a real number, {@code QuantizedMultiplier.fromScale}), the output
 *       zero point ZEROPOINT and the INT32 bias BIAS (default 0).</li>
 * </ul>
 * The symbols {@code DSP_LANES} and {@code DSP_STAGES} hold the lanes and execute stages of the NPU's DSP the
 * program is assembled for (16 and 4, the default NPU's, unless the caller says otherwise), so
 * {@code .dspkernel ... DSP_LANES} fits any NPU.
 */
final class DataDirectives {
  private DataDirectives() {
  }

  /** True if the line is one of these directives. */
  static boolean matches(String line) {
    return line.startsWith(".dsptables") || line.startsWith(".dspkernel") || line.startsWith(".pputable")
        || line.startsWith(".ppmchannels");
  }

  /** Pass 1: the symbols a directive defines. */
  static void define(String line, Map<String, Long> symbols, String src, int lineNo) {
    if (line.startsWith(".dspkernel")) {
      String[] t = tokens(line, src, lineNo);
      DspProgram prog = kernel(t, symbols, src, lineNo);
      put(symbols, t[1], Assembler.eval(t[2], symbols, src, lineNo), src, lineNo);
      put(symbols, t[1] + "_words", prog.size(), src, lineNo);
      DspKernel k = DspKernel.byName(t[3].toLowerCase(Locale.ROOT));
      DspLayout layout = new DspLayout(k, (int) Assembler.eval(t[4], symbols, src, lineNo),
          (int) Assembler.eval(t[5], symbols, src, lineNo));
      for (int i = 0; i < k.inputs().size(); i++) {
        put(symbols, t[1] + "_in" + i, layout.inputBase(i), src, lineNo);
      }
      for (int i = 0; i < k.outputs().size(); i++) {
        put(symbols, t[1] + "_out" + i, layout.outputBase(i), src, lineNo);
      }
    }
  }

  /** Pass 2: the data segment of a directive. */
  static Assembler.Segment segment(String line, Map<String, Long> symbols, String src, int lineNo) {
    if (line.startsWith(".dsptables")) {
      String[] parts = line.trim().split("\\s+");
      if (parts.length != 2) {
        throw new AssemblyException(src, lineNo, ".dsptables needs one address: .dsptables ADDR");
      }
      return new Assembler.Segment(Assembler.eval(parts[1], symbols, src, lineNo),
          IsaSimulator.dspTableImage(DspMath.DEFAULT), 0);
    }
    if (line.startsWith(".pputable") || line.startsWith(".ppmchannels")) {
      return ppmSegment(line, symbols, src, lineNo);
    }
    String[] t = tokens(line, src, lineNo);
    DspProgram prog = kernel(t, symbols, src, lineNo);
    long[] words = prog.words();
    byte[] bytes = new byte[8 * words.length];
    for (int i = 0; i < words.length; i++) {
      for (int b = 0; b < 8; b++) {
        bytes[8 * i + b] = (byte) (words[i] >>> (8 * b));
      }
    }
    return new Assembler.Segment(Assembler.eval(t[2], symbols, src, lineNo), bytes,
        (int) Assembler.eval(t[5], symbols, src, lineNo));
  }

  private static Assembler.Segment ppmSegment(String line, Map<String, Long> symbols, String src, int lineNo) {
    String[] t = line.trim().split("\\s+");
    try {
      if (t[0].equals(".pputable")) {
        if (t.length != 3) {
          throw new AssemblyException(src, lineNo, ".pputable needs ADDR FUNCTION, e.g. .pputable 0x9000 gelu");
        }
        org.llmnpu.numerics.ppu.PpuFunction f = org.llmnpu.numerics.ppu.PpuFunction.valueOf(t[2].toUpperCase(Locale.ROOT));
        return new Assembler.Segment(Assembler.eval(t[1], symbols, src, lineNo), IsaSimulator.ppuTableImage(
            org.llmnpu.numerics.ppu.PpuFitter.fit(f, PpmUnit.FORMAT)), 0);
      }
      if (t.length != 5 && t.length != 6) {
        throw new AssemblyException(src, lineNo, ".ppmchannels needs ADDR COUNT SCALE ZEROPOINT [BIAS], e.g. "
            + ".ppmchannels 0x8000 16 0.0012 -3");
      }
      int count = (int) Assembler.eval(t[2], symbols, src, lineNo);
      var multiplier = org.llmnpu.numerics.requant.QuantizedMultiplier.fromScale(Double.parseDouble(t[3]));
      int zeroPoint = (int) Assembler.eval(t[4], symbols, src, lineNo);
      int bias = t.length == 6 ? (int) Assembler.eval(t[5], symbols, src, lineNo) : 0;
      if (count < 1 || count > 64 || zeroPoint < -128 || zeroPoint > 127) {
        throw new AssemblyException(src, lineNo, ".ppmchannels: COUNT must be in 1..64 and ZEROPOINT in -128..127, got "
            + count + " and " + zeroPoint);
      }
      byte[] bytes = new byte[Command.PPM_RECORD_BYTES * count];
      for (int j = 0; j < count; j++) {
        System.arraycopy(PpmUnit.record(bias, multiplier, zeroPoint), 0, bytes, Command.PPM_RECORD_BYTES * j,
            Command.PPM_RECORD_BYTES);
      }
      return new Assembler.Segment(Assembler.eval(t[1], symbols, src, lineNo), bytes, 0);
    } catch (IllegalArgumentException e) {
      throw new AssemblyException(src, lineNo, t[0] + ": " + e.getMessage()
          + (t[0].equals(".pputable") ? " (functions: gelu, silu, sigmoid, tanh, exp)" : ""));
    }
  }

  private static String[] tokens(String line, String src, int lineNo) {
    String[] t = line.trim().split("\\s+");
    if (t.length != 6 && t.length != 7) {
      throw new AssemblyException(src, lineNo, ".dspkernel needs NAME ADDR KERNEL LEN LANES [EPS], e.g. "
          + ".dspkernel SOFTMAX 0x9000 softmax 64 16");
    }
    return t;
  }

  private static DspProgram kernel(String[] t, Map<String, Long> symbols, String src, int lineNo) {
    try {
      DspKernel k = DspKernel.byName(t[3].toLowerCase(Locale.ROOT));
      int len = (int) Assembler.eval(t[4], symbols, src, lineNo);
      int lanes = (int) Assembler.eval(t[5], symbols, src, lineNo);
      float eps = t.length == 7 ? Float.parseFloat(t[6]) : 1e-5f;
      int stages = (int) (long) symbols.getOrDefault("DSP_STAGES", 1L);
      DspKernels.Options options = stages > 1
          ? DspKernels.Options.forPipeline(DspPipeline.ofExecuteStages(stages), false) : DspKernels.Options.DEFAULT;
      return DspKernels.compile(k, len, lanes, eps, DspMath.DEFAULT, options);
    } catch (AssemblyException e) {
      throw e;
    } catch (IllegalArgumentException e) {
      throw new AssemblyException(src, lineNo, ".dspkernel: " + e.getMessage());
    }
  }

  private static void put(Map<String, Long> symbols, String name, long value, String src, int lineNo) {
    if (symbols.put(name, value) != null) {
      throw new AssemblyException(src, lineNo, name + " is defined twice");
    }
  }
}
