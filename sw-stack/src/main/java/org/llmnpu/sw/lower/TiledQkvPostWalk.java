package org.llmnpu.sw.lower;

import org.llmnpu.isa.MachineParams;
import org.llmnpu.isa.dsp.DspKernel;
import org.llmnpu.sw.model.ModelConfig;

/**
 * The tile-by-tile QKV post of {@link PhaseCostModel}'s walk, as {@link TiledQkvPost} emits it: GEMM tile j, then
 * tile j−1's scale, RoPE and static quantization, token by token or a group of tokens at a time
 * ({@link BlockQkvPost}), on the lowering's own rows and programs.
 */
abstract class TiledQkvPostWalk extends KeyWalk {
  TiledQkvPostWalk(ModelConfig c, MachineParams p, int maxContext, int blockMax, boolean extrapolate,
                   int weightBits, int weightGroup, int sparsity, int mxFormat, Fusion fusion) {
    super(c, p, maxContext, blockMax, extrapolate, weightBits, weightGroup, sparsity, mxFormat, fusion);
  }

  /** The result buffers of the QKV tiles: {@code QKV_TILES + 2·chunk + j mod 2} ({@link TiledQkvPost#buffer}). */
  private static final long QKV_TILES = RESULTS + 1_000;

  /** The QKV GEMM's stream tile (as {@link PhaseWalk#gemms}): whole pairs of lines for INT4. */
  final int qkvTile() {
    int unit = bits == 4 ? 2 * line : line;
    return Math.max(unit, p.maxN() / unit * unit);
  }

  /** Per lane the first position and token count whose cos/sin rows the lane's region holds ({@link #ropeRowsIn}). */
  final int[][] ropeRows = {{-1, -1}, {-1, -1}};

  /**
   * As {@code AttentionLowering#ropeRowsIn}: whether the lane's cos/sin region holds tokens {@code pos .. pos + n − 1}
   * already in this program (a block's later layers of a step); otherwise notes them as loaded now.
   */
  final boolean ropeRowsIn(int n, int pos) {
    int[] held = ropeRows[runLane];
    if (held[0] == pos && held[1] == n) {
      return true;
    }
    held[0] = pos;
    held[1] = n;
    return false;
  }

  /** As {@link TiledQkvPost#emit}: the cos/sin rows in, GEMM j then tile j−1's post, the K/V scale rows out. */
  final void qkvTiled(int n, int pos, boolean keysLater) {
    operator("QKV scale, RoPE, K/V out");
    if (!ropeRowsIn(n, pos)) {
      load(n, 4L * nq);
    }
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
  final BlockQkvPost blockQkvPost() {
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
        if (!q && directKeys) {
          // KeyRows#out of the segment's heads, direct
          dspOut(seg.heads(), half, INT8);
          dspOut(seg.heads(), half, INT8);
        } else if (!q && headMajorKeys) {
          // KeyRows#out of the segment's heads, staged
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
}
