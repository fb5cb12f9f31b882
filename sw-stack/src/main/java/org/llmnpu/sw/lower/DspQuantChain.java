package org.llmnpu.sw.lower;

import org.llmnpu.isa.dsp.DspAssembler;
import org.llmnpu.isa.dsp.DspOp;
import org.llmnpu.numerics.fp16.Fp16;

/**
 * The scalar chain of a dynamic INT8 quantization ({@link DspQuantizer}, and the attention's probabilities quantized
 * inside their SoftMax run, {@link AttentionSoftmax}): from the per-lane absmax, the reduction tree over the lanes, the
 * broadcast and the guard ({@code max(absmax, 2^-8)}), {@code d = absmax/127} (FP16) and {@code 127/absmax} by four
 * Newton steps {@code y ← y·fp16(2 − a·y)} (FMA16, MUL16) from {@code 0.75·2^-floor(log2 absmax)}. One emitter, so that
 * both programs compute the same d and codes bit for bit.
 */
final class DspQuantChain {
  /** The constants' FP16 values, in {@link Registers}' order: 0, 2, 127, 1/127, 2^−8 (the guard), 0.75. */
  static final int[] CONSTANTS = {0, 0x4000, Fp16.fromFloat(127f) & 0xFFFF, Fp16.fromDouble(1.0 / 127) & 0xFFFF,
      0x1C00, 0x3A00};

  private DspQuantChain() {
  }

  /**
   * The chain's registers: the absmax accumulator (per lane, then broadcast), the temporaries t, e, neg, the results d
   * and y (127/absmax), and the constants ({@link #CONSTANTS}).
   */
  record Registers(int acc, int t, int e, int neg, int d, int y, int zero, int two, int c127, int inv127, int guard,
                   int c075) {
  }

  /** The chain over {@code lanes} lanes into {@code a}: 2·log2(lanes) + 20 instructions. */
  static void emit(DspAssembler a, int lanes, Registers c) {
    for (int width = lanes; width > 1; width /= 2) {
      a.emit(DspOp.LSHIFT, c.t(), c.acc(), 0, 0, false, 0, width / 2);
      a.op(DspOp.MAX16, c.acc(), c.acc(), c.t());
    }
    a.op(DspOp.BCAST, c.acc(), c.acc(), 0).op(DspOp.MAX16, c.acc(), c.acc(), c.guard());
    a.aux(DspOp.EXPO, 0, c.e(), c.acc(), 0).op(DspOp.NEGABS, c.neg(), c.acc(), 0).op(DspOp.ISUB, c.e(), c.zero(), c.e())
        .op(DspOp.SCALB16, c.y(), c.c075(), c.e()).op(DspOp.MUL16, c.d(), c.acc(), c.inv127());
    for (int i = 0; i < 4; i++) {
      a.fma(c.t(), c.neg(), c.y(), c.two()).op(DspOp.MUL16, c.y(), c.y(), c.t());
    }
    a.op(DspOp.MUL16, c.y(), c.y(), c.c127());
  }
}
