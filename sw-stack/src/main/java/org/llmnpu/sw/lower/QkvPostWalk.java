package org.llmnpu.sw.lower;

import org.llmnpu.isa.MachineParams;
import org.llmnpu.isa.dsp.DspKernel;
import org.llmnpu.sw.model.ModelConfig;

/**
 * The QKV post of {@link PhaseCostModel}'s extrapolated walk, as the lowering emits it: the QKV GEMM's results scaled,
 * q and k RoPE'd, q, k and v quantized and the K/V rows out, per token ({@link AttentionLowering}) or tile by tile
 * ({@link TiledQkvPost}), then the K/V rows stored.
 */
abstract class QkvPostWalk extends KeyWalk {
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
    programs.add(r.kernel(DspKernel.ROPE, 2 * nq, new int[] {0, qRows, 0, 0}, new int[] {0, 0}));
    programs.add(r.kernel(DspKernel.ROPE, 2 * nk, new int[] {0, kRows, 0, 0}, new int[] {0, 0}));
    programs.addAll(AttentionLowering.quantizations(r, java.util.List.of(
        new DspQuantizer.Vector(0, 2 * nq, -1, 0, 0), new DspQuantizer.Vector(0, 2 * nk, -1, 0, 0),
        new DspQuantizer.Vector(0, c.kvDim(), -1, 0, 0)), staticQkv() ? new double[] {1, 1, 1} : null));
    return programs;
  }

  private boolean staticQkv() {
    return staticQkv && epilogue;
  }

  /** The QKV post tile by tile ({@link PhaseCostModel#staticQkv}, {@link TiledQkvPost}) where the shape allows. */
  boolean tiledQkvPost;
  /** The result buffers of the QKV tiles: {@code QKV_TILES + 2·chunk + j mod 2} ({@link TiledQkvPost#buffer}). */
  private static final long QKV_TILES = RESULTS + 1_000;

  /** The QKV GEMM's stream tile (as {@link PhaseWalk#gemms}): whole pairs of lines for INT4. */
  private int qkvTile() {
    int unit = bits == 4 ? 2 * line : line;
    return Math.max(unit, p.maxN() / unit * unit);
  }

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

  /** As {@link TiledQkvPost#emit}: the cos/sin rows in, GEMM j then tile j−1's post, the K/V scale rows out. */
  private void qkvTiled(int n, int pos, boolean keysLater) {
    operator("QKV scale, RoPE, K/V out");
    load(n, 4L * nq);
    QkvTiles tiles = QkvTiles.of(c, qkvTile(), lanes);
    int lastKeys = -1;
    for (int j = 0; j < tiles.count(); j++) {
      lastKeys = tiles.holdsKeys(j) ? j : lastKeys;
    }
    KSplit ks = weightSplit(c.dim());
    for (int j = 0; j <= tiles.count(); j++) {
      if (j < tiles.count()) {
        operator("QKV GEMM");
        for (int ci = 0; ci < ks.count(); ci++) {
          resultTag = QKV_TILES + 2 * ci + j % 2;
          streamedGemm(n, ks.length(ci), Math.min(tiles.tile(), qkvN - j * tiles.tile()), bits == 4,
              sparsity != org.llmnpu.isa.Command.DENSE, bits == 4 && groupScaled);
        }
        resultTag = RESULTS;
      }
      if (j > 0) {
        qkvTilePost(tiles, j - 1, n, ks);
        if (j - 1 == lastKeys && !keysLater) {
          tiledKeyLines(n, pos);
        }
      }
    }
    for (int t = 0; t < n && blockQkvPost() == null; t++) {
      dspOut(1, 1, FP16);
      dspOut(1, 1, FP16);
    }
  }


  private BlockQkvPost blockQkvPost;
  private boolean blockQkvPostTried;

  /**
   * The lowering's block-wide post ({@link BlockQkvPost}) on this shape, laid out as the lowering lays it out (its
   * programs, on the lowering's rows, are the walk's), or null: the post goes token by token.
   */
  BlockQkvPost blockQkvPost() {
    if (!blockQkvPostTried) {
      blockQkvPostTried = true;
      try {
        blockQkvPost = BlockQkvPost.ofLayout(c, p, maxContext, blockMax, new int[] {bits, group, sparsity, mxFormat},
            fusion);
      } catch (IllegalArgumentException cannotLayOut) {
        // an extrapolated model: the lowering's groups in score rows sized as LoweringLayout sizes them
        int scoreRows = Math.max(r.rows(Math.max(maxContext, c.vocabSize())),
            DspQuantizer.MAX_VECTORS * r.rows(maxContext));
        BlockQkvPost post = new BlockQkvPost(c, p, r, QkvTiles.of(c, qkvTile(), lanes), headMajorKeys,
            weightSplit(c.dim()), blockMax, scoreRows, new int[] {0, 1, 1 + blockMax});
        blockQkvPost = post.whyNot == null ? post : null;
      }
    }
    return blockQkvPost;
  }

  /** As {@link BlockQkvPost#post}: tile j's post a group of tokens at a time, its programs the lowering's. */
  private void qkvBlockTilePost(BlockQkvPost post, QkvTiles tiles, int j, int n, KSplit ks) {
    operator("QKV scale, RoPE, K/V out");
    int width = Math.min(tiles.tile(), qkvN - j * tiles.tile());
    int rows = width / lanes;
    int pairRows = BlockQkvPost.pairRows(c, tiles, lanes);
    for (int t0 = 0; t0 < n; t0 += post.groupTokens) {
      int g = Math.min(post.groupTokens, n - t0);
      if (j == 0 || n > post.groupTokens) {
        for (int i = 0; i < 2 * pairRows; i++) {
          dspIn(g, lanes, FP16);
        }
      }
      for (int ci = 0; ci < (ks.combined() ? ks.count() : 1); ci++) {
        for (int rho = 0; rho < rows; rho++) {
          dspIn(g, lanes, INT32, QKV_TILES + 2 * ci + j % 2);
        }
      }
      if (ks.combined()) {
        layoutRows = true;
        run(java.util.List.of("block qkv sum", rows, g), () -> post.sumProgram(rows, g));
        layoutRows = false;
      }
      for (int rho = 0; rho < rows; rho++) {
        dspIn(g, lanes, FP16);
      }
      int t = t0;
      layoutRows = true;
      run(java.util.List.of("block qkv scale", width, g), () -> post.scaleProgram(width, g));
      for (QkvTiles.Segment seg : tiles.segments(j)) {
        int segRows = seg.heads() * half / lanes;
        short[] kd = qkvScale(seg.part());
        if (seg.part() != QkvTiles.V) {
          run(java.util.List.of("block qkv rope", seg, g), () -> post.ropeProgram(seg, g));
        }
        run(java.util.List.of("block qkv quantize", seg, t, g, kd[0]), () -> post.quantizeProgram(seg, t, g, kd[0],
            kd[1]));
        layoutRows = false;
        if (seg.part() == QkvTiles.Q) {
          for (int i = 0; i < 2 * segRows; i++) {
            dspOut(g, lanes, FP16);
          }
          dspIn(g, (long) segRows * lanes, FP16);
          dspIn(g, (long) segRows * lanes, FP16);
        } else if (seg.part() == QkvTiles.V || !headMajorKeys || half % lanes == 0) {
          for (int i = 0; i < 2 * segRows; i++) {
            dspOut(g, lanes, INT8);
          }
        } else {
          for (int i = 0; i < segRows; i++) {
            dspOut((long) g * (lanes / half), half, FP16);
            dspOut((long) g * (lanes / half), half, FP16);
            dspIn(2L * g * (lanes / half), half, FP16);
            dspOut(g, 2L * lanes, INT8);
          }
        }
      }
      if (j == post.lastKeys()) {
        dspOut(g, 1, FP16);
      }
      if (j == tiles.count() - 1) {
        dspOut(g, 1, FP16);
      }
    }
  }

  /**
   * As {@link TiledQkvPost}'s post of tile j, every token: the lowering's programs on rows laid out as
   * {@link LoweringLayout}'s (so that runs differ from token to token and tile to tile in the same rows), the static
   * scales a constant per part.
   */
  private void qkvTilePost(QkvTiles tiles, int j, int n, KSplit ks) {
    BlockQkvPost block = blockQkvPost();
    if (block != null) {
      qkvBlockTilePost(block, tiles, j, n, ks);
      return;
    }
    operator("QKV scale, RoPE, K/V out");
    int width = Math.min(tiles.tile(), qkvN - j * tiles.tile());
    int pairs = 0;
    for (QkvTiles.Segment seg : tiles.segments(j)) {
      pairs = seg.part() == QkvTiles.V ? pairs : Math.max(pairs, seg.heads() * half);
    }
    int maxPairs = pairs;
    int qRows = r.rows(nq);
    int kRows = r.rows(nk);
    int rWs = r.rows(Math.max(qkvN, Math.max(c.hiddenDim(), c.dim())));
    int rQkv = rWs + r.rows(qkvN);
    int rCs = rQkv + r.rows(qkvN);
    int rQ = rCs + 2 * qRows;
    int rK = rQ + 2 * qRows;
    int rQQ = rK + 2 * kRows;
    int rDQ = rQQ + blockMax * 2 * qRows;
    int rKQ = rDQ + blockMax;
    int rDK = rKQ + 2 * kRows;
    int rVQ = rDK + 1;
    int rDV = rVQ + r.rows(c.kvDim());
    int rDX = rDV + 1;
    int col0 = j * tiles.tile();
    for (int t = 0; t < n; t++) {
      int token = t;
      for (int ci = 0; ci < ks.count(); ci++) {
        dspIn(1, width, INT32, QKV_TILES + 2 * ci + j % 2);
      }
      if (ks.combined()) {
        run(java.util.List.of("sum partials", ks.count(), width, -1),
            () -> r.sumPartials(0, ks.count(), r.rows(width), width, -1, 0));
      }
      if (maxPairs > 0) {
        dspIn(2, maxPairs, FP16);
      }
      layoutRows = true;
      run(java.util.List.of("qkv tile scale", width, col0),
          () -> r.scale(0, width, rDX, rWs + col0 / lanes, null, -1, rQkv));
      for (QkvTiles.Segment seg : tiles.segments(j)) {
        int len = seg.heads() * half;
        int in = rQkv + seg.offset() / lanes;
        short[] kd = qkvScale(seg.part());
        short k = kd[0];
        layoutRows = true;
        if (seg.part() == QkvTiles.V) {
          int v0 = seg.head() * c.headDim() / lanes;
          run(java.util.List.of("qkv tile v", len, in, v0, k),
              () -> r.quantizeStatic(in, 2 * len, -1, k, rVQ + v0, rDV, kd[1]));
          layoutRows = false;
          dspOut(1, 2L * len, INT8);
          continue;
        }
        boolean q = seg.part() == QkvTiles.Q;
        int rows = q ? qRows : kRows;
        int rope = q ? rQ : rK;
        int head = seg.head() * half / lanes;
        int sinRow = rCs + r.rows(maxPairs);
        run(java.util.List.of("qkv tile rope", len, in, sinRow, rope + head, rows), () -> r.kernel(DspKernel.ROPE,
            2 * len, new int[] {in, in + len / lanes, rCs, sinRow}, new int[] {rope + head, rope + rows + head}));
        int codes = q ? rQQ + token * 2 * rows : rKQ;
        int scaleRow = q ? rDQ + token : rDK;
        for (int odd = 0; odd < 2; odd++) {
          int at = odd * rows + head;
          run(java.util.List.of("qkv tile quantize", len, rope + at, codes + at, scaleRow, k),
              () -> r.quantizeStatic(rope + at, len, -1, k, codes + at, scaleRow, kd[1]));
        }
        layoutRows = false;
        if (!q && headMajorKeys) {
          // BatchedAttention#keyRowOut of the segment's heads
          dspOut(seg.heads(), half, FP16);
          dspOut(seg.heads(), half, FP16);
          dspIn(2L * seg.heads(), half, FP16);
          dspOut(1, 2L * len, INT8);
        } else if (!q) {
          dspOut(1, len, INT8);
          dspOut(1, len, INT8);
        }
      }
    }
  }

  /**
   * The tiled post's quantization constants {k, d} of q, k or v ({@code part}, {@link QkvTiles#Q}...): the layer's
   * layout-only static scale and its reciprocal, as {@link TiledQkvPost}'s programs carry them.
   */
  private short[] qkvScale(int part) {
    double s = layerScale(new StaticScales.Site[] {StaticScales.Site.Q, StaticScales.Site.K,
        StaticScales.Site.V}[part]);
    return new short[] {LoweringEmitter.half(1 / s), LoweringEmitter.half(s)};
  }

  /** After the QKV GEMM: each token's Q/K/V scaled, RoPE, quantized and its K/V rows out; the K/V rows stored. */
  void qkvRopeKvOut(int n, int pos) {
    operator("QKV scale, RoPE, K/V out");
    int qRows = r.rows(nq);
    int kRows = r.rows(nk);
    if (chainRuns && !qkvPostTiled()) {
      // as AttentionLowering at full: the block's cos/sin rows in one load (tiled: before the QKV GEMM)
      load(n, 4L * nq);
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
        && r.pins(n, qkvPrograms(qRows, kRows), DspChain.join(java.util.List.of(r.moveElements(0, 2 * nq, 0),
            r.moveElements(0, lanes, 0))).size());
    for (int t = 0; t < n; t++) {
      if (chainRuns) {
        // the token's cos/sin row first, so that the runs after it join
        dspIn(1, 2L * nq, FP16);
      }
      resultIn(c.dim(), qkvN);
      if (pinned) {
        runPinned(staticQkv() ? "qkv pinned, static" : "qkv pinned", () -> qkvPrograms(qRows, kRows));
        // the lowering's moves differ only in the token's rows, four row bases: one rewritten program
        boolean shared = sharedRuns;
        sharedRuns = true;
        run("q move", () -> r.moveElements(0, 2 * nq, 0));
        run("q scale move", () -> r.moveElements(0, lanes, 0));
        sharedRuns = shared;
      } else {
        run("qkv scale", () -> r.scale(0, qkvN, 1, channelScales(), null, -1, 3));
        if (!chainRuns) {
          load(1, 4L * nq);
          dspIn(1, 2L * nq, FP16);
        }
        runAll(staticQkv() ? "qkv rope, static quantize" : "qkv rope, quantize",
            () -> qkvPrograms(qRows, kRows).subList(1, qkvPrograms(qRows, kRows).size()));
      }
      if (wide) {
        // the K row head-major (each KV head's evens, then its odds, heads a head apart): the DSP's evens of every
        // head (a head a whole row) in one dspout of kvHeads rows, spadStride the head dim; the odds, half a head on
        dspOut(c.kvHeads(), half, INT8);
        dspOut(c.kvHeads(), half, INT8);
      } else if (headMajorKeys) {
        // BatchedAttention.keyRowOut: the evens and the odds a half to a line, read back interleaved, written
        dspOut(c.kvHeads(), half, FP16);
        dspOut(c.kvHeads(), half, FP16);
        dspIn(2L * c.kvHeads(), half, FP16);
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
    for (int cache = 0; cache < 2; cache++) {
      for (int[] run : KvRowStores.runs(c.kvDim(), line)) {
        store(n, run[1]);
      }
    }
    if (keyLines) {
      store(c.kvDim(), pos + n - (pos - early));
    }
    dspIn(pos + n, 1, FP16);
    dspIn(pos + n, 1, FP16);
  }
}
