package org.llmnpu.sw.lower;

import org.llmnpu.isa.CycleModel;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.isa.dsp.DspKernel;
import org.llmnpu.isa.dsp.DspProgram;
import org.llmnpu.sw.model.ModelConfig;

/**
 * The cycles and DRAM traffic of a step from model shapes alone: the command sequence
 * {@link DecoderLowering} emits (same order, same shapes, the same DSP programs compiled for the
 * shapes) fed to {@code npu-isa}'s {@link CycleModel} command by command, without data. On
 * stories260K it reproduces the golden simulator's cycle count of the lowered programs (a test
 * checks it) when no GEMM is K-tiled and the weights are per channel (it does not replay
 * {@link KSplit} chunks or {@code int4-g32} groups: it refuses a K beyond maxK unless
 * extrapolating); for shapes the lowering cannot hold (models beyond memory) it extrapolates
 * with two changes a larger NPU needs, both stated in the result: weights are streamed in N tiles of {@code maxN} columns (load tile, GEMM tile) instead of one
 * staging load, and for head dimensions that are a multiple of the line the K cache holds each
 * head contiguous, so the scores GEMV has K = head dim (not kvDim with zero rows).
 *
 * <p>Numbers: {@code cycles} (the model's), DRAM {@code readBytes}/{@code writeBytes} (beats ×
 * line, command and DSP-program fetch included), {@code macs}.
 */
public final class PhaseCostModel {
  /** The cost of one step. */
  public record Cost(long cycles, long readBytes, long writeBytes, long macs, long commands, long dspCycles,
                     long gemmCycles, long dmaCycles, long arrayCycles) {
    Cost minus(Cost o) {
      return difference(this, o);
    }

    Cost scale(long times) {
      return new Cost(0, 0, 0, 0, 0, 0, 0, 0, 0).plus(this, times);
    }

    /** {@code this + times · o}. */
    Cost plus(Cost o, long times) {
      return new Cost(cycles + times * o.cycles, readBytes + times * o.readBytes, writeBytes + times * o.writeBytes,
          macs + times * o.macs, commands + times * o.commands, dspCycles + times * o.dspCycles,
          gemmCycles + times * o.gemmCycles, dmaCycles + times * o.dmaCycles, arrayCycles + times * o.arrayCycles);
    }
  }

  private final ModelConfig c;
  private final MachineParams p;
  private final DspRoutines r;
  private final int line;
  private final int lanes;
  private final boolean wide;
  private final boolean stream;
  private final int half;
  private final int nq;
  private final int nk;
  private final int hdRows;
  private final int oK;
  private final int qkvN;
  private final int w13N;
  private final int h3Offset;
  private final int kvBytes;
  private final int maxContext;
  private final int blockMax;
  private final int layerVectorElems;
  private final int bits;
  private CycleModel cm;
  private long readBeats;
  private long writeBeats;
  private long macs;
  private long commands;

  /**
   * @param extrapolate false: exactly the lowering's command sequence; true: with the two changes
   *                    for larger shapes (weights streamed in maxN-column tiles, heads contiguous in
   *                    the K cache when the head dimension is a multiple of the line)
   */
  public PhaseCostModel(ModelConfig c, MachineParams p, int maxContext, int blockMax, boolean extrapolate) {
    this(c, p, maxContext, blockMax, extrapolate, 8);
  }

  /** As above for block weights of {@code weightBits} 8 or 4 (INT4 loaded with {@code load4}). */
  public PhaseCostModel(ModelConfig c, MachineParams p, int maxContext, int blockMax, boolean extrapolate,
                        int weightBits) {
    this.c = c;
    this.bits = weightBits;
    this.p = p;
    this.line = p.lineBytes();
    this.lanes = p.dsp().lanes();
    this.r = new DspRoutines(lanes, c.normEps());
    this.half = c.headDim() / 2;
    this.nq = c.heads() * half;
    this.nk = c.kvHeads() * half;
    this.hdRows = r.rows(c.headDim());
    this.wide = extrapolate && c.headDim() % line == 0 && half % lanes == 0;
    this.stream = extrapolate;
    this.oK = c.heads() * LoweredModel.roundUp(c.headDim(), lanes);
    this.qkvN = c.dim() + 2 * c.kvDim();
    this.h3Offset = LoweredModel.roundUp(c.hiddenDim(), Math.max(1, line / 4));
    this.w13N = h3Offset + c.hiddenDim();
    this.kvBytes = LoweredModel.roundUp(c.kvDim(), line) + line;
    this.maxContext = maxContext;
    this.blockMax = blockMax;
    this.layerVectorElems = 2 * pad8(c.dim()) + pad8(qkvN) + pad8(c.dim()) + 2 * pad8(c.hiddenDim()) + pad8(c.dim());
    int k = Math.max(Math.max(c.dim(), oK), Math.max(c.hiddenDim(), Math.max(c.kvDim(), maxContext)));
    if (!extrapolate && k > p.maxK()) {
      throw new IllegalArgumentException("a GEMM needs K = " + k + " above maxK " + p.maxK() + ": the lowering tiles K "
          + "(KSplit, partials summed on the DSP), which PhaseCostModel does not replay; run the program on the golden "
          + "simulator for its cycles");
    }
  }

  private static int pad8(int n) {
    return LoweredModel.roundUp(n, 8);
  }

  /** Whether heads are stored contiguous in the K cache (head dim a multiple of the line). */
  public boolean wideHeads() {
    return wide;
  }

  /**
   * A step of {@code tokens} tokens after {@code pos0} stored ones, {@code layers} of the model's
   * layers costed one by one and the rest scaled from the last one (layers are identical in shape).
   */
  public Cost step(int tokens, int pos0, int costedLayers) {
    cm = new CycleModel(p);
    readBeats = 0;
    writeBeats = 0;
    macs = 0;
    commands = 0;
    command(false);
    readBeats += 768 / line;
    cm.dspTable(768 / line);
    load((long) c.heads() * (wide ? c.headDim() : c.kvDim()), line);
    int zeroBytes = c.heads() * hdRows * lanes * 2;
    load(zeroBytes / line, line);
    dspCopy(1, zeroBytes / 2);
    Cost total = null;
    int layers = Math.min(costedLayers, c.layers());
    for (int start = 0; start < tokens; start += blockMax) {
      int n = Math.min(blockMax, tokens - start);
      int pos = pos0 + start;
      for (int t = 0; t < n; t++) {
        load(1, 2L * c.dim());
      }
      for (int l = 0; l < layers; l++) {
        Cost before = snapshot();
        layer(n, pos);
        if (l == layers - 1 && layers < c.layers()) {
          Cost one = snapshot().minus(before);
          total = total == null ? one.scale(c.layers() - layers) : total.plus(one, c.layers() - layers);
        }
      }
      if (start + n == tokens) {
        lmHead(1);
      }
    }
    command(false);
    Cost end = snapshot();
    return total == null ? end : end.plus(total, 1);
  }

  private Cost snapshot() {
    long[] counters = new long[org.llmnpu.isa.Counter.values().length];
    cm.fill(counters);
    return new Cost(counters[org.llmnpu.isa.Counter.CYCLES.ordinal()], readBeats * line, writeBeats * line, macs,
        commands, counters[org.llmnpu.isa.Counter.DSP_CYCLES.ordinal()],
        counters[org.llmnpu.isa.Counter.GEMM_CYCLES.ordinal()], counters[org.llmnpu.isa.Counter.DMA_CYCLES.ordinal()],
        counters[org.llmnpu.isa.Counter.ARRAY_CYCLES.ordinal()]);
  }

  private void layer(int n, int pos) {
    load(1, 2L * layerVectorElems);
    for (int len : new int[] {c.dim(), c.dim(), qkvN, c.dim(), c.hiddenDim(), c.hiddenDim(), c.dim()}) {
      dspCopy(1, len);
    }
    if (pos > 0) {
      load(pos, kvBytes);
      load(pos, kvBytes);
    }
    for (int t = 0; t < n; t++) {
      normQuantize();
    }
    gemms(n, c.dim(), qkvN);
    int qRows = r.rows(nq);
    int kRows = r.rows(nk);
    for (int t = 0; t < n; t++) {
      dspCopy(1, qkvN);
      run(r.scale(0, qkvN, 1, 2, null, -1, 3));
      load(1, 4L * nq);
      dspCopy(1, 2L * nq);
      run(r.kernel(DspKernel.ROPE, 2 * nq, new int[] {0, qRows, 0, 0}, new int[] {0, 0}));
      run(r.kernel(DspKernel.ROPE, 2 * nk, new int[] {0, kRows, 0, 0}, new int[] {0, 0}));
      run(r.quantize(0, 2 * nq, -1, 0, 0));
      run(r.quantize(0, 2 * nk, -1, 0, 0));
      run(r.quantize(0, c.kvDim(), -1, 0, 0));
      if (wide) {
        for (int g = 0; g < 2 * c.kvHeads(); g++) {
          dspCopy(1, half);
        }
      } else {
        dspCopy(1, c.kvDim());
      }
      dspCopy(1, 1);
      dspCopy(1, c.kvDim());
      dspCopy(1, 1);
    }
    store(n, kvBytes);
    store(n, kvBytes);
    dspCopy(pos + n, 1);
    dspCopy(pos + n, 1);
    for (int t = 0; t < n; t++) {
      attention(pos + t + 1);
    }
    gemms(n, oK, c.dim());
    for (int t = 0; t < n; t++) {
      residual();
    }
    for (int t = 0; t < n; t++) {
      normQuantize();
    }
    gemms(n, c.dim(), w13N);
    for (int t = 0; t < n; t++) {
      dspCopy(1, c.hiddenDim());
      dspCopy(1, c.hiddenDim());
      run(r.scale(0, c.hiddenDim(), 1, 2, null, -1, 3));
      run(r.scale(0, c.hiddenDim(), 1, 2, null, -1, 3));
      run(r.kernel(DspKernel.SWIGLU, c.hiddenDim(), new int[] {0, 0}, new int[] {0}));
      run(r.quantize(0, c.hiddenDim(), -1, 0, 0));
      dspCopy(1, c.hiddenDim());
    }
    gemms(n, c.hiddenDim(), c.dim());
    for (int t = 0; t < n; t++) {
      residual();
    }
  }

  private void lmHead(int count) {
    load(1, 2L * (pad8(c.dim()) + c.vocabSize()));
    dspCopy(1, c.dim());
    dspCopy(1, c.vocabSize());
    for (int i = 0; i < count; i++) {
      normQuantize();
    }
    gemms(count, c.dim(), c.vocabSize(), 8);
    for (int i = 0; i < count; i++) {
      dspCopy(1, c.vocabSize());
      run(r.scale(0, c.vocabSize(), 1, 2, null, -1, 3));
      dspCopy(1, c.vocabSize());
      store(1, 2L * c.vocabSize());
    }
  }

  private void attention(int s) {
    if (half % lanes != 0) {
      run(r.scatter(0, c.heads(), half, 0));
    }
    int k = wide ? c.headDim() : c.kvDim();
    for (int h = 0; h < c.heads(); h++) {
      dspCopy(half, 1);
      dspCopy(half, 1);
      for (int m0 = 0; m0 < s; m0 += p.maxM()) {
        gemm(Math.min(p.maxM(), s - m0), k, 1);
      }
      dspCopy(s, 1);
      run(r.scale(0, s, 1, 2, (short) 0x3C00, -1, 3));
      run(r.kernel(DspKernel.SOFTMAX, s, new int[] {0}, new int[] {0}));
      run(r.quantize(0, s, 1, 0, 0));
      dspCopy(1, s);
      int first = c.headDim() * (h / c.groupSize());
      int col = first - first / line * line;
      gemm(1, s, col + c.headDim());
      dspCopy(1, c.headDim());
      run(r.scale(0, hdRows * lanes, 1, -1, (short) 0x3C00, -1, 3));
    }
    run(r.quantize(0, oK, -1, 0, 0));
    dspCopy(1, oK);
  }

  private void normQuantize() {
    dspCopy(1, c.dim());
    run(r.kernel(DspKernel.RMSNORM, c.dim(), new int[] {0, 0}, new int[] {0}));
    run(r.quantize(0, c.dim(), -1, 0, 0));
    dspCopy(1, c.dim());
  }

  private void residual() {
    dspCopy(1, c.dim());
    dspCopy(1, c.dim());
    run(r.scale(0, c.dim(), 1, 2, null, 4, 5));
    dspCopy(1, c.dim());
  }

  private void gemms(int m, int k, int n) {
    gemms(m, k, n, bits);
  }

  private void gemms(int m, int k, int n, int b) {
    int tile = Math.max(line, p.maxN() / line * line);
    if (!stream) {
      weightLoad(k, n, b);
    }
    for (int n0 = 0; n0 < n; n0 += tile) {
      int nn = Math.min(tile, n - n0);
      if (stream) {
        weightLoad(k, nn, b);
      }
      gemm(m, k, nn);
    }
  }

  private void weightLoad(int k, int n, int b) {
    if (b == 4) {
      int spad = LoweredModel.roundUp(n, 2 * line);
      command(true);
      long beats = (long) k * ((spad / 2 + line - 1) / line);
      readBeats += beats;
      cm.load4(beats);
    } else {
      load(k, LoweredModel.roundUp(n, line));
    }
  }

  private void command(boolean isLoad) {
    commands++;
    readBeats += p.beatsPerCommand();
    cm.fetchAndDecode();
    cm.dispatch(isLoad, false);
  }

  private void load(long rows, long rowBytes) {
    command(true);
    long beats = rows * ((rowBytes + line - 1) / line);
    readBeats += beats;
    cm.load(beats);
  }

  private void store(long rows, long rowBytes) {
    commands++;
    readBeats += p.beatsPerCommand();
    cm.fetchAndDecode();
    cm.dispatch(false, true);
    long beats = rows * ((rowBytes + line - 1) / line);
    writeBeats += beats;
    cm.store(beats);
  }

  private void dspCopy(long rows, long elems) {
    command(false);
    cm.dspCopy(rows, elems);
  }

  private void run(DspProgram program) {
    command(false);
    long beats = (8L * program.size() + line - 1) / line;
    readBeats += beats;
    cm.dspRun(beats, program.cycles());
  }

  private void gemm(int m, int k, int n) {
    command(false);
    macs += (long) m * k * n;
    cm.gemm(m, k, n);
  }

  static Cost difference(Cost a, Cost b) {
    return new Cost(a.cycles - b.cycles, a.readBytes - b.readBytes, a.writeBytes - b.writeBytes, a.macs - b.macs,
        a.commands - b.commands, a.dspCycles - b.dspCycles, a.gemmCycles - b.gemmCycles, a.dmaCycles - b.dmaCycles,
        a.arrayCycles - b.arrayCycles);
  }
}
