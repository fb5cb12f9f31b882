package org.llmnpu.sw.lower;

import org.llmnpu.isa.MachineParams;
import org.llmnpu.isa.dsp.DspKernel;
import org.llmnpu.sw.model.ModelConfig;

/**
 * The QKV post of {@link PhaseCostModel}'s extrapolated walk, as the lowering emits it: the QKV GEMM's results scaled,
 * q and k RoPE'd, q, k and v quantized and the K/V rows out, per token ({@link AttentionLowering}) or tile by tile
 * ({@link TiledQkvPost}), then the K/V rows stored.
 */
abstract class QkvPostWalk extends TiledQkvPostWalk {
  QkvPostWalk(ModelConfig c, MachineParams p, int maxContext, int blockMax, boolean extrapolate,
              int weightBits, int weightGroup, int sparsity, int mxFormat, Fusion fusion) {
    super(c, p, maxContext, blockMax, extrapolate, weightBits, weightGroup, sparsity, mxFormat, fusion);
  }

  /** q, k and v quantized with static scales ({@link DecoderLowering#staticQkv}; where the PPM epilogues apply). */
  boolean staticQkv;

  /** As {@link AttentionLowering}'s: the token's QKV scale, the RoPE of q and k, the quantization of q, k, v. */
  private java.util.List<org.llmnpu.isa.dsp.DspProgram> qkvPrograms(int qRows, int kRows) {
    java.util.List<org.llmnpu.isa.dsp.DspProgram> programs = new java.util.ArrayList<>();
    programs.add(r.scale(0, qkvN, 1, channelScales(), null, -1, 3));
    programs.add(r.kernel(DspKernel.ROPE, 2 * qSpan, new int[] {0, qRows, 0, 0}, new int[] {0, 0}));
    programs.add(r.kernel(DspKernel.ROPE, 2 * kSpan, new int[] {0, kRows, 0, 0}, new int[] {0, 0}));
    programs.addAll(QkvQuantizations.of(r, java.util.List.of(
        new DspQuantizer.Vector(0, 2 * qSpan, -1, 0, 0), new DspQuantizer.Vector(0, 2 * kSpan, -1, 0, 0),
        new DspQuantizer.Vector(0, c.kvDim(), -1, 0, 0)), staticQkv() ? new double[] {1, 1, 1} : null));
    return programs;
  }

  private boolean staticQkv() {
    return staticQkv && epilogue;
  }

  /** The QKV post tile by tile ({@link PhaseCostModel#staticQkv}, {@link TiledQkvPost}) where the shape allows. */
  boolean tiledQkvPost;
  /**
   * Whether the QKV post goes tile by tile ({@link #tiledQkvPost}) as {@link TiledQkvPost} emits it: static q/k/v
   * scales at {@code --fusion full}, per-channel weight scales, Wqkv ordered per tile ({@link QkvTiles#whyNot}), and
   * the lowering's other conditions ({@link TiledQkvPost#whyNot}) on this shape.
   */
  boolean qkvPostTiled() {
    int tile = qkvTile();
    if (!tiledQkvPost || !staticQkv() || fusion != Fusion.FULL || channelScales() < 0
        || QkvTiles.whyNot(c, tile, lanes) != null || 2 * nq % line != 0 || 8L * tile > (long) qkvYStride()) {
      return false;
    }
    QkvTiles tiles = QkvTiles.of(c, tile, lanes);
    for (int j = 0; j < tiles.count(); j++) {
      for (QkvTiles.Segment s : tiles.segments(j)) {
        long at = s.part() == QkvTiles.V || headMajorKeys ? (long) s.head() * c.headDim() : (long) s.head() * half;
        if (s.part() != QkvTiles.Q && (at % line != 0 || !headMajorKeys && nk % line != 0)) {
          return false;
        }
      }
    }
    return true;
  }

  /** {@link LoweringLayout#yStride}: a block row of the GEMM results. */
  private int qkvYStride() {
    return LoweredModel.roundUp(4 * Math.max(Math.max(qkvN, c.hiddenDim() + LoweredModel.roundUp(c.hiddenDim(),
        Math.max(1, line / 4))), c.vocabSize()), line);
  }

  /**
   * How the walk's QKV post goes, in words: static or each token's q/k/v scales, per token or tile by tile (the block's
   * tokens a group at a time, {@link BlockQkvPost}).
   */
  public String qkvPost() {
    if (!staticQkv()) {
      return "q/k/v scales each token's absmax" + (staticQkv ? " (static scales need the PPM epilogues)" : "")
          + ", post per token";
    }
    String scales = "q/k/v scales static (calibrated per tensor and layer: DecoderLowering#staticQkv; the cycles do "
        + "not depend on their values, the accuracy does)";
    if (!qkvPostTiled()) {
      return scales + ", post per token (" + (tiledQkvPost ? "Wqkv cannot be ordered per tile on this NPU or shape"
          : "tile by tile not asked for") + ")";
    }
    BlockQkvPost block = blockQkvPost();
    return scales + ", post tile by tile beside the next tile's GEMM, " + (block == null ? "token by token"
        : "for " + block.groupTokens + " tokens at once");
  }

  /** The QKV GEMM's tiles: with {@link #qkvPostTiled} each followed by the tile before's post ({@link #qkvTiled}). */
  /** {@code keysLater}: the tiled post leaves Kᵀ's lines to {@link #tiledKeysInTail} ({@link #keysAfterCache}). */
  void qkvGemms(int n, int pos, boolean keysLater) {
    if (qkvPostTiled()) {
      qkvTiled(n, pos, keysLater);
    } else {
      operator("QKV GEMM");
      gemms(n, c.dim(), qkvN);
    }
  }

  /** Per lane ({@link #runLane}) the first position and tokens whose cos/sin rows the lane's region holds, or −1. */

  /** As {@link BlockKvStores#defer}: the K/V row stores are held, in pieces, for {@link #storesDeferred}. */
  boolean deferStores;
  /** Per lane the deferred store pieces not yet costed. */
  @SuppressWarnings("unchecked")
  private final java.util.List<Runnable>[] pendingStores = new java.util.List[] {new java.util.ArrayList<Runnable>(),
      new java.util.ArrayList<Runnable>()};

  private void hold(java.util.List<Runnable> held, Runnable store) {
    if (deferStores) {
      held.add(store);
    } else {
      store.run();
    }
  }

  /** As {@link BlockKvStores#emitHeld}: the lane's ({@link #runLane}) held store pieces, costed now. */
  void storesDeferred() {
    java.util.List<Runnable> held = pendingStores[runLane];
    if (held.isEmpty()) {
      return;
    }
    String before = operator();
    operator("layer vectors, KV cache");
    held.forEach(Runnable::run);
    held.clear();
    operator(before);
  }

  /** A fresh program: no cos/sin rows held, no stores. */
  @Override
  void programStarts() {
    super.programStarts();
    pendingStores[0].clear();
    pendingStores[1].clear();
    for (int[] held : ropeRows) {
      held[0] = -1;
      held[1] = -1;
    }
  }

  /** After the QKV GEMM: each token's Q/K/V scaled, RoPE, quantized and its K/V rows out; the K/V rows stored. */
  void qkvRopeKvOut(int n, int pos) {
    operator("QKV scale, RoPE, K/V out");
    int qRows = r.rows(nq);
    int kRows = r.rows(nk);
    if (chainRuns && !qkvPostTiled() && !ropeRowsIn(n, pos)) {
      // as AttentionLowering at full: the block's cos/sin rows in one load (tiled: before the QKV GEMM), once a step
      load(n, 4L * qSpan);
    }
    boolean keyLines = writesKeyLines(n, pos);
    int early = pos % line;
    if (qkvPostTiled()) {
      // the codes, Kᵀ's lines and the K/V rows' static scales are out (qkvTiled)
      kvStored(n, pos, keyLines, early);
      return;
    }
    // as AttentionLowering: at full with the static input scale the token's programs are one, kept in the program
    // memory
    boolean pinned = chainRuns && residency != null && epilogue
        && 2 * qRows + 1 <= r.rows(Math.max(qkvN, Math.max(c.hiddenDim(), c.dim())))
        && r.pins(n, qkvPrograms(qRows, kRows), DspChain.join(java.util.List.of(r.moveElements(0, 2 * qSpan, 0),
            r.moveElements(0, lanes, 0))).size());
    for (int t = 0; t < n; t++) {
      if (chainRuns) {
        // the token's cos/sin row first, so that the runs after it join
        dspIn(1, 2L * qSpan, FP16);
      }
      resultIn(c.dim(), qkvN);
      if (pinned) {
        runPinned(staticQkv() ? "qkv pinned, static" : "qkv pinned", () -> qkvPrograms(qRows, kRows));
        // the lowering's moves differ only in the token's rows, four row bases: one rewritten program
        boolean shared = sharedRuns;
        sharedRuns = true;
        run("q move", () -> r.moveElements(0, 2 * qSpan, 0));
        run("q scale move", () -> r.moveElements(0, lanes, 0));
        sharedRuns = shared;
      } else {
        run("qkv scale", () -> r.scale(0, qkvN, 1, channelScales(), null, -1, 3));
        if (!chainRuns) {
          load(1, 4L * qSpan);
          dspIn(1, 2L * qSpan, FP16);
        }
        runAll(staticQkv() ? "qkv rope, static quantize" : "qkv rope, quantize",
            () -> qkvPrograms(qRows, kRows).subList(1, qkvPrograms(qRows, kRows).size()));
      }
      if (directKeys) {
        // KeyRows, direct: every KV head's evens in one dspout of kvHeads rows (the head dim apart), the odds likewise
        dspOut(c.kvHeads(), half, INT8);
        dspOut(c.kvHeads(), half, INT8);
      } else if (headMajorKeys) {
        // KeyRows, staged: the evens and the odds a half to a line, read back interleaved, written
        dspOut(c.kvHeads(), half, FP16);
        dspOut(c.kvHeads(), half, FP16);
        dspIn(2L * c.kvHeads(), half, FP16);
        dspOut(1, c.kvDim(), INT8);
      } else if (kSpan != nk) {
        // AttentionLowering#keyRowOut: the padded halves joined through the scratchpad, then the row out
        dspOut(1, nk, FP16);
        dspOut(1, nk, FP16);
        dspIn(2, nk, FP16);
        dspOut(1, c.kvDim(), INT8);
      } else {
        dspOut(1, c.kvDim(), INT8);
      }
      if (keyLines) {
        keyScatter(pos + t, n, pos);
      }
      dspOut(1, 1, FP16);
      dspOut(1, c.kvDim(), INT8);
      dspOut(1, 1, FP16);
    }
    kvStored(n, pos, keyLines, early);
  }

  private void kvStored(int n, int pos, boolean keyLines, int early) {
    operator("layer vectors, KV cache");
    // as BlockKvStores#store: at once, or in pieces held for the lane's gated feed-forward (storesDeferred)
    java.util.List<Runnable> held = pendingStores[runLane];
    for (int cache = 0; cache < 2; cache++) {
      for (int[] run : KvRowStores.runs(c.kvDim(), line)) {
        for (int[] piece : deferStores ? KvRowStores.pieces(n, run[1], p, n) : new int[][] {{0, n}}) {
          hold(held, () -> store(piece[1], run[1]));
        }
      }
    }
    if (keyLines) {
      long bytes = pos + n - (pos - early);
      for (int[] piece : deferStores ? KvRowStores.pieces(c.kvDim(), bytes, p, n) : new int[][] {{0, c.kvDim()}}) {
        hold(held, () -> store(piece[1], bytes));
      }
    }
    dspIn(pos + n, 1, FP16);
    dspIn(pos + n, 1, FP16);
  }
}
