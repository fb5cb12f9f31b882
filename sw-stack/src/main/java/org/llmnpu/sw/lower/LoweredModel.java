package org.llmnpu.sw.lower;

import java.util.List;
import org.llmnpu.isa.Command;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.sw.model.ModelConfig;
import org.llmnpu.sw.model.ModelWeights;

/**
 * A decoder's weights laid out in the NPU's external memory, and where everything else lives
 * there: the command stream at address 0, the DSP tables and programs, FP16 embedding rows and
 * RoPE tables, INT8 weights with their FP16 per-output-channel scales, the KV cache and the
 * logits.
 *
 * <p><b>Weights.</b> Each GEMM weight is stored as W[K×N] = the llama2.c matrix transposed, rows
 * line-padded, INT8 symmetric per output channel ({@code s_n = max_k |W_kn| / 127}, round half
 * even, clamp ±127). Its scale is stored as FP16 {@code s_n · 2^-σ} where σ is the GEMM's
 * {@link #shift(int) dspin shift}, so that dequantization on the DSP is two FP16 products. Q/K/V
 * are one GEMM (horizontal fusion) with columns {@code [q evens | q odds | k evens | k odds | v]}:
 * the even and odd members of each RoPE pair are split so that RoPE is the DSP's half-split
 * {@code rope} kernel over all heads at once (the permutation is the same for q and k, so
 * q·k is unchanged). Each RoPE part, and each half (cos, sin) of a RoPE table row, is padded with zero
 * columns to whole DSP rows ({@link #qSpan}, {@link #kSpan}; none where the halves are whole rows): the
 * padding lanes compute zeros, which no absmax sees, at the cost of the wider GEMM, DSP runs and loads.
 * W1 and W3 are one GEMM too, W3's columns starting at a multiple of four.
 * Wo's input rows are padded per head to a whole DSP row (zero rows), the layout of the attention
 * output on the DSP. The LM head is the classifier, transposed, in INT8. Other block-weight formats:
 * INT4 (two codes a byte), INT4 in groups of K rows, 2:4-sparse INT8 (compressed rows with
 * metadata), see the constructors.
 *
 * <p><b>KV cache.</b> {@code [layer][slot]} rows of {@code kvBytes} = line-padded kvDim INT8 codes
 * (k: evens then odds per head, as above; v: natural order) followed by one line whose first two
 * bytes are the FP16 dequantization scale of that token's k (or v) vector. A step appends one row
 * per token per layer with one DMA store; nothing is ever copied. At {@code --fusion full} the K codes are also kept
 * transposed ({@code Kᵀ}, {@link #kTCache}): {@code [layer]} kvDim rows of {@link #kTStride} bytes, row e the
 * e-th code of the K row, byte j slot j, written a line of slots at a time ({@link KeyColumns}); the scores of a block
 * take it as their W ({@link KeyScores}).
 */
public final class LoweredModel extends WeightGeometry {
  /** Bytes reserved for the command stream at address 0. */
  public static final long PROGRAM_BYTES = 2L << 20;

  private final ModelConfig c;
  private final MachineParams machine;
  private final int maxContext;
  /** The kinds of second layout a block weight may have ({@link MemoryRegions#allocCopy}). */
  private static final String STREAMED = "streamed 2:4";
  private static final String GROUP_SCALED = "group-scaled";
  /** Regions start line-aligned (DMA and streamed GEMM operands), at least every 32 bytes (a command). */
  private final MemoryRegions regions = new MemoryRegions(PROGRAM_BYTES, Math.max(32, line));
  final long tables;
  final long zeros;
  final long embedding;
  final int embeddingStride;
  final long rope;
  final int ropeStride;
  final long[] layerVectors;
  final long[] wQkv;
  final long[] wO;
  final long[] w13;
  final long[] w2;
  final long finalVectors;
  final long lmHead;
  final long kCache;
  final long vCache;
  final int kvBytes;
  /** The K cache transposed: per layer kvDim rows of {@link #kTStride} bytes (a byte per slot). */
  final long kTCache;
  /** Bytes of a {@code Kᵀ} row: maxContext rounded up to the line. */
  final int kTStride;
  final long logits;
  final int logitsStride;
  final int maxStepTokens;
  final long dspPool;
  final long dspPoolEnd;
  /** The fused lowering's PPM epilogue data at the memory's top ({@link PpmEpilogues}). */
  final PpmEpilogues epilogues;
  private final ModelWeights weights;
  private ModelWeights source; // the weights the image stores (PpmEpilogues#stored), set with it on first use
  private StaticScales staticScales;
  // shapes
  final int half;
  /** Elements of the q (k) evens, odds and cos/sin halves: heads·headDim/2 (kvHeads·) padded to DSP rows. */
  final int qSpan;
  final int kSpan;
  final int qkvN;
  final int oK;
  final int h3Offset;
  final int w13N;
  /** FP16 vector offsets (elements) inside a layer's vector block. */
  final int vG1;
  final int vG2;
  final int vQkv;
  final int vO;
  final int vW1;
  final int vW3;
  final int vW2;
  /**
   * Per-channel scale vectors of the group-scaled copies ({@link #groupScaledStream}; else equal to 0 and unused):
   * QKV, O, W1, W3, W2.
   */
  final int vQkvC;
  final int vOC;
  final int vW1C;
  final int vW3C;
  final int vW2C;
  /**
   * Whether the block weights also have a group-scaled INT4 copy for the streamed GEMMs ({@code gemm wInt4=2}; the
   * rule and the copy's numerics: {@link WeightGeometry#groupScaledStream(MachineParams, int, int, int, int)}).
   */
  final boolean groupScaledStream;
  final int layerVectorElems;
  /** Elements of a layer's vectors before the channel vectors: what the unfused program loads and uses. */
  final int groupVectorElems;
  final int vLm;
  private byte[] image;
  /**
   * Lays out {@code weights} (INT8 per channel) for {@code machine}, with a KV cache of
   * {@code maxContext} slots and logits for up to {@code maxStepTokens} tokens per step.
   */
  public LoweredModel(ModelWeights weights, MachineParams machine, int maxContext, int maxStepTokens) {
    this(weights, machine, maxContext, maxStepTokens, 8);
  }

  /**
   * As above with {@code weightBits} 8 (INT8 per channel) or 4: INT4 per output channel
   * ({@code s_n = max_k |W_kn| / 7}, codes −7..7), two codes a byte (low nibble first), loaded
   * with {@code load4}, which widens them to INT8 in the scratchpad; the LM head stays INT8.
   */
  public LoweredModel(ModelWeights weights, MachineParams machine, int maxContext, int maxStepTokens, int weightBits) {
    this(weights, machine, maxContext, maxStepTokens, weightBits, 0);
  }

  /**
   * As above; {@code weightGroup} > 0 quantizes the block weights in groups of that many rows
   * of K, one scale per group and output channel ({@code s_gn = max_{k in g} |W_kn| / qmax}; the
   * last group of a ragged K is shorter), stored as FP16 {@code s_gn · 2^-σ} with σ the
   * {@link #shift} of one group, one vector per group in the layer's vector block; each group is
   * its own GEMM whose partial the DSP multiplies by its scales before summing
   * ({@link KSplit}). 0 = per channel. The LM head stays INT8 per channel.
   */
  public LoweredModel(ModelWeights weights, MachineParams machine, int maxContext, int maxStepTokens, int weightBits,
                      int weightGroup) {
    this(weights, machine, maxContext, maxStepTokens, weightBits, weightGroup, Command.DENSE);
  }

  /**
   * As above; {@code sparsity} {@link Command#S2_4} stores the block weights 2:4-sparse along K
   * (INT8 per channel; the weights must already be 2:4-pruned along their K, see
   * {@link WeightFormats}; each laid-out column is pruned again by magnitude, a no-op then, so the
   * layout always holds). In the scratchpad each K chunk ({@link KSplit}, chunks start at multiples
   * of the line, so of 4) is the {@link org.llmnpu.isa.SparseWeights} layout of
   * {@code Command.Gemm}, from row {@code k0}: {@code V = 2·ceil(len/4)} value rows (N INT8) then V
   * metadata rows (one byte per entry: its position 0..3 in the group), so a weight takes
   * {@code roundUp(K, 4)} rows there. In memory the metadata is packed two positions a byte (INT4
   * codes 0..3, low nibble first) and widened by {@code load4}: first the value rows of all chunks
   * ({@code 2·ceil(K/4)} rows of {@link #extStride} bytes, chunk c's from row {@code k0/2}), then
   * their metadata rows ({@link #metaStride} bytes each, same row numbers): 0.75 of the dense INT8
   * bytes. Staging a chunk is one {@code load} and one {@code load4}; its GEMMs are sparse (word 2
   * sparsity 1). The machine's array must be built for 2:4; the LM head stays dense INT8.
   */
  public LoweredModel(ModelWeights weights, MachineParams machine, int maxContext, int maxStepTokens, int weightBits,
                      int weightGroup, int sparsity) {
    this(weights, machine, maxContext, maxStepTokens, weightBits, weightGroup, sparsity, -1);
  }

  /**
   * As above; {@code mxFormat} ≥ 0 (an {@code org.llmnpu.isa.MxLoad} format, with 8-bit weights in
   * groups of 32) stores the block weights as OCP MX blocks of 32 rows of K per output channel (the
   * {@code numerics} {@code MxQuantizer}, round to nearest even; the last block of a ragged K shorter):
   * the element bytes in W[K×N] layout, decoded by {@code loadmx} into INT8 codes on the way to the
   * scratchpad, and per block the FP16 scale {@code 2^(X − 127 + codeExponent − σ)} (X the block's
   * E8M0 scale) in place of a group scale, so the DSP dequantizes each group's INT32 partial exactly
   * as for {@code int4-g32}. Needs a machine with {@code mxLoad}. The LM head stays INT8. Dense only.
   */
  public LoweredModel(ModelWeights weights, MachineParams machine, int maxContext, int maxStepTokens, int weightBits,
                      int weightGroup, int sparsity, int mxFormat) {
    this(weights.config(), weights, machine, maxContext, maxStepTokens, weightBits, weightGroup, sparsity, mxFormat);
  }

  /**
   * The layout alone (every address and shape, no memory image): what the lowering needs to emit a step's commands
   * for the cost model ({@link PhaseCostModel}), for a model of shape {@code c} whose weights are not at hand.
   */
  static LoweredModel layoutOnly(ModelConfig c, MachineParams machine, int maxContext, int maxStepTokens,
                                 int weightBits, int weightGroup, int sparsity, int mxFormat) {
    return new LoweredModel(c, null, machine, maxContext, maxStepTokens, weightBits, weightGroup, sparsity, mxFormat);
  }

  private LoweredModel(ModelConfig c, ModelWeights weights, MachineParams machine, int maxContext, int maxStepTokens,
                       int weightBits, int weightGroup, int sparsity, int mxFormat) {
    super(machine, weightBits, weightGroup, sparsity, mxFormat);
    this.c = c;
    this.machine = machine;
    this.maxContext = maxContext;
    this.maxStepTokens = maxStepTokens;
    int lanes = machine.dsp().lanes();
    if (maxContext < 1 || maxContext > c.maxSeqLen()) {
      throw new IllegalArgumentException("maxContext must be in 1.." + c.maxSeqLen() + ", got " + maxContext);
    }
    half = c.headDim() / 2;
    HeadWindows.requireUnfused(c, line, lanes);
    qSpan = roundUp(c.heads() * half, lanes);
    kSpan = roundUp(c.kvHeads() * half, lanes);
    qkvN = 2 * qSpan + 2 * kSpan + c.kvDim();
    oK = c.heads() * roundUp(c.headDim(), lanes);
    h3Offset = roundUp(c.hiddenDim(), Math.max(1, line / 4));
    w13N = h3Offset + c.hiddenDim();
    int v = 0;
    vG1 = v;
    v += padVector(c.dim());
    vG2 = v;
    v += padVector(c.dim());
    vQkv = v;
    v += groups(c.dim()) * padVector(qkvN);
    vO = v;
    v += groups(oK) * padVector(c.dim());
    vW1 = v;
    v += groups(c.dim()) * padVector(c.hiddenDim());
    vW3 = v;
    v += groups(c.dim()) * padVector(c.hiddenDim());
    vW2 = v;
    v += groups(c.hiddenDim()) * padVector(c.dim());
    groupScaledStream = groupScaledStream(machine, weightBits, weightGroup, mxFormat,
        Math.max(c.dim(), Math.max(oK, c.hiddenDim())));
    int vectorsBefore = v;
    groupVectorElems = v;
    // the channel vectors start on a line, so that a fused step loads the norms and them without the group vectors
    v = groupScaledStream ? channelVectorStart(v, line) : v;
    vQkvC = v;
    v += groupScaledStream ? padVector(qkvN) : 0;
    vOC = v;
    v += groupScaledStream ? padVector(c.dim()) : 0;
    vW1C = v;
    v += groupScaledStream ? padVector(c.hiddenDim()) : 0;
    vW3C = v;
    v += groupScaledStream ? padVector(c.hiddenDim()) : 0;
    vW2C = v;
    v += groupScaledStream ? padVector(c.dim()) : 0;
    if (!groupScaledStream && v != vectorsBefore) {
      throw new IllegalStateException("vector block grew without group-scaled copies");
    }
    layerVectorElems = v;
    vLm = padVector(c.dim());

    tables = regions.alloc("dsp tables", 768);
    zeros = regions.alloc("zeros", 4096);
    embeddingStride = roundUp(2 * c.dim(), line);
    embedding = regions.alloc("embedding", (long) c.vocabSize() * embeddingStride);
    ropeStride = roundUp(4 * qSpan, line);
    rope = regions.alloc("rope table", (long) maxContext * ropeStride);
    layerVectors = new long[c.layers()];
    wQkv = new long[c.layers()];
    wO = new long[c.layers()];
    w13 = new long[c.layers()];
    w2 = new long[c.layers()];
    for (int l = 0; l < c.layers(); l++) {
      layerVectors[l] = regions.alloc("layers[" + l + "] norms and scales", 2L * layerVectorElems);
      wQkv[l] = regions.alloc("layers[" + l + "].wqkv", matrixBytes(c.dim(), qkvN));
      wO[l] = regions.alloc("layers[" + l + "].wo", matrixBytes(oK, c.dim()));
      w13[l] = regions.alloc("layers[" + l + "].w13", matrixBytes(c.dim(), w13N));
      w2[l] = regions.alloc("layers[" + l + "].w2", matrixBytes(c.hiddenDim(), c.dim()));
      if (groupScaledStream) {
        groupScaledCopy(wQkv[l], "layers[" + l + "].wqkv group-scaled", c.dim(), qkvN);
        groupScaledCopy(wO[l], "layers[" + l + "].wo group-scaled", oK, c.dim());
        groupScaledCopy(w13[l], "layers[" + l + "].w13 group-scaled", c.dim(), w13N);
        groupScaledCopy(w2[l], "layers[" + l + "].w2 group-scaled", c.hiddenDim(), c.dim());
      }
      if (sparsity == Command.S2_4) {
        streamedCopy(wQkv[l], "layers[" + l + "].wqkv streamed", c.dim(), qkvN);
        streamedCopy(wO[l], "layers[" + l + "].wo streamed", oK, c.dim());
        streamedCopy(w13[l], "layers[" + l + "].w13 streamed", c.dim(), w13N);
        streamedCopy(w2[l], "layers[" + l + "].w2 streamed", c.hiddenDim(), c.dim());
      }
    }
    finalVectors = regions.alloc("final norm and LM scales", 2L * (vLm + padVector(c.vocabSize())));
    lmHead = regions.alloc("lm head", (long) c.dim() * roundUp(c.vocabSize(), line));
    kvBytes = roundUp(c.kvDim(), line) + line;
    kCache = regions.alloc("k cache", (long) c.layers() * maxContext * kvBytes);
    vCache = regions.alloc("v cache", (long) c.layers() * maxContext * kvBytes);
    kTStride = roundUp(maxContext, line);
    kTCache = regions.alloc("k cache transposed", (long) c.layers() * c.kvDim() * kTStride);
    logitsStride = roundUp(2 * c.vocabSize(), line);
    logits = regions.alloc("logits", (long) maxStepTokens * logitsStride);
    dspPool = regions.alloc("dsp programs", 0);
    epilogues = new PpmEpilogues(this, line, dspPool);
    dspPoolEnd = epilogues.base;
    if (dspPool + (64L << 10) > dspPoolEnd) {
      throw new IllegalArgumentException("the model needs " + dspPool + " bytes of external memory but the NPU has "
          + machine.extMemBytes());
    }
    this.weights = weights;
  }

  /** The memory image up to the layout's top ({@link MemoryImage}), written on first use (a layout only: never). */
  private synchronized byte[] memory() {
    if (image == null && weights != null) {
      source = epilogues.stored(weights);
      image = new byte[MemoryImage.length(epilogues.top, machine)];
      new WeightImage(this, image).write(source);
    }
    return image;
  }

  /**
   * The static scales of the PPM epilogues: on first use calibrated on the stored FP32 weights ({@link StaticScales})
   * and the epilogue data written into the image ({@link PpmEpilogues}); placeholders for a layout without weights.
   */
  synchronized StaticScales epilogueScales() {
    if (staticScales == null) {
      byte[] mem = memory();
      staticScales = mem == null ? StaticScales.placeholder(c) : StaticScales.calibrate(source);
      if (mem != null && epilogues.applies) {
        epilogues.write(mem, source, staticScales);
      }
    }
    return staticScales;
  }

  private void streamedCopy(long staged, String name, int k, int n) {
    regions.allocCopy(STREAMED, staged, name, streamedSparseBytes(k, n));
  }

  /**
   * The streamed layout ({@code gemm wStream=1} with 2:4, {@code npu-isa StreamedWeights}) of the 2:4 block weight
   * whose staged layout is at {@code staged}: per K chunk its {@code V} value rows, then {@code ceil(V/4)} metadata
   * rows of four 2-bit positions a byte (value row {@code 4q + i} in bits {@code 2i}), all of {@link #extStride}
   * bytes, chunk after chunk ({@link #streamedSparseOffset}). Written beside the staged layout, which
   * {@code load}/{@code load4} read.
   */
  long streamedSparse(long staged) {
    return regions.copyOf(STREAMED, staged, "no streamed 2:4 layout for the weight at ");
  }

  private void groupScaledCopy(long staged, String name, int k, int n) {
    regions.allocCopy(GROUP_SCALED, staged, name, groupScaledRow(k) * extStride(n));
  }

  /** The group-scaled copy ({@link #groupScaledStream}) of the block weight whose staged layout is at {@code staged}. */
  long groupScaled(long staged) {
    return regions.copyOf(GROUP_SCALED, staged, "no group-scaled copy of the weight at ");
  }

  /** Wqkv's columns per QKV tile ({@link #orderQkvByTiles}), or null: the default order (class comment). */
  QkvTiles qkvTiles;

  /**
   * Lays Wqkv's columns and their scales out per tile of the QKV GEMM ({@link QkvTiles}) for the tiled QKV post
   * ({@link TiledQkvPost}; its lowering needs static q/k/v scales), or keeps the default order and says why not.
   */
  public String orderQkvByTiles() {
    String why = QkvTiles.whyNot(c, QkvTiles.streamTile(machine, bits), machine.dsp().lanes());
    qkvTiles = why != null ? null : QkvTiles.of(c, QkvTiles.streamTile(machine, bits), machine.dsp().lanes());
    for (int l = 0; image != null && qkvTiles != null && l < c.layers(); l++) {
      new WeightImage(this, image).writeQkv(source.layers()[l], l);
    }
    return why;
  }

  public ModelConfig config() {
    return c;
  }

  public MachineParams machine() {
    return machine;
  }

  public int maxContext() {
    return maxContext;
  }

  /** A fresh copy of the memory image (weights, tables, empty cache). */
  public byte[] image() {
    if (memory() == null) {
      throw new IllegalStateException("a layout without weights has no memory image");
    }
    return image.clone();
  }

  /** The region an external-memory address falls in (e.g. "layers[2].w13", "k cache layer 1 slot 5"). */
  public String describe(long address) {
    return AddressNames.describe(this, regions, address);
  }

  /** DRAM bytes of the INT8 weights and FP16 scales/norms one token's step reads (all layers + head). */
  public long weightBytes() {
    long n = 0;
    for (int l = 0; l < c.layers(); l++) {
      n += 2L * groupVectorElems + matrixBytes(c.dim(), qkvN) + matrixBytes(oK, c.dim()) + matrixBytes(c.dim(), w13N)
          + matrixBytes(c.hiddenDim(), c.dim());
    }
    return n + 2L * (vLm + padVector(c.vocabSize())) + (long) c.dim() * roundUp(c.vocabSize(), line);
  }

  /** Named regions by start address (for reports). */
  public List<String> regionNames() {
    return regions.names();
  }
}
