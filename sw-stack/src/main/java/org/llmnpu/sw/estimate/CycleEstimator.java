package org.llmnpu.sw.estimate;

import java.util.List;
import org.llmnpu.isa.Command;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.sw.lower.DecoderLowering;
import org.llmnpu.sw.lower.Fusion;
import org.llmnpu.sw.lower.LoweredModel;
import org.llmnpu.sw.lower.PhaseCost;
import org.llmnpu.sw.lower.PhaseCostModel;
import org.llmnpu.sw.lower.PrefillOrder;
import org.llmnpu.sw.lower.WeightFormats;
import org.llmnpu.sw.model.ModelConfig;

/**
 * Estimates a prefill and the decode step after it on an NPU from the model's shape: {@link PhaseCostModel} walks
 * the command sequence the lowering emits through {@code npu-isa}'s cycle model, every layer of the lowering's own
 * program costed (no scaling), so that every counter equals the golden simulator's for the same program (the test runs
 * both on stories260K); the extrapolated walk of a streamed model costs layers 0 and 1 of a prefill and scales layer 1
 * to the rest (from the second layer on every layer of the walk costs the same: its resident programs and the
 * interleaver's window start afresh at each layer; every counter equal to costing every layer for LLaMA-2-7B,
 * LLaMA-3-8B and Qwen2.5-1.5B on edge-64 in int8, int4-g32, s2_4 and mxfp8 at each fusion level, static q/k/v too).
 * Estimates are kept within a JVM by what they depend on (the shape, the NPU, the options; {@link #CACHED_ESTIMATES}).
 *
 * <p>Weights reach the array in one of two ways ({@link Staging}): as the lowering does today (each block weight
 * loaded whole into the scratchpad, then its GEMM tiles), when the lowered model fits the NPU — checked by laying it
 * out, which is done for models of up to {@value #LAYOUT_CHECK_PARAMETERS} parameters; otherwise streamed in
 * {@code maxN}-column tiles (load a tile, GEMM it) — the change a model beyond the scratchpad needs, not yet in the
 * lowering, stated with every result (the attention layout is the lowering's own, {@code BatchedAttentionLayout}).
 *
 * <p>At {@code --fusion full} a prefill of more than one block goes with two token blocks in flight, skewed, in
 * windows across layers ({@link PhaseCostModel#interleave}, {@link PhaseCostModel#skewed},
 * {@link PhaseCostModel#acrossLayers}: the lowering's {@code DecoderLowering#skewed} and {@code #acrossLayers}
 * program, whose commands the walk orders exactly as the lowering's interleaver does), where the lowering holds both
 * blocks' buffers and that prefill takes fewer cycles than one block at a time ({@link CycleEstimate#prefillOrder}
 * says which, and why not), with each token's q/k/v scales and with static ones (the tiled QKV post in each block's
 * head: {@code DecoderLowering#skewed}); with each token's q/k/v scales staggered by half a layer instead where that is
 * faster still ({@code DecoderLowering#staggered}), and that with each block's gated W1/W3 GEMMs woven into the
 * other block's attention that follows where the feed-forward goes gated and that is faster still ({@code PrefillOrder.Weave#GATED}).
 * Its walk costs layers 0 to 2 and scales layer 1 to the rest: the last layer
 * costed drains the window, and from the second layer on every layer of the walk costs the same (7B int8: 2 and 3
 * layers asked for give the same cycles).
 */
public final class CycleEstimator {
  /** Weight formats the cost model reproduces exactly (tests against the golden counters). */
  public static final List<String> QUANTS = List.of("int8", "int4", "int4-g32", "s2_4", "mxfp8");

  /** Largest model (parameters) whose lowering is laid out to see whether it fits the NPU. */
  static final long LAYOUT_CHECK_PARAMETERS = 16_000_000L;

  /** How block weights reach the array. */
  public enum Staging {
    /** The lowering's own program: each weight loaded whole, then its GEMM tiles. */
    LOWERING("each block weight loaded whole into the scratchpad, as the lowering does (exact program)"),
    /** Weights streamed in maxN-column tiles: the lowering's commands with the change a larger model needs. */
    STREAMED("weights streamed in maxN-column tiles (load tile, GEMM tile): the lowering's commands extrapolated, its "
        + "attention layout included");

    public final String meaning;

    Staging(String meaning) {
      this.meaning = meaning;
    }
  }

  private CycleEstimator() {
  }

  /**
   * The prefill of {@code promptLen} tokens and the decode step at position {@code promptLen}.
   *
   * @throws IllegalArgumentException naming the option ({@code --quant}, {@code --prompt-len}) and allowed values
   */
  public static CycleEstimate estimate(ModelShapes.Shape shape, MachineParams p, String quant, int promptLen) {
    return estimate(shape, p, quant, promptLen, Fusion.NONE);
  }

  /**
   * As above for programs lowered at fusion level {@code fusion}, as far as the NPU and the format take it
   * ({@link Fusion#on}: what was not applied, and why, is in the estimate's {@link CycleEstimate#fusion}).
   */
  public static CycleEstimate estimate(ModelShapes.Shape shape, MachineParams p, String quant, int promptLen,
                                       Fusion fusion) {
    return estimate(shape, p, quant, promptLen, fusion, false);
  }

  /**
   * As above; {@code staticQkv}: q, k and v quantized with calibrated static scales and the QKV post tile by tile
   * where Wqkv can be ordered per tile ({@link PhaseCostModel#staticQkv}; said in {@link CycleEstimate#qkvPost}). The
   * named shapes have no weights: the scales' values change no command, only the accuracy, which needs them calibrated.
   */
  public static CycleEstimate estimate(ModelShapes.Shape shape, MachineParams p, String quant, int promptLen,
                                       Fusion fusion, boolean staticQkv) {
    check(shape.config(), p, quant, promptLen);
    Key key = new Key(shape.config(), p, quant, promptLen, fusion, staticQkv);
    CycleEstimate known;
    synchronized (CACHE) {
      known = CACHE.get(key);
    }
    if (known == null) {
      known = costed(shape, p, quant, promptLen, fusion, staticQkv);
      synchronized (CACHE) {
        CACHE.put(key, known);
      }
    }
    return known.shape().equals(shape) ? known : new CycleEstimate(shape, p, quant, promptLen, known.staging(),
        known.stagingReason(), known.block(), known.prefill(), known.decode(), known.fusion(), known.qkvPost(),
        known.prefillOrder());
  }

  /** What an estimate depends on: the model's shape (not its name), the NPU, and the options. */
  private record Key(ModelConfig config, MachineParams machine, String quant, int promptLen, Fusion fusion,
                     boolean staticQkv) {
  }

  /** Estimates kept within a JVM, least recently used dropped beyond this many. */
  static final int CACHED_ESTIMATES = 256;

  /**
   * The estimates costed so far in this JVM, by {@link Key}: the same inputs give the same estimate (the walk is
   * deterministic), and the report's jobs ask the same one several times (a stage analysis per phase, the trends per
   * table row).
   */
  private static final java.util.Map<Key, CycleEstimate> CACHE = new java.util.LinkedHashMap<>(64, 0.75f, true) {
    @Override
    protected boolean removeEldestEntry(java.util.Map.Entry<Key, CycleEstimate> eldest) {
      return size() > CACHED_ESTIMATES;
    }
  };

  private static CycleEstimate costed(ModelShapes.Shape shape, MachineParams p, String quant, int promptLen,
                                      Fusion fusion, boolean staticQkv) {
    ModelConfig c = shape.config();
    Fusion.Applied applied = fusion.on(p, c.dim(), WeightFormats.bits(quant), WeightFormats.group(quant),
        WeightFormats.sparsity(quant), WeightFormats.mx(quant));
    int maxContext = promptLen + 1;
    Layout layout = loweringLayout(c, p, quant, promptLen, applied.applied());
    int block = layout.block();
    Staging staging = block > 0 ? Staging.LOWERING : Staging.STREAMED;
    if (staging == Staging.STREAMED) {
      block = Math.min(p.maxM(), promptLen);
    }
    PhaseCostModel cost = costModel(c, p, maxContext, block, staging, quant, applied.applied())
        .staticQkv(staticQkv, staticQkv);
    // the extrapolated walk's layers from the second on cost the same (its resident programs start afresh at each
    // layer): two layers costed and the second scaled give every layer's counters
    int walked = staging == Staging.STREAMED ? Math.min(2, c.layers()) : c.layers();
    PhaseCost prefill = cost.step(promptLen, 0, walked);
    PhaseCost decode = cost.step(1, promptLen, c.layers());
    String order = ONE_BLOCK;
    if (applied.applied() == Fusion.FULL && promptLen > block) {
      // two token blocks in flight, skewed, in windows across layers (DecoderLowering#skewed, #acrossLayers), where
      // the lowering holds both and it is faster: the walk's order is the lowering's program's (WalkScheduleTest)
      PhaseCostModel two = costModel(c, p, maxContext, block, staging, quant, applied.applied())
          .staticQkv(staticQkv, staticQkv).interleave(true, true).skewed(true).acrossLayers(true);
      PhaseCost skewed = two.step(promptLen, 0, walked);
      boolean inFlight = staging == Staging.STREAMED || two.twoBlocksWhyNot().isEmpty();
      // staggered by half a layer (DecoderLowering#staggered) where it is faster still; with each token's q/k/v scales
      // (with the tiled post the walk's staggered order is one dspld short of the lowering's: StaggeredBlocksTest)
      PhaseCost staggered = inFlight && !staticQkv ? costModel(c, p, maxContext, block, staging, quant,
          applied.applied()).interleave(true, true).staggered(true).acrossLayers(true).step(promptLen, 0, walked)
          : null;
      // staggered with each block's gated W1/W3 and W2 GEMMs woven into the other block's attention that follows
      // (PrefillOrder.Weave#GATED) where the feed-forward goes gated and that is faster still
      PhaseCost woven = staggered != null && p.ppmGate() ? costModel(c, p, maxContext, block, staging, quant,
          applied.applied()).order(new PrefillOrder(true, true, false, true, true, PrefillOrder.Weave.GATED))
          .step(promptLen, 0, walked) : null;
      if (woven != null && woven.cycles() < Math.min(staggered.cycles(), Math.min(skewed.cycles(), prefill.cycles()))) {
        prefill = woven;
        order = TWO_BLOCKS_WOVEN_GATED;
      } else if (inFlight && staggered != null && staggered.cycles() < Math.min(skewed.cycles(), prefill.cycles())) {
        prefill = staggered;
        order = TWO_BLOCKS_STAGGERED;
      } else if (inFlight && skewed.cycles() < prefill.cycles()) {
        prefill = skewed;
        order = TWO_BLOCKS_SKEWED;
      } else {
        order += inFlight ? " (two blocks in flight, skewed, are not faster: " + skewed.cycles() + " cycles)"
            : " (two blocks in flight: " + two.twoBlocksWhyNot() + ")";
      }
    }
    return new CycleEstimate(shape, p, quant, promptLen, staging, layout.reason(), block, prefill, decode,
        applied, cost.qkvPost(), order);
  }

  /** The cost model of the format {@code quant} at fusion level {@code fusion}, walked where {@code staging} streams. */
  private static PhaseCostModel costModel(ModelConfig c, MachineParams p, int maxContext, int block, Staging staging,
                                          String quant, Fusion fusion) {
    return new PhaseCostModel(c, p, maxContext, block, staging == Staging.STREAMED, WeightFormats.bits(quant),
        WeightFormats.group(quant), WeightFormats.sparsity(quant), WeightFormats.mx(quant), fusion);
  }

  /** The prefill's order of token blocks ({@link CycleEstimate#prefillOrder}): one at a time. */
  public static final String ONE_BLOCK = "one token block at a time";
  /** The prefill's order with two token blocks in flight, skewed, where it is faster. */
  public static final String TWO_BLOCKS_SKEWED = "two token blocks in flight, skewed, in windows across layers (each "
      + "block's QKV GEMM streams beside the other's DSP work; DecoderLowering#skewed, #acrossLayers)";

  /** The prefill's order with two token blocks in flight, staggered by half a layer, where it is faster still. */
  public static final String TWO_BLOCKS_STAGGERED = "two token blocks in flight, staggered by half a layer, in windows "
      + "across layers (each block's RMSNorm and QKV GEMM between the other's O GEMM and feed-forward; "
      + "DecoderLowering#staggered, #acrossLayers)";

  /**
   * The prefill's order staggered with each block's gated W1/W3 and W2 GEMMs woven into the other block's attention
   * that follows, where it is faster still.
   */
  public static final String TWO_BLOCKS_WOVEN_GATED = "two token blocks in flight, staggered by half a layer, in "
      + "windows across layers, each block's gated W1/W3 and W2 GEMMs woven into the other block's attention that follows "
      + "(a piece of N tiles beside each head group's SoftMax; its residual and RMSNorm pairs and W2 residuals pinned "
      + "in the DSP program memory; DecoderLowering#staggered, PrefillOrder.Weave#GATED)";

  /**
   * The checks of {@code --quant} and {@code --prompt-len} for the model, each error naming the option and what it
   * allows.
   */
  public static void checkOptions(ModelConfig c, String quant, int promptLen) {
    if (!QUANTS.contains(quant)) {
      throw new IllegalArgumentException("--quant: '" + quant + "' is not allowed; allowed: " + String.join(", ", QUANTS)
          + (WeightFormats.NAMES.contains(quant) ? " (" + quant + " costs what its storage format costs: calibration "
          + "changes accuracy, not cycles)" : ""));
    }
    if (promptLen < 1 || promptLen >= c.maxSeqLen()) {
      throw new IllegalArgumentException("--prompt-len: " + promptLen + " is not allowed; allowed: 1.."
          + (c.maxSeqLen() - 1) + " (the model's positions less the decoded token)");
    }
  }

  /** The options' checks and what the format needs of the NPU. */
  static void check(ModelConfig c, MachineParams p, String quant, int promptLen) {
    checkOptions(c, quant, promptLen);
    if (WeightFormats.sparsity(quant) == Command.S2_4 && p.sparsity() != Command.S2_4) {
      throw new IllegalArgumentException("--quant s2_4 needs a MAC array built for 2:4 (NPU parameter sparsity: 2:4)");
    }
    if (WeightFormats.mx(quant) >= 0 && !p.mxLoad()) {
      throw new IllegalArgumentException("--quant " + quant + " needs MX decoding on the load path (NPU parameter "
          + "mxLoad: true)");
    }
  }

  /** The lowering's prefill block when its program runs on the NPU (0 when not), and why it does not. */
  record Layout(int block, String reason) {
  }

  /**
   * The prefill block of the lowering's own program at fusion level {@code fusion} when the lowered model fits
   * {@code p} (the largest block up to maxM that lays out), else 0 and the reason.
   */
  static Layout loweringLayout(ModelConfig c, MachineParams p, String quant, int promptLen, Fusion fusion) {
    long params = parameters(c);
    if (params > LAYOUT_CHECK_PARAMETERS) {
      return new Layout(0, String.format(java.util.Locale.ROOT, "the model's %.3g G parameters are beyond what the "
          + "lowering stages on an NPU (its layout is checked up to %d M)", params / 1e9,
          LAYOUT_CHECK_PARAMETERS / 1_000_000));
    }
    try {
      // the layout alone: the estimate's exact step costs a layout without weights too (PhaseCostModel), and an NPU's
      // external memory may be beyond a memory image (edge-64: 4 GiB)
      LoweredModel model = WeightFormats.layout(c, quant, p, promptLen + 1, promptLen);
      return new Layout(DecoderLowering.largestBlock(model, Math.min(p.maxM(), promptLen), fusion), "");
    } catch (IllegalArgumentException e) {
      return new Layout(0, "the lowering cannot lay this model out on this NPU: " + e.getMessage());
    }
  }

  /** The model's weights (embedding, blocks, LM head, norms). */
  static long parameters(ModelConfig c) {
    long block = (long) c.dim() * (c.dim() + 2L * c.kvDim()) + (long) c.dim() * c.dim()
        + 3L * c.dim() * c.hiddenDim() + 2L * c.dim();
    return c.layers() * block + 2L * c.vocabSize() * c.dim() + c.dim();
  }
}
