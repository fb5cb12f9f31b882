package org.llmnpu.rtl.dsp;

import org.llmnpu.isa.dsp.DspKernel;
import java.util.Random;
import org.llmnpu.numerics.fp16.Fp16;
import org.llmnpu.numerics.vector.VectorConfig;
import org.llmnpu.numerics.vector.VectorKernel;

/** The numerics golden kernel for each {@link DspKernel}, and test inputs for them. */
final class DspGolden {
  private DspGolden() {
  }

  /** Outputs of the golden kernel on the operands {@code in} (as DspKernel lists them). */
  static short[][] expected(DspKernel kernel, short[][] in, float eps, int lanes) {
    return VectorKernel.byName(kernel.cliName()).golden(in, eps, new VectorConfig(lanes));
  }

  /**
   * Inputs for a kernel: normal values with the given spread, a few corner cases mixed in
   * (style 1: very large logits for SoftMax, ±0, ±∞ and NaN for the element-wise functions;
   * style 2: a near-constant vector, near-zero variance for the norms).
   */
  static short[][] inputs(DspKernel kernel, int len, int style, long seed) {
    Random rnd = new Random(seed);
    int n = kernel.inputLength(len);
    short[][] in = new short[kernel.inputs().size()][n];
    for (int op = 0; op < in.length; op++) {
      for (int i = 0; i < n; i++) {
        double spread = switch (kernel) {
          case SOFTMAX -> style == 1 ? 30000 : 8;
          case EXP -> 12;
          case RMSNORM, LAYERNORM -> op == 0 ? (style == 2 ? 0 : 3) : 1.5;
          default -> 6;
        };
        double v = rnd.nextGaussian() * spread;
        if (style == 2) {
          v += (op == 0 ? 200 : 0) + (rnd.nextInt(3) - 1) * 0.125;
        }
        if (kernel == DspKernel.ROPE && op >= 2) {
          double angle = rnd.nextDouble() * 2 * Math.PI;
          v = op == 2 ? Math.cos(angle) : Math.sin(angle);
        }
        in[op][i] = Fp16.fromDouble(v);
      }
    }
    boolean elementWise = kernel == DspKernel.SILU || kernel == DspKernel.GELU || kernel == DspKernel.EXP
        || kernel == DspKernel.RECIPROCAL || kernel == DspKernel.RSQRT || kernel == DspKernel.SWIGLU;
    if (style == 1 && elementWise) {
      short[] specials = {0, (short) 0x8000, 0x7C00, (short) 0xFC00, 0x7E00, (short) 0xFE00, 0x0001, (short) 0x8001,
          0x7BFF, (short) 0xFBFF, 0x4A00, (short) 0xCC80, (short) 0xD100, 0x03FF};
      for (int i = 0; i < Math.min(n, specials.length); i++) {
        in[0][i * (n / Math.min(n, specials.length))] = specials[i];
      }
    }
    return in;
  }
}
