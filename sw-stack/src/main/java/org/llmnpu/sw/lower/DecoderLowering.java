package org.llmnpu.sw.lower;

import java.util.function.ToLongFunction;
import org.llmnpu.isa.Command;
import org.llmnpu.isa.Program;
import org.llmnpu.isa.dsp.DspProgram;

/**
 * Lowers one step of a LLaMA decoder (a prefill of P tokens, or one decode token) to one NPU
 * program for a {@link LoweredModel}: embedding rows by DMA, per layer RMSNorm → INT8 → fused
 * QKV GEMM → dequantize → RoPE → K/V appended to the cache → per head scores GEMV (K·q) →
 * SoftMax → P·V GEMM → Wo GEMM + residual → RMSNorm → fused W1|W3 GEMM → SiLU·gate → W2 GEMM +
 * residual; final RMSNorm and the LM head; FP16 logits stored to memory.
 *
 * <p><b>Integer path.</b> Every GEMM is INT8 × INT8 → INT32 on the array; everything else is FP16
 * on the Vector DSP. Activation scales are <i>dynamic</i>: each GEMM input vector (per token; per
 * head for the attention probabilities) is quantized on the DSP with its own absmax scale
 * ({@link DspRoutines#quantize}), because a tiny model's activations vary too much from token
 * to token for one calibrated scale, and the DSP computes an absmax in a few dozen cycles. At a fused level with the
 * PPM epilogue ({@link PpmEpilogues}: dense per-channel INT8/INT4 on a PPU NPU) the inputs of the QKV, W1|W3 and
 * LM-head GEMMs use calibrated static scales ({@link StaticScales}) and W1|W3's results leave the array through the
 * PPM as INT8 codes (SiLU on the gate columns by the C-LUT); see {@link FeedForwardLowering}.
 * Weight scales are static (per output channel, from the weights; for {@code int4-g32} per group of
 * 32 rows of K and output channel, each group its own GEMM whose partial the DSP scales, see K tiling;
 * for {@code s2_4} per channel over 2:4-pruned weights, whose GEMMs are sparse: word 2 sparsity 1, W the
 * compressed value and metadata rows of each K chunk). The K and V cache hold INT8
 * codes with one dynamic scale per token (of all KV heads); the V scale is folded into the
 * probabilities before they are quantized ({@code p'_j = p_j · s_v,j}), so P·V stays one integer
 * GEMM. Tokens are processed in blocks of at most {@code blockMax} (GEMM M).
 *
 * <p><b>Static shapes.</b> Buffers are sized once for {@code maxContext} and a block; a program
 * is specialized to its step's lengths (the command stream carries them), attention covers
 * exactly the stored slots and the new ones (causal, no masked work).
 *
 * <p><b>K tiling.</b> A GEMM whose K exceeds the engine's maxK (a weight GEMM on a small NPU, P·V
 * over a context longer than maxK) runs as K chunks ({@link KSplit}: the largest line multiple
 * not above maxK, the last chunk ragged), each its own {@code gemm} into its own Y region; the
 * DSP takes each chunk's INT32 partial to FP16 with the whole GEMM's {@code dspin} shift (rounded
 * once, as the unsplit result is), widens them to FP32, adds them there and rounds the sum once
 * to FP16 ({@link DspRoutines#sumPartials}). Not exact: the unsplit path rounds the exact INT32
 * sum once, the split one each partial too (relative error at most 2^-11 of each partial); the
 * results stay as close to FP32 as without tiling (README). N beyond maxN is tiled by columns,
 * M beyond maxM by blocks of tokens and by slots in the scores GEMV, both exact.
 *
 * <p>The parts: {@link LoweringLayout} (buffers), {@link LoweringEmitter} (shared helpers),
 * {@link AttentionLowering}, {@link FeedForwardLowering}, {@link LmHeadLowering}.
 */
public final class DecoderLowering {
  private final LoweringLayout l;
  private final LoweringEmitter e;
  /** The first block's buffers and emitters. */
  private final BlockLane lane;
  /** A second block's (two blocks in flight, {@link #interleave}); null until asked for or when they do not fit. */
  private BlockLane second;
  private boolean secondTried;
  private String secondWhyNot = "";
  private final Fusion fusion;
  private final Fusion.Applied applied;
  /** The prefill's order ({@link #order}). */
  private PrefillOrder order = PrefillOrder.DEFAULT;
  /** Commands the last step's {@link BlockInterleaver} moved beside a streamed GEMM. */
  private long interleaved;

  /**
   * @param pool places a DSP program in external memory and returns its address (the same program
   *             may be placed once and run many times)
   */
  public DecoderLowering(LoweredModel model, int blockMax, ToLongFunction<DspProgram> pool) {
    this(model, blockMax, pool, Fusion.NONE);
  }

  /**
   * As above at fusion level {@code fusion}, as far as the NPU and the weight format take it: each fusion they cannot
   * take falls back to the unfused commands, named with why in {@link #fusionApplied} ({@link Fusion#on}).
   */
  public DecoderLowering(LoweredModel model, int blockMax, ToLongFunction<DspProgram> pool, Fusion fusion) {
    this.applied = fusion.on(model.machine(), model.config().dim(), model.bits, model.weightGroup, model.sparsity,
        model.mxFormat);
    fusion = applied.applied();
    this.fusion = fusion;
    this.lane = new BlockLane(new LoweringLayout(model, blockMax, fusion != Fusion.NONE), pool, fusion);
    this.l = lane.l;
    this.e = lane.e;
  }

  /**
   * The largest block (tokens per GEMM, at most {@code upTo} and maxM) whose buffers fit the
   * scratchpad and the DSP; the lowering's own error when not even one token fits.
   */
  public static int largestBlock(LoweredModel model, int upTo) {
    for (int block = Math.min(upTo, model.machine().maxM()); block > 1; block--) {
      try {
        new LoweringLayout(model, block, false);
        return block;
      } catch (IllegalArgumentException e) {
        // try a smaller block
      }
    }
    new LoweringLayout(model, 1, false);
    return 1;
  }

  /**
   * As {@link #largestBlock(LoweredModel, int)} for the programs of fusion level {@code fusion}, whose buffers may need
   * more (the batched attention's at {@code full}): the largest block at which the lowering lays them out.
   */
  public static int largestBlock(LoweredModel model, int upTo, Fusion fusion) {
    for (int block = largestBlock(model, upTo); block > 1; block--) {
      try {
        new DecoderLowering(model, block, program -> 0L, fusion);
        return block;
      } catch (IllegalArgumentException e) {
        // try a smaller block
      }
    }
    new DecoderLowering(model, 1, program -> 0L, fusion);
    return 1;
  }

  /** The fusion level of the programs (the one asked for, or {@link Fusion#NONE} where the NPU cannot stream). */
  public Fusion fusion() {
    return fusion;
  }

  /** The level asked for, the one applied and each fusion not applied, with why. */
  public Fusion.Applied fusionApplied() {
    return applied;
  }

  /** Whether q, k and v go with static scales: asked ({@link #staticQkv}) and the PPM epilogues' scales apply. */
  public boolean staticQkvApplied() {
    return lane.e.staticQkv && lane.e.epilogue != null;
  }

  /** The prefill's order ({@link PrefillOrder}: interleaver, two blocks in flight, skewed or staggered, windows). */
  public DecoderLowering order(PrefillOrder o) {
    this.order = java.util.Objects.requireNonNull(o, "order");
    return this;
  }

  /** The prefill's order ({@link #order(PrefillOrder)}). */
  public PrefillOrder order() {
    return order;
  }

  /** {@link PrefillOrder#interleave}. */
  public DecoderLowering interleave(boolean on) {
    return order(order.withInterleave(on));
  }

  /** {@link PrefillOrder#twoBlocks}. */
  public DecoderLowering twoBlocks(boolean on) {
    return order(order.withTwoBlocks(on));
  }

  /** {@link PrefillOrder#skewed}. */
  public DecoderLowering skewed(boolean on) {
    return order(order.withSkewed(on));
  }

  /** {@link PrefillOrder#staggered}. */
  public DecoderLowering staggered(boolean on) {
    return order(order.withStaggered(on));
  }

  /** {@link PrefillOrder.Weave#QKV} when {@code on}, else none. */
  public DecoderLowering woven(boolean on) {
    return order(order.withWeave(on ? PrefillOrder.Weave.QKV : PrefillOrder.Weave.NONE));
  }

  /** {@link PrefillOrder.Weave#GATED} when {@code on}, else none. */
  public DecoderLowering wovenGated(boolean on) {
    return order(order.withWeave(on ? PrefillOrder.Weave.GATED : PrefillOrder.Weave.NONE));
  }

  /** {@link PrefillOrder#acrossLayers}. */
  public DecoderLowering acrossLayers(boolean on) {
    return order(order.withAcrossLayers(on));
  }

  /**
   * With {@code on}, where the GEMM epilogues run on the PPM (their {@link StaticScales} calibrated), q and k after
   * RoPE and v are quantized with their calibrated static per-tensor scales ({@link StaticScales.Site#Q}, {@code K},
   * {@code V}) instead of each token's absmax: no token's codes then depend on a reduction over its whole q, k or v.
   * The same commands but for the quantization runs ({@code quantizeStatic}'s). Off by default.
   */
  public DecoderLowering staticQkv(boolean on) {
    lane.e.staticQkv = on;
    if (second != null) {
      second.e.staticQkv = on;
    }
    return this;
  }

  /** Commands the last step's interleaver moved beside a streamed GEMM (0 without {@link #interleave}). */
  public long interleavedCommands() {
    return interleaved;
  }

  /** Scratchpad bytes the lowering uses. */
  public int spadBytesUsed() {
    return l.spadBytesUsed();
  }

  /** DSP buffer rows the lowering uses. */
  public int dspRowsUsed() {
    return l.dspRowsUsed();
  }

  /**
   * The program of one step: {@code tokens} at positions {@code pos0, pos0 + 1, …} (the cache holds
   * slots {@code [0, pos0)}); logits of token i go to logits row i when {@code allLogits}, else
   * only the last token's, to row 0.
   */
  public Program step(int[] tokens, int pos0, boolean allLogits) {
    Program.Builder program = Program.builder();
    emit(tokens, pos0, allLogits, CommandStream.program(program));
    return program.build();
  }

  /**
   * The commands of {@link #step} handed to {@code sink} in program order (the program builder's and the cost
   * model's common stream).
   */
  void emit(int[] tokens, int pos0, boolean allLogits, CommandSink sink) {
    emit(tokens, pos0, allLogits, sink, l.c.layers());
  }

  /**
   * As above with only the first {@code layers} layers of each block (the cost model's scaled estimate: layers are
   * identical in shape); the sink hears where each layer starts and ends.
   */
  void emit(int[] tokens, int pos0, boolean allLogits, CommandSink sink, int layers) {
    LoweredModel m = l.m;
    if (tokens.length < 1 || tokens.length > m.maxStepTokens) {
      throw new IllegalArgumentException("a step takes 1.." + m.maxStepTokens + " tokens, got " + tokens.length);
    }
    if (pos0 < 0 || pos0 + tokens.length > m.maxContext()) {
      throw new IllegalArgumentException("positions " + pos0 + ".." + (pos0 + tokens.length - 1)
          + " exceed the cache of " + m.maxContext() + " slots");
    }
    for (int t : tokens) {
      if (t < 0 || t >= l.c.vocabSize()) {
        throw new IllegalArgumentException("token " + t + " is outside the vocabulary 0.." + (l.c.vocabSize() - 1));
      }
    }
    // at full, consecutive DSP runs go as joined programs (one program load each, DspChain), and a run whose program
    // is intact in the DSP's program memory runs resident, loading nothing (DspResidency)
    BlockLane two = order.twoBlocksAsked() && tokens.length > l.blockMax ? secondLane() : null;
    // two blocks in flight: ordered by the lane ranges the cost model's walk orders its commands by (LaneFootprints)
    BlockInterleaver interleaver = !order.interleave() ? null : two == null ? new BlockInterleaver(sink, l.p, false)
        : new BlockInterleaver(sink, l.p, true, new long[] {m.kCache, m.dspPool}).acrossLayers(order.acrossLayers());
    if (interleaver != null) {
      sink = interleaver;
    }
    // with two blocks in flight a second block's run whose program the first block ran and another overwrote since
    // (the same parameterized routine) is placed by a dspld, which the interleaver starts before a W stream, and runs
    // resident beside it
    // in a window across layers both blocks' runs re-load by a dspld and the placements stay from layer to layer
    boolean across = two != null && order.acrossLayers();
    CommandStream b = new CommandStream(sink, e.pool, l.p.dsp().programDepth(), fusion == Fusion.FULL,
        fusion == Fusion.FULL ? new DspResidency(l.p, two != null, !across) : null);
    b.keepResidencyAcrossLayers(across);
    b.dspTab(m.tables);
    lane.stepStart(b);
    if (two != null) {
      b.lane(1);
      two.stepStart(b);
      b.lane(0);
    }
    for (int start = 0; start < tokens.length; ) {
      int n = Math.min(l.blockMax, tokens.length - start);
      int n2 = two == null ? 0 : Math.min(l.blockMax, tokens.length - start - n);
      if (n2 == 0) {
        blocks(tokens, start, n, 0, pos0, allLogits, layers, null);
      } else {
        blocks(tokens, start, n, n2, pos0, allLogits, layers, two);
      }
      start += n + n2;
    }
    b.halt();
    lane.stepEnd();
    if (two != null) {
      two.stepEnd();
    }
    interleaved = interleaver == null ? 0 : interleaver.moved();
  }

  /**
   * The lane of a second block in flight, made on first use (its regions after all of the first lane's); null when
   * the scratchpad or the DSP do not hold both blocks' buffers, or its attention batches fewer tokens
   * ({@link LaneBatching}).
   */
  private BlockLane secondLane() {
    if (!secondTried) {
      secondTried = true;
      try {
        second = lane.second(e.pool, fusion);
        secondWhyNot = LaneBatching.whyNot(lane.attentionBatching(), second.attentionBatching());
        if (!secondWhyNot.isEmpty()) {
          second = null;
        }
      } catch (IllegalArgumentException tooLarge) {
        secondWhyNot = "a second block's buffers do not fit: " + tooLarge.getMessage();
      }
    }
    return second;
  }

  /**
   * Tokens per program of a chunked prefill ({@link NpuDecoder#prefill}): the engine's maxM, or two of them when two
   * blocks of maxM are in flight ({@link #twoBlocksInFlight}) and a step may take that many tokens.
   */
  public int prefillChunk() {
    int maxM = l.p.maxM();
    return twoBlocksInFlight() && l.m.maxStepTokens >= 2 * maxM && l.blockMax == maxM ? 2 * maxM : maxM;
  }

  /** Why two blocks are not in flight ({@link #twoBlocksInFlight} false), or "". */
  public String twoBlocksWhyNot() {
    return !order.twoBlocksAsked() ? "not asked for" : twoBlocksInFlight() ? "" : secondWhyNot;
  }

  /** Whether each step's prefill goes two blocks at a time (interleaved, and both blocks' buffers fit). */
  public boolean twoBlocksInFlight() {
    return order.twoBlocksAsked() && secondLane() != null;
  }

  /**
   * The block of {@code n} tokens from {@code start} (lane one) and, with {@code two}, the next {@code n2} tokens
   * (lane two) layer by layer: each layer's commands of the first block, then of the second, whose attention reads
   * the K/V rows the first stored (the cache's causal order); then both LM heads.
   */
  private void blocks(int[] tokens, int start, int n, int n2, int pos0, boolean allLogits, int layers,
                      BlockLane two) {
    var b = e.b;
    lane.embed(java.util.Arrays.copyOfRange(tokens, start, start + n));
    if (two != null) {
      b.lane(1);
      two.embed(java.util.Arrays.copyOfRange(tokens, start + n, start + n + n2));
      b.lane(0);
    }
    if (two != null && order.staggered()) {
      lane.staggered(two, n, n2, pos0 + start, layers, order.weave());
    } else {
      for (int layer = 0; layer < layers; layer++) {
        b.layerStart(layer);
        if (two != null && order.skewed()) {
          lane.layerHead(layer, n, pos0 + start);
          b.secondLane(true);
          two.layerHead(layer, n2, pos0 + start + n);
          b.secondLane(false);
          lane.layerTail(layer, n, pos0 + start);
          b.secondLane(true);
          two.layerTail(layer, n2, pos0 + start + n);
          b.secondLane(false);
        } else {
          lane.layer(layer, n, pos0 + start);
          if (two != null) {
            b.secondLane(true);
            two.layer(layer, n2, pos0 + start + n);
            b.secondLane(false);
          }
        }
        b.layerEnd(layer);
      }
    }
    head(lane, tokens.length, start, n, allLogits);
    if (two != null) {
      b.lane(1);
      head(two, tokens.length, start + n, n2, allLogits);
      b.lane(0);
    }
  }

  private static void head(BlockLane lane, int length, int start, int n, boolean allLogits) {
    boolean[] want = new boolean[n];
    int[] row = new int[n];
    for (int t = 0; t < n; t++) {
      int i = start + t;
      want[t] = allLogits || i == length - 1;
      row[t] = allLogits ? i : 0;
    }
    lane.head(n, want, row);
  }
}
