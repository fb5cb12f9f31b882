package org.llmnpu.sw.lower;

import org.llmnpu.isa.MachineParams;
import org.llmnpu.isa.dsp.DspKernel;
import org.llmnpu.isa.dsp.DspProgram;
import org.llmnpu.sw.model.ModelConfig;

/**
 * The feed-forward of {@link PhaseCostModel}'s extrapolated walk ({@link FeedForwardLowering}): each token's
 * RMSNorm (at full with the O residual before it, two tokens in shared runs where the DSP holds them), the W1/W3
 * GEMMs (the gate through the PPM where {@link PpmEpilogues#applies}), SwiGLU, the W2 GEMM and the residual; at full
 * on an NPU whose PPM has the gate operand the SwiGLU gate through the PPM too ({@link #feedForwardGated}).
 */
abstract class FeedForwardWalk extends BatchedAttentionWalk {
  FeedForwardWalk(ModelConfig c, MachineParams p, int maxContext, int blockMax, boolean extrapolate,
                  int weightBits, int weightGroup, int sparsity, int mxFormat, Fusion fusion) {
    super(c, p, maxContext, blockMax, extrapolate, weightBits, weightGroup, sparsity, mxFormat, fusion);
  }

  /** After the O GEMM (and, unfused, the residuals): the block's feed-forward. */
  void feedForward(int n) {
    if (epilogue && chainRuns && p.ppmGate()) {
      feedForwardGated(n);
      return;
    }
    if (epilogue) {
      feedForwardThroughPpm(n);
      return;
    }
    for (int t = 0; t < n; t++) {
      feedForwardNorm();
    }
    operator("W1/W3 GEMM");
    gemms(n, c.dim(), w13N);
    operator("SwiGLU");
    // the gate's columns are read beside the last W1/W3 tile's GEMM when that tile holds only up columns
    boolean gateClear = lastTileStart(w13N, bits) >= c.hiddenDim();
    for (int t = 0; t < n; t++) {
      resultIn(c.dim(), c.hiddenDim(), gateClear);
      resultIn(c.dim(), c.hiddenDim());
      run("hidden scale", () -> r.scale(0, c.hiddenDim(), 1, channelScales(), null, -1, 3));
      run("hidden scale", () -> r.scale(0, c.hiddenDim(), 1, channelScales(), null, -1, 3));
      run("swiglu", () -> r.kernel(DspKernel.SWIGLU, c.hiddenDim(), new int[] {0, 0}, new int[] {0}));
      run("hidden quantize", () -> r.quantize(0, c.hiddenDim(), -1, 0, 0));
      dspOut(1, c.hiddenDim(), INT8);
    }
    downAndResidual(n);
  }

  /**
   * The feed-forward's RMSNorm of a token; at full with the Wo residual before it in the same runs, as
   * {@link NormEmitter#residualNormQuantize}.
   */
  void feedForwardNorm() {
    if (!chainRuns) {
      normQuantize();
      return;
    }
    if (keepsX) {
      residual(oK);
      normQuantize();
      return;
    }
    resultIn(oK, c.dim());
    xIn();
    // as the pairs' (#feedForwardNormPair): with the static input scale the lowering's residual, RMSNorm and codes
    // differ from token to token only in the scale row, among the first rows (DspRunParameterizer): one program
    boolean shared = sharedRuns;
    sharedRuns = shared || epilogue;
    run("residual scale", () -> r.scale(0, c.dim(), 1, channelScales(), null, 4, 5));
    normQuantizeRuns();
    sharedRuns = shared;
    dspOut(1, c.dim(), FP16);
    dspOut(1, c.dim(), INT8);
  }

  /**
   * Whether the fused feed-forward handles two tokens at a time (as {@link FeedForwardLowering}): at full, when the
   * attention's score rows hold a second token's five vectors.
   */
  boolean feedForwardPairs() {
    int lanes = p.dsp().lanes();
    int ctxRows = (Math.max(maxContext, c.vocabSize()) + lanes - 1) / lanes;
    int scoreRows = Math.max(ctxRows, DspQuantizer.MAX_VECTORS * ((maxContext + lanes - 1) / lanes));
    return chainRuns && 3 * scoreRows >= 5 * ((Math.max(c.hiddenDim(), c.dim()) + lanes - 1) / lanes);
  }

  /** Two tokens' {@link #normQuantize} in shared runs, as {@link NormEmitter#normQuantizePair}. */
  void normQuantizePair() {
    dspIn(1, c.dim(), FP16);
    dspIn(1, c.dim(), FP16);
    // with the static input scale the lowering's pair programs are the same for every pair (LoweringEmitter#xScaleRow)
    sharedRuns = epilogue;
    runAll(java.util.List.of("norm pair", epilogue, staticScale(quantSite)), () -> {
      return normsQuantizedPair(r.mergedNorms(java.util.List.of(norm(0), norm(1))));
    });
    sharedRuns = false;
    dspOut(1, c.dim(), INT8);
    dspOut(1, c.dim(), INT8);
  }

  /**
   * As {@link LoweringEmitter}'s two tokens' RMSNorm runs {@code norms} and their dim-wide quantizations in shared runs
   * (the static ones folded into the RMSNorms' program where {@link DspQuantizeFold} applies).
   */
  java.util.List<DspProgram> normsQuantizedPair(java.util.List<DspProgram> norms) {
    if (epilogue) {
      double s = staticScale(quantSite);
      short k = LoweringEmitter.half(1 / s);
      short d = LoweringEmitter.half(s);
      return DspQuantizeFold.runs(r, norms, java.util.List.of(
          new DspQuantizeFold.Codes(pairRow(0, NORM), c.dim(), k, pairRow(0, CODES), pairRow(2, 0), d),
          new DspQuantizeFold.Codes(pairRow(1, NORM), c.dim(), k, pairRow(1, CODES), pairRow(2, 0), d)));
    }
    java.util.List<DspProgram> runs = new java.util.ArrayList<>(norms);
    runs.addAll(r.quantizeRuns(java.util.List.of(
        new DspQuantizer.Vector(pairRow(0, NORM), c.dim(), -1, pairRow(0, CODES), pairRow(2, 0)),
        new DspQuantizer.Vector(pairRow(1, NORM), c.dim(), -1, pairRow(1, CODES), pairRow(2, 0) + 1))));
    return runs;
  }

  /**
   * The DSP rows of a pair's dim-wide vectors in the walk's programs, apart as the lowering's are (rows matter to
   * {@link DspRoutines#mergedNorms} and {@link DspListSchedule}: which loads the copies share, which rows a store
   * orders): token {@code token}'s vector {@code vector} (of five: result, x, NEW_X, NORM, CODES); token 2's the shared
   * rows (the scale rows, then the RMSNorm weight).
   */
  private int pairRow(int token, int vector) {
    return (token * 5 + vector) * r.rows(c.dim());
  }

  private static final int NEW_X = 2;
  private static final int NORM = 3;
  private static final int CODES = 4;

  /** Token {@code token}'s RMSNorm of its new x into NORM, the weight shared, on the {@link #pairRow} rows. */
  private DspProgram norm(int token) {
    return r.kernel(DspKernel.RMSNORM, c.dim(), new int[] {pairRow(token, NEW_X), pairRow(2, 1)},
        new int[] {pairRow(token, NORM)});
  }

  /** The feed-forward's residual and RMSNorm pairs go pinned, as {@link NormEmitter#pinPairs}. */
  boolean pinPairs;

  /** Two tokens' {@link #feedForwardNorm} in shared runs, as {@link NormEmitter#residualNormQuantizePair}. */
  void feedForwardNormPair() {
    for (int i = 0; i < 2; i++) {
      resultIn(oK, c.dim());
      dspIn(1, c.dim(), FP16);
    }
    // with the static input scale the fold makes the residual, RMSNorms and codes one program that the lowering's
    // run parameters share between pairs (the moving scale rows are among its first rows, DspRunParameterizer)
    sharedRuns = epilogue;
    java.util.function.Supplier<java.util.List<DspProgram>> compile = () -> {
      java.util.List<DspProgram> scales = new java.util.ArrayList<>();
      java.util.List<DspProgram> norms = new java.util.ArrayList<>();
      for (int i = 0; i < 2; i++) {
        int base = 8 * i;
        scales.add(r.scale(base, c.dim(), base + 1, channelScales(), null, base + 4, base + 5));
        norms.add(norm(i));
      }
      java.util.List<DspProgram> runs = new java.util.ArrayList<>(r.mergedKernels(scales));
      runs.addAll(normsQuantizedPair(r.mergedNorms(norms)));
      return runs;
    };
    Object key = java.util.List.of("feed-forward norm pair", epilogue, staticScale(quantSite));
    // as NormEmitter#pinsPairs: kept in the program memory
    if (pinPairs && chainRuns && residency != null && epilogue && r.pins(2, compiledPrograms(key, compile), 0)) {
      runPinned(key, compile);
    } else {
      runAll(key, compile);
    }
    sharedRuns = false;
    for (int i = 0; i < 2; i++) {
      dspOut(1, c.dim(), FP16);
      dspOut(1, c.dim(), INT8);
    }
  }

  /** The fused feed-forward's RMSNorms of the block's n tokens, two at a time where {@link #feedForwardPairs}. */
  private void feedForwardNorms(int n) {
    boolean pairs = feedForwardPairs();
    for (int t = 0; t < n; t++) {
      if (pairs && t + 1 < n && !keepsX) {
        feedForwardNormPair();
        t++;
      } else {
        feedForwardNorm();
      }
    }
  }

  /**
   * As {@link LoweringEmitter#gemmPpm}: per N tile a {@code ppmcfg} and a streamed GEMM through the PPM; the gated (up)
   * GEMMs follow the gate's last tile with the same X ({@code sameX}).
   */
  private void ppmGemms(int n, boolean gate) {
    ppmGemms(n, gate, gate, 0, ppmTiles());
  }

  /** As above, the N tiles {@code [from, to)}: the first keeps X with {@code sameX}, the later ones always. */
  private void ppmGemms(int n, boolean gate, boolean sameX, int from, int to) {
    int tile = ppmTile();
    for (int i = from; i < to; i++) {
      int j0 = i * tile;
      int nn = Math.min(tile, c.hiddenDim() - j0);
      int bank = LoweringEmitter.ppmBank(j0, tile);
      ppmCfg(nn, bank);
      keepX = p.xKeep() && (sameX || i > from); // as LoweringEmitter#gemmPpm
      streamedPpmGemm(n, c.dim(), nn, bits == 4, sparsity != org.llmnpu.isa.Command.DENSE, bank, gate);
    }
    keepX = false;
  }

  /** Columns of a PPM GEMM's N tile, as {@link LoweringEmitter#ppmTile}. */
  private int ppmTile() {
    int unit = bits == 4 ? 2 * line : line;
    return Math.max(unit, p.maxN() / unit * unit);
  }

  /** N tiles of the hidden size in {@link #ppmGemms}. */
  private int ppmTiles() {
    return (c.hiddenDim() + ppmTile() - 1) / ppmTile();
  }

  /**
   * As {@link FeedForwardLowering}'s gated feed-forward: SiLU(gate) codes through the PPM, up through the gated PPM onto
   * them, the W2 GEMM, the residuals with the W2 input's static scale as a constant; no DSP work between the GEMMs.
   */
  void feedForwardGated(int n) {
    int tiles = feedForwardGatedNorms(n);
    gatedTiles(n, 0, tiles);
    gatedDown(n);
  }

  /** Whether the feed-forward goes gated ({@link #feedForwardGated}), as {@link FeedForwardLowering#weavesGated}. */
  boolean weavesGated() {
    return epilogue && chainRuns && p.ppmGate();
  }

  /** As {@link FeedForwardLowering#emitGatedNorms}: the RMSNorms and the SiLU table; the W1/W3 GEMMs' N tiles. */
  int feedForwardGatedNorms(int n) {
    feedForwardNorms(n);
    operator("W1/W3 GEMM");
    ppmLoad(66, 2);
    return 2 * ppmTiles();
  }

  /** As {@link FeedForwardLowering#gatedTiles}: the W1/W3 GEMMs' N tiles {@code [from, to)}, W1's then W3's. */
  void gatedTiles(int n, int from, int to) {
    int half = ppmTiles();
    if (from < Math.min(to, half)) {
      ppmGemms(n, false, false, from, Math.min(to, half));
    }
    if (Math.max(from, half) < to) {
      ppmGemms(n, true, from < half, Math.max(from, half) - half, to - half);
    }
  }

  /** As {@link FeedForwardLowering#emitGatedDown}: the W2 GEMM and the residuals. */
  void gatedDown(int n) {
    gatedDownGemm(n);
    gatedResiduals(n);
  }

  /** {@link #gatedDown}'s W2 GEMM. */
  void gatedDownGemm(int n) {
    operator("W2 GEMM");
    gemms(n, c.hiddenDim(), c.dim());
  }

  /** {@link #gatedDown}'s residuals, the W2 input's static scale a constant. */
  void gatedResiduals(int n) {
    operator("residual, FFN RMSNorm");
    for (int t = 0; t < n; t++) {
      residual(c.hiddenDim(), true);
    }
  }

  /** As {@link FeedForwardLowering}'s PPM epilogue ({@link PpmEpilogues}): gate and up through the PPM, streamed. */
  void feedForwardThroughPpm(int n) {
    boolean pairs = feedForwardPairs();
    feedForwardNorms(n);
    operator("W1/W3 GEMM");
    int unit = bits == 4 ? 2 * line : line;
    int tile = Math.max(unit, p.maxN() / unit * unit);
    boolean sparse = sparsity != org.llmnpu.isa.Command.DENSE;
    ppmLoad(66, 2);
    ppmGemms(n, false);
    // up: INT32 results without the PPM
    for (int j0 = 0; j0 < c.hiddenDim(); j0 += tile) {
      keepX = p.xKeep(); // as LoweringEmitter#gemmPpm: after the gate's last tile, the same X
      streamedGemm(n, c.dim(), Math.min(tile, c.hiddenDim() - j0), bits == 4, sparse);
    }
    keepX = false;
    operator("SwiGLU");
    for (int t = 0; t < n; t += pairs && t + 1 < n ? 2 : 1) {
      int pair = pairs && t + 1 < n ? 2 : 1;
      for (int i = 0; i < pair; i++) {
        dspIn(1, c.hiddenDim(), INT8);
        dspIn(1, c.hiddenDim(), INT32);
      }
      // SiLU's output scale: the layer's in a window across layers (PhaseWalk#staticScale), as the lowering's
      short silu = LoweringEmitter.half(staticScale(StaticScales.Site.SILU));
      runAll(java.util.List.of("feed-forward DSP runs", pair, silu), () -> {
        // as FeedForwardLowering: SiLU(gate)·up in the quantization's absmax pass, W3's channel scales one row
        java.util.List<DspQuantizer.Vector> codes = new java.util.ArrayList<>();
        for (int i = 0; i < pair; i++) {
          int base = 8 * i;
          codes.add(new DspQuantizer.Vector(base + 4, c.hiddenDim(), -1, base, base,
              new DspQuantizer.Product(base, silu, base + 1, base + 2, 3)));
        }
        return r.quantizeRuns(codes);
      });
      for (int i = 0; i < pair; i++) {
        dspOut(1, c.hiddenDim(), INT8);
      }
    }
    downAndResidual(n);
  }

  /** The W2 GEMM of the block's SwiGLU codes and each token's residual after it. */
  private void downAndResidual(int n) {
    operator("W2 GEMM");
    gemms(n, c.hiddenDim(), c.dim());
    operator("residual, FFN RMSNorm");
    for (int t = 0; t < n; t++) {
      residual(c.hiddenDim());
    }
  }
}
