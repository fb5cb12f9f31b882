package org.llmnpu.sw.lower;

import org.llmnpu.isa.CycleModel;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.isa.dsp.DspProgram;
import org.llmnpu.sw.model.ModelConfig;

/**
 * The cycles and DRAM traffic of a step from model shapes alone.
 *
 * <p><b>Exact steps</b> (the lowering's own programs): {@link DecoderLowering} emits the step's commands for the
 * model's layout without weights ({@link LoweredModel#layoutOnly}) into a {@link CommandCostSink} — the same
 * command stream its program builder encodes — which times each command on {@code npu-isa}'s {@link CycleModel}
 * and counts it as the golden simulator does. A command the lowering learns to emit is costed with no second
 * description of the lowering; the tests hold every counter equal to the golden simulator's for every weight format
 * (INT8, INT4 per channel, {@code int4-g32}, {@code s2_4}, MX), K chunks, fusion levels ({@link Fusion}: streamed
 * weights) and a chunked prefill (a prompt longer than maxM: one program per chunk, {@link NpuDecoder#prefill}).
 *
 * <p><b>Extrapolated steps</b> (shapes the lowering cannot lay out: models beyond the NPU's memory) still walk the
 * lowering's command order by hand (the walk: {@link PhaseWalk} to {@link LayerWalk}), with one change a larger
 * NPU needs, stated in the result: weights are streamed in N tiles of {@code maxN} columns (load tile, GEMM tile;
 * with a fusion level, streamed GEMMs as the lowering emits them) instead of one staging load. Its attention layout is
 * the lowering's ({@link BatchedAttentionLayout}: at full, head-major K rows where a RoPE half is whole lines, so the
 * scores GEMV has K = head dim, not kvDim with zero rows; until 2026-12-07 the walk took that layout on its own,
 * {@code wide}, where the lowering did not). Not done: the lowering itself laying out such models (its whole-block Y
 * and K/V regions exceed the scratchpad), which would retire this walk.
 *
 * <p>Numbers: every NPU counter ({@link PhaseCost#counter}): the cycle counters from the cycle model, the work
 * counters as the golden simulator counts them (DRAM beats with command and DSP-program fetch, DMA bytes,
 * scratchpad lines, MACs executed — a 2:4 GEMM's {@code M·N·2·ceil(K/4)} — partial-sum write-backs, DSP
 * instructions and elements). A step costs every layer it is asked to ({@link #step}: the rest scaled from the last
 * one costed); DSP programs are compiled once per operands.
 */
public final class PhaseCostModel extends LayerWalk {
  /** The lowering of the model's layout (no weights), built on the first exact step. */
  private DecoderLowering lowering;
  /** The prefill's order ({@link #order(PrefillOrder)}), as the lowering's ({@link DecoderLowering#order}). */
  private PrefillOrder prefill = PrefillOrder.DEFAULT;
  /** Each DSP program's {size, cycles, issued}, shared by the steps. */
  private final java.util.Map<DspProgram, long[]> programCosts = new java.util.HashMap<>();

  /**
   * @param extrapolate false: exactly the lowering's command sequence; true: with the change for larger shapes
   *                    (weights streamed in maxN-column tiles)
   */
  public PhaseCostModel(ModelConfig c, MachineParams p, int maxContext, int blockMax, boolean extrapolate) {
    this(c, p, maxContext, blockMax, extrapolate, 8);
  }

  /** As above for block weights of {@code weightBits} 8 or 4 (INT4 loaded with {@code load4}). */
  public PhaseCostModel(ModelConfig c, MachineParams p, int maxContext, int blockMax, boolean extrapolate,
                        int weightBits) {
    this(c, p, maxContext, blockMax, extrapolate, weightBits, 0, org.llmnpu.isa.Command.DENSE);
  }

  /** The lowering of weight format {@code format} ({@link WeightFormats#NAMES}). */
  public static PhaseCostModel forFormat(ModelConfig c, MachineParams p, int maxContext, int blockMax, String format) {
    return forFormat(c, p, maxContext, blockMax, format, Fusion.NONE);
  }

  /** The lowering of weight format {@code format} at fusion level {@code fusion}. */
  public static PhaseCostModel forFormat(ModelConfig c, MachineParams p, int maxContext, int blockMax, String format,
                                         Fusion fusion) {
    if (!WeightFormats.NAMES.contains(format)) {
      throw new IllegalArgumentException("quant must be one of " + WeightFormats.NAMES + ", got '" + format + "'");
    }
    return new PhaseCostModel(c, p, maxContext, blockMax, false, WeightFormats.bits(format), WeightFormats.group(format),
        WeightFormats.sparsity(format), WeightFormats.mx(format), fusion);
  }

  /** As above, weights in groups of {@code weightGroup} rows of K (0: per channel), N:M mode {@code sparsity}. */
  public PhaseCostModel(ModelConfig c, MachineParams p, int maxContext, int blockMax, boolean extrapolate,
                        int weightBits, int weightGroup, int sparsity) {
    this(c, p, maxContext, blockMax, extrapolate, weightBits, weightGroup, sparsity, -1);
  }

  /** As above with MX block weights of {@code loadmx} format {@code mxFormat} (-1: integer weights). */
  public PhaseCostModel(ModelConfig c, MachineParams p, int maxContext, int blockMax, boolean extrapolate,
                        int weightBits, int weightGroup, int sparsity, int mxFormat) {
    this(c, p, maxContext, blockMax, extrapolate, weightBits, weightGroup, sparsity, mxFormat, Fusion.NONE);
  }

  /**
   * As above for the programs of fusion level {@code fusion} ({@link DecoderLowering}): the level the NPU applies
   * ({@link Fusion#appliedOn}: {@link Fusion#NONE} where it cannot stream weights).
   */
  public PhaseCostModel(ModelConfig c, MachineParams p, int maxContext, int blockMax, boolean extrapolate,
                        int weightBits, int weightGroup, int sparsity, int mxFormat, Fusion fusion) {
    super(c, p, maxContext, blockMax, extrapolate, weightBits, weightGroup, sparsity, mxFormat, fusion);
  }

  /**
   * Where the cycles of an extrapolated {@link #step} go: "operator / command kind" → {cycles, commands, waits},
   * each command charged the cycles by which it advanced the step's end (a GEMM's back-end overlaps the commands after
   * it, so a command that waits for it is charged the wait; waits: those cycles, {@link #backEndWaitCycles}); the rows add up to the step's cycles over the costed layers
   * (layers beyond {@code costedLayers} are not in it).
   */
  public java.util.Map<String, long[]> profile(int tokens, int pos0, int costedLayers) {
    if (!extrapolate) {
      throw new IllegalStateException("profile: only an extrapolated step is profiled by operator "
          + "(CommandKindProfile profiles the lowering's own programs)");
    }
    reset();
    where().start();
    step(tokens, pos0, costedLayers);
    return profile();
  }

  /**
   * One steady layer of an extrapolated prefill in windows across layers ({@link #acrossLayers}, two blocks in flight):
   * the walk of {@code k + 1} layers minus that of {@code k} (k = 2, as {@link #step} scales), its counters and its
   * {@link #profile} rows ("operator / kind" → {cycles, commands, waited, cycles with no GEMM back-end running}).
   */
  public LayerProfile layerProfile(int tokens, int pos0) {
    if (!extrapolate || !prefill.acrossLayers() || !walkTwoBlocks(tokens, pos0)) {
      throw new IllegalStateException("layerProfile: an extrapolated step of two blocks in windows across layers");
    }
    java.util.Map<String, long[]> rows = new java.util.TreeMap<>();
    PhaseCost[] costs = new PhaseCost[2];
    for (int i = 0; i < 2; i++) {
      where().start();
      costs[i] = walk(tokens, pos0, 2 + i, 2 + i);
      int sign = i == 0 ? -1 : 1;
      profile().forEach((key, v) -> {
        long[] sum = rows.computeIfAbsent(key, x -> new long[v.length]);
        for (int j = 0; j < v.length; j++) {
          sum[j] += sign * v[j];
        }
      });
    }
    return new LayerProfile(costs[1].minus(costs[0]), rows);
  }

  /** {@link #layerProfile}'s result: a layer's counters and its profile rows. */
  public record LayerProfile(PhaseCost cost, java.util.Map<String, long[]> rows) {
  }

  /**
   * The GEMM back-ends' cycles beside the controller in the last extrapolated {@link #step} or {@link #profile}
   * ({@link CostProfile#besideWindow}): the bound on what software pipelining (other blocks' DSP work under a
   * GEMM) could hide in that step's command order and NPU.
   */
  public long besideWindowCycles() {
    return where().besideWindow();
  }

  /** The part of {@link #besideWindowCycles} the controller spent waiting ({@link CostProfile#backEndWaits}). */
  public long backEndWaitCycles() {
    return where().backEndWaits();
  }

  /**
   * A step of {@code tokens} tokens after {@code pos0} stored ones, {@code layers} of the model's
   * layers costed one by one and the rest scaled from the last one (layers are identical in shape); two blocks
   * {@link #staggered} outside windows across layers cost every layer.
   */
  public PhaseCost step(int tokens, int pos0, int costedLayers) {
    if (prefill.staggered() && !prefill.acrossLayers()) {
      // staggered, a layer's commands hold the first block's next head: a last layer costed and scaled would lack it
      costedLayers = c.layers();
    }
    if (!extrapolate) {
      return lowered(tokens, pos0, costedLayers);
    }
    if (prefill.acrossLayers() && walkTwoBlocks(tokens, pos0)) {
      return marginal(costedLayers, k -> walk(tokens, pos0, k, k));
    }
    return walk(tokens, pos0, costedLayers, c.layers());
  }

  /**
   * A step of the model's layers from steps of {@code emitted.apply(k)} layers, in windows across layers: a layer's
   * commands mix with its neighbours', so the layers not costed cost what one more layer adds to the step
   * ({@code k + 1} layers' step minus {@code k}'s, k at least 2; from the second layer on every layer adds the same).
   */
  private PhaseCost marginal(int costedLayers, java.util.function.IntFunction<PhaseCost> emitted) {
    int k = Math.max(2, costedLayers);
    if (k + 1 >= c.layers()) {
      return emitted.apply(c.layers());
    }
    PhaseCost some = emitted.apply(k);
    PhaseCost more = emitted.apply(k + 1);
    return more.plus(more.minus(some), c.layers() - k - 1);
  }

  /** The walk of {@link #step}, {@code costedLayers} layers costed and the last scaled to {@code modelLayers}. */
  private PhaseCost walk(int tokens, int pos0, int costedLayers, int modelLayers) {
    reset();
    boolean two = walkTwoBlocks(tokens, pos0);
    order = prefill.interleave() ? new WalkSchedule(p, two) : CostOrder.NOW;
    if (fusion == Fusion.FULL) {
      // as DecoderLowering: with two blocks in flight the second block's runs re-load their programs by a dspld (in a
      // window across layers both blocks' runs)
      residency = new DspResidency(p, two, !(two && prefill.acrossLayers()));
    }
    operator("setup");
    command(false);
    dspTable(768 / line);
    for (int lane = 0; lane < (two ? 2 : 1); lane++) {
      // each block's constant buffers (BlockLane#stepStart)
      orderLane(lane);
      load((long) c.heads() * c.kvDim(), line);
      int zeroBytes = c.heads() * hdRows * lanes * 2;
      load(zeroBytes / line, line);
      dspIn(1, zeroBytes / 2, FP16);
    }
    orderLane(0);
    PhaseCost total = null;
    acrossLayers = two && prefill.acrossLayers();
    weaving = prefill.weave();
    int layers = Math.min(costedLayers, modelLayers);
    for (int start = 0; start < tokens; ) {
      int n = Math.min(blockMax, tokens - start);
      int n2 = two ? Math.min(blockMax, tokens - start - n) : 0;
      int pos = pos0 + start;
      keepsX = fusion == Fusion.FULL && n == 1;
      xInDsp = false;
      operator("setup");
      for (int t = 0; t < n + n2; t++) {
        orderLane(t < n ? 0 : 1);
        load(1, 2L * c.dim());
      }
      for (int l = 0; l < layers; l++) {
        // in a window across layers a snapshot would end the window (and such a step scales nothing, #marginal)
        PhaseCost before = acrossLayers ? null : snapshot();
        walkLayer = l;
        lane(0);
        if (n2 > 0 && prefill.staggered()) {
          // DecoderLowering#staggered: each block's head between the other's O GEMM and feed-forward
          staggeredLayer(l, layers, n, n2, pos);
        } else if (n2 > 0 && prefill.skewed()) {
          // DecoderLowering#skewed: both blocks' heads, then each block's tail
          layerHead(n, pos, true);
          lane(1);
          layerHead(n2, pos + n, false);
          lane(0);
          layerTail(n, pos, l == 0);
          lane(1);
          layerTail(n2, pos + n, l == 0);
          lane(0);
        } else {
          layer(n, pos, l == 0, true);
          if (n2 > 0) {
            // the second block's layer (DecoderLowering#blocks): its attention reads the K/V rows the first stored
            lane(1);
            layer(n2, pos + n, l == 0, false);
            lane(0);
          }
        }
        layerEnds();
        if (l == layers - 1 && layers < modelLayers) {
          PhaseCost one = snapshot().minus(before);
          total = total == null ? one.scale(modelLayers - layers) : total.plus(one, modelLayers - layers);
        }
      }
      start += n + n2;
      if (start == tokens) {
        // the last token's block (DecoderLowering#blocks: the first block wants no logits when a second follows)
        orderLane(n2 > 0 ? 1 : 0);
        operator("lm head");
        lmHead(1);
        orderLane(0);
      }
    }
    operator("setup");
    command(false);
    PhaseCost end = snapshot();
    return total == null ? end : end.plus(total, 1);
  }

  /** The prefill's order ({@link PrefillOrder}), in the exact steps (the lowering's) and the walk alike. */
  public PhaseCostModel order(PrefillOrder o) {
    prefill = java.util.Objects.requireNonNull(o, "order");
    if (lowering != null) {
      lowering.order(o);
    }
    return this;
  }

  /** {@link PrefillOrder#interleave}, one block at a time. */
  public PhaseCostModel interleave(boolean on) {
    return interleave(on, false);
  }

  /** {@link PrefillOrder#interleave}, with {@link PrefillOrder#twoBlocks} as {@code twoBlocks}. */
  public PhaseCostModel interleave(boolean on, boolean twoBlocks) {
    return order(prefill.withInterleave(on).withTwoBlocks(twoBlocks));
  }

  /** {@link PrefillOrder#skewed}. */
  public PhaseCostModel skewed(boolean on) {
    return order(prefill.withSkewed(on));
  }

  /** {@link PrefillOrder#staggered} (in place of {@link #skewed}). */
  public PhaseCostModel staggered(boolean on) {
    return order(prefill.withStaggered(on));
  }

  /** {@link PrefillOrder.Weave#QKV} when {@code on}, else none ({@link DecoderLowering#woven}). */
  public PhaseCostModel woven(boolean on) {
    return order(prefill.withWeave(on ? PrefillOrder.Weave.QKV : PrefillOrder.Weave.NONE));
  }

  /** {@link PrefillOrder.Weave#GATED} when {@code on}, else none ({@link DecoderLowering#wovenGated}). */
  public PhaseCostModel wovenGated(boolean on) {
    return order(prefill.withWeave(on ? PrefillOrder.Weave.GATED : PrefillOrder.Weave.NONE));
  }

  /**
   * {@link PrefillOrder#acrossLayers}: a step of fewer layers costed than the model's costs k and k + 1 layers (k at
   * least 2) and adds, per layer not costed, what the last one added.
   */
  public PhaseCostModel acrossLayers(boolean on) {
    return order(prefill.withAcrossLayers(on));
  }

  /**
   * q, k and v with static scales in the exact step and the walk ({@link DecoderLowering#staticQkv});
   * {@code tiledPost}: the QKV post tile by tile where Wqkv can be ordered per tile ({@link TiledQkvPost}; exact steps
   * lower a layout so ordered, {@link LoweredModel#orderQkvByTiles}; the walk: {@link QkvPostWalk#qkvPostTiled}).
   */
  public PhaseCostModel staticQkv(boolean on, boolean tiledPost) {
    staticQkv = on;
    tiledQkvPost = tiledPost;
    lowering = null; // rebuilt with the option by the next exact step
    return this;
  }

  /** Commands the last extrapolated step's interleaver order moved beside a W stream or started before one (0: off). */
  public long walkMovedCommands() {
    return order.moved();
  }

  /** Why the last exact step did not go two blocks at a time ({@link DecoderLowering#twoBlocksWhyNot}), or "". */
  public String twoBlocksWhyNot() {
    return lowering == null ? "not asked for" : lowering.twoBlocksWhyNot();
  }

  /**
   * The exact step: {@link DecoderLowering} emits the step's commands for the model's layout (token ids do not change
   * a command) into a {@link CommandCostSink}, the same stream its program builder encodes.
   */
  private PhaseCost lowered(int tokens, int pos0, int costedLayers) {
    if (lowering == null) {
      LoweredModel layout = LoweredModel.layoutOnly(c, p, maxContext, maxContext, bits, group, sparsity, mxFormat);
      if (tiledQkvPost && staticQkv) {
        layout.orderQkvByTiles();
      }
      lowering = new DecoderLowering(layout, blockMax, program -> layout.dspPool, fusion).order(prefill)
          .staticQkv(staticQkv);
    }
    int chunk = lowering.prefillChunk();
    if (pos0 == 0 && tokens > chunk) {
      // a chunked prefill (NpuDecoder#prefill): one program per chunk of maxM tokens
      PhaseCost total = null;
      for (int start = 0; start < tokens; start += chunk) {
        PhaseCost part = program(Math.min(chunk, tokens - start), start, costedLayers);
        total = total == null ? part : total.plus(part, 1);
      }
      return total;
    }
    return program(tokens, pos0, costedLayers);
  }

  private PhaseCost program(int tokens, int pos0, int costedLayers) {
    if (prefill.acrossLayers() && lowering.twoBlocksInFlight() && tokens > blockMax) {
      return marginal(costedLayers, k -> program(tokens, pos0, k, k));
    }
    return program(tokens, pos0, costedLayers, c.layers());
  }

  /** The program of {@code costedLayers} layers, the last scaled to {@code modelLayers}. */
  private PhaseCost program(int tokens, int pos0, int costedLayers, int modelLayers) {
    CommandCostSink sink = new CommandCostSink(p, programCosts);
    int layers = Math.max(1, Math.min(costedLayers, modelLayers));
    sink.scaleLayers(layers, modelLayers);
    lowering.emit(new int[tokens], pos0, false, sink, layers);
    return sink.cost();
  }

  /**
   * Whether the extrapolated walk's step goes two token blocks at a time ({@link #interleave} with two blocks, a
   * prefill of more than one block at {@code --fusion full}, whose streamed GEMMs the second block's work goes beside).
   */
  boolean walkTwoBlocks(int tokens, int pos0) {
    return prefill.twoBlocksAsked() && tokens > blockMax && fusion == Fusion.FULL;
  }
}
