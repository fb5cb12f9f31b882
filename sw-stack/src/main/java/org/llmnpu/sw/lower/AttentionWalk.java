package org.llmnpu.sw.lower;

import org.llmnpu.isa.MachineParams;
import org.llmnpu.isa.dsp.DspProgram;
import org.llmnpu.sw.model.ModelConfig;

/**
 * The attention of {@link PhaseCostModel}'s extrapolated walk after the QKV post ({@link QkvPostWalk}): per
 * token ({@link AttentionLowering}) or, at {@code --fusion full}, per block ({@link BatchedAttentionWalk}) the scores
 * GEMVs, scale, SoftMax and quantization runs, the P·V GEMMs and the outputs dequantized and quantized.
 */
abstract class AttentionWalk extends QkvPostWalk {
  AttentionWalk(ModelConfig c, MachineParams p, int maxContext, int blockMax, boolean extrapolate,
                int weightBits, int weightGroup, int sparsity, int mxFormat, Fusion fusion) {
    super(c, p, maxContext, blockMax, extrapolate, weightBits, weightGroup, sparsity, mxFormat, fusion);
  }

  /** The block's attention after its K/V rows are stored: per token, or batched at {@code --fusion full}. */
  void attend(int n, int pos, boolean firstLayer) {
    // as AttentionLowering#afterKvRows: the V scales to the codes' weights (ValueScaleBound), whatever the fusion
    String before = operator();
    operator("attention scale, SoftMax");
    // one run a layer and block, known by its program rewritten for run parameters as the lowering's stream knows it
    // (DspRunParameterizer: its rows the run's parameters, one program in both blocks in flight)
    boolean shared = sharedRuns;
    sharedRuns = true;
    run(java.util.List.of("value weights", pos + n), () -> r.valueWeights(1, pos + n));
    sharedRuns = shared;
    operator(before);
    if (fusion == Fusion.FULL) {
      operator("layer vectors, KV cache");
      batchedAttention(n, pos, firstLayer);
    } else {
      for (int t = 0; t < n; t++) {
        attention(pos + t + 1);
      }
    }
  }

  void attention(int s) {
    scatterQueries();
    // as AttentionLowering#heads: the token's V-scale bound before its head groups
    tokenBound(s);
    // the lowering's groups of heads (LoweringLayout.headGroup): three whenever the DSP's rows hold their
    // probabilities, as on the NPUs this model is compared on and extrapolates to
    for (int h0 = 0; h0 < c.heads(); h0 += DspQuantizer.MAX_VECTORS) {
      int group = Math.min(DspQuantizer.MAX_VECTORS, c.heads() - h0);
      groupProbabilities(h0, group, s, false);
      for (int i = 0; i < group; i++) {
        int h = h0 + i;
        dspOut(1, s, INT8);
        int first = c.headDim() * (h / c.groupSize());
        int col = first - first / line * line;
        KSplit pv = split(s);
        for (int ci = 0; ci < pv.count(); ci++) {
          resultTag = RESULTS + ci;
          gemm(1, pv.length(ci), col + c.headDim(), false);
        }
        resultTag = RESULTS;
        partialsIn(pv, 1, c.headDim(), -1);
      }
      outputScales(group);
    }
    run("attention quantize", () -> r.quantize(0, oK, -1, 0, 0));
    dspOut(1, oK, INT8);
  }

  void scatterQueries() {
    if (half % lanes != 0) {
      run("scatter", () -> r.scatter(0, c.heads(), half, 0));
    }
  }

  /**
   * A head group's queries over {@code s} slots: their scores GEMVs, then (with {@code bound}) the token's V-scale
   * bound, then the scale, SoftMax and codes runs.
   */
  void groupProbabilities(int h0, int group, int s, boolean bound) {
    groupProbabilities(group, s, bound, heads -> headByHead(heads, i -> {
      int g = (h0 + i) / c.groupSize();
      dspOut(half, 1, INT8);
      dspOut(half, 1, INT8);
      if (fusion != Fusion.FULL) {
        // as AttentionLowering#heads: the head's own windows of the K row
        java.util.List<int[]> windows = ScoreWindows.of(c, split(c.kvDim()), line, g);
        for (int wi = 0; wi < windows.size(); wi++) {
          resultTag = RESULTS + wi;
          for (int m0 = 0; m0 < s; m0 += p.maxM()) {
            gemm(Math.min(p.maxM(), s - m0), windows.get(wi)[1], 1, false);
          }
        }
        resultTag = RESULTS;
        partialsIn(ScoreWindows.partials(windows), s, 1, -1);
        return;
      }
      KSplit ks = split(scoreK(g));
      for (int ci = 0; ci < ks.count(); ci++) {
        resultTag = RESULTS + ci;
        for (int m0 = 0; m0 < s; m0 += p.maxM()) {
          gemm(Math.min(p.maxM(), s - m0), ks.length(ci), 1, false);
        }
      }
      resultTag = RESULTS;
      partialsIn(ks, s, 1, -1);
    }));
  }

  /** The lowering's head groups at {@code --fusion full} ({@link HeadGroups#atFull}, from the layout's three). */
  int fullGroup() {
    if (fullGroup == 0) {
      fullGroup = HeadGroups.atFull(r, DspQuantizer.MAX_VECTORS, c.heads(), maxContext, p);
    }
    return fullGroup;
  }

  private int fullGroup;

  /** The K of KV head g's scores: its line window (head-major keys) or kvDim. */
  int scoreK(int g) {
    return headMajorKeys ? BatchedAttentionLayout.scoreWindowK(c, line, g) : c.kvDim();
  }

  /**
   * As {@code BatchedAttention#headGroupProbabilities}: {@code scoresIn} (given the group's heads) the queries' scores,
   * then the runs.
   */
  void groupProbabilities(int group, int s, boolean bound, java.util.function.IntConsumer scoresIn) {
    operator("attention scores");
    scoresIn.accept(group);
    // the group's scores scaled, their SoftMax and the probabilities coded, in shared runs
    operator("attention scale, SoftMax");
    if (bound) {
      tokenBound(s);
    }
    runAll(java.util.List.of("scores", group, s), () -> scoresPrograms(group, s));
  }

  /** {@code perHead} for heads {@code 0 .. group − 1}, each under the scores' operator (as the lowering's order). */
  void headByHead(int group, java.util.function.IntConsumer perHead) {
    for (int i = 0; i < group; i++) {
      operator("attention scores");
      perHead.accept(i);
    }
  }

  /**
   * As {@code BatchedAttention#headGroupProbabilities}' P rows: token t's queries of heads {@code h0 ..}, a
   * {@code dspout} of {@code s} INT8 codes per run of evenly spaced P rows.
   */
  void probabilityRowsOut(int t, int h0, int group, int s) {
    for (long[] run : BatchedAttentionLayout.probabilityRowRuns(c, blockMax, t, h0, group)) {
      dspOut(run[1], s, INT8);
    }
  }

  /** A head group's P·V results dequantized (merged as the lowering does). */
  void outputScales(int group) {
    runAll(java.util.List.of("output scales", group), () -> {
      java.util.List<DspProgram> outputScales = new java.util.ArrayList<>();
      for (int i = 0; i < group; i++) {
        outputScales.add(r.scale(4 * i, hdRows * lanes, 4 * i + 1, -1, (short) 0x3C00, -1, 4 * i + 3));
      }
      return r.merged(outputScales);
    });
  }

  /** The block's attention at {@code --fusion full} ({@link BatchedAttentionWalk}). */
  abstract void batchedAttention(int n, int pos, boolean firstLayer);

  /** The DSP runs between a head group's scores and its P·V: scale, SoftMax, codes (merged as the lowering does). */
  java.util.List<DspProgram> scoresPrograms(int group, int s) {
    if (fusion == Fusion.FULL) {
      // as BatchedAttention#headGroupProbabilities: the scale folded into SoftMax, the heads merged (AttentionSoftmax)
      return HeadGroups.programs(r, group, s, true);
    }
    // as AttentionLowering#heads: the scale runs, then SoftMax with the codes (the same codes as at full)
    java.util.List<DspProgram> scoreScales = new java.util.ArrayList<>();
    for (int i = 0; i < group; i++) {
      scoreScales.add(r.scale(8 * i, s, 1, 2, (short) 0x3C00, -1, 8 * i + 3));
    }
    java.util.List<DspProgram> runs = new java.util.ArrayList<>(r.merged(scoreScales));
    runs.addAll(HeadGroups.programs(r, group, s, false));
    return runs;
  }

  /** A token's V-scale bound over its {@code s} slots ({@link ValueScaleBound#tokenProgram}). */
  void tokenBound(int s) {
    run(java.util.List.of("token bound", s), () -> r.tokenBound(1, s, 0,
        ValueScaleBound.factor(LoweredModel.shift(maxContext))));
  }

}
