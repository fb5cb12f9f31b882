package org.llmnpu.isa;

import java.util.Locale;
import java.util.Map;
import org.llmnpu.isa.dsp.DspKernel;
import org.llmnpu.isa.dsp.DspKernels;
import org.llmnpu.isa.dsp.DspLayout;
import org.llmnpu.isa.dsp.DspMath;
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
 * </ul>
 * The symbol {@code DSP_LANES} holds the lanes of the NPU the program is assembled for (16, the
 * default NPU's, unless the caller says otherwise), so {@code .dspkernel ... DSP_LANES} fits any NPU.
 */
final class DataDirectives {
  private DataDirectives() {
  }

  /** True if the line is one of these directives. */
  static boolean matches(String line) {
    return line.startsWith(".dsptables") || line.startsWith(".dspkernel");
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
      return DspKernels.compile(k, len, lanes, eps, DspMath.DEFAULT);
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
