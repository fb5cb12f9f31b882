package org.llmnpu.sw.lower;

import java.util.ArrayList;
import java.util.List;
import org.llmnpu.isa.dsp.DspAssembler;
import org.llmnpu.isa.dsp.DspInstruction;
import org.llmnpu.isa.dsp.DspInterleave;
import org.llmnpu.isa.dsp.DspKernel;
import org.llmnpu.isa.dsp.DspKernels;
import org.llmnpu.isa.dsp.DspLayout;
import org.llmnpu.isa.dsp.DspMath;
import org.llmnpu.isa.dsp.DspOp;
import org.llmnpu.isa.dsp.DspPipeline;
import org.llmnpu.isa.dsp.DspProgram;

/**
 * The Vector DSP programs of the lowered decoder, each for operands at given buffer rows:
 * the compiled {@link DspKernels} (RMSNorm, RoPE, SoftMax, SwiGLU; interleaved for a pipelined DSP) relocated from their
 * {@link DspLayout} rows to ours, and three programs written here with {@link DspAssembler}:
 * <ul>
 *   <li>{@link #quantize}: dynamic symmetric INT8 quantization of one to three FP16 vectors in one run
 *   ({@link DspQuantizer}): {@code d = max(absmax, 2^-8)/127} (FP16), {@code q = saturate(rint(x · 127/absmax))},
 *   the reciprocal by four Newton steps from {@code 0.75·2^-floor(log2 absmax)} (relative error
 *   below 2^-16 before FP16 rounding); writes the INT8 codes (low byte of each element) and
 *   {@code d} broadcast over one row.</li>
 *   <li>{@link #scale}: dequantization and residual, {@code y = ((a·s)·v)·c + r} with a broadcast
 *   scale row s, a per-element vector v, an FP16 constant c and a residual r, each optional,
 *   rounded to FP16 after every step.</li>
 *   <li>{@link #scatter}: moves each head's half-vector to lanes 0.. of its own row (LSHIFT by
 *   powers of two), so that a {@code dspout} can write it as a weight column.</li>
 *   <li>{@link #sumPartials}: the K-chunk partial sums of one GEMM result (each already FP16 by
 *   {@code dspin}), optionally each times its group's FP16 scale vector, summed in FP32 and
 *   rounded once to FP16: {@code out = fp16(Σ_c widen(p_c) · widen(s_c))} (the products of two
 *   FP16 values are exact in FP32). Instructions with one execute stage: 4 (3 for one row) + rows·(4 + 3·(parts − 1)), with
 *   scales 4 + rows·(7 + 6·(parts − 1)).</li>
 * </ul>
 * On a pipelined DSP (more than one execute stage, {@link org.llmnpu.isa.dsp.DspPipeline}) the row passes of
 * scale, sumPartials and quantize run several rows per iteration ({@link #rowPass}, {@link DspInterleave}),
 * so that an instruction is issued as many slots after the result it uses as there are rows in flight, and
 * the interlock does not stall; a one-row pass is straight-line code. Every element sees the same
 * instructions in the same order as in the plain loop: the results do not depend on the DSP's stages.
 * Independent vectors share runs so that their dependent chains (reduction trees, reciprocals) hide each
 * other's latency: {@link #quantize} of up to three vectors ({@link DspQuantizer}), and {@link #merged} /
 * {@link #mergedKernels} for same-shape straight-line programs ({@link DspMerge}). What still stalls is the
 * latency of chains on one vector: the kernels' sums (RMSNorm), SwiGLU (two copies fit), SoftMax over more
 * than one row.
 */
final class DspRoutines {
  private final int lanes;
  private final DspPipeline pipeline;
  private final int programDepth;
  private final float eps;
  private final DspKernels.Options options;
  /** The programs written here: scale, static quantization, scatter, sumPartials, and their row passes. */
  private final DspRowPrograms rowPrograms;

  /**
   * Routines for the DSP {@code dsp}: its lanes, and its kernels compiled with
   * {@link org.llmnpu.isa.MachineParams.DspParams#kernelOptions()} (on a pipelined DSP rows interleaved as
   * deep as the execute stages, so that the interlock finds independent work; same results) and, on a pipelined DSP,
   * RMSNorm's sum of squares rotated ({@link DspKernels.Options#rotateSumOfSquares()}: one dependent chain a row
   * otherwise; same sum).
   */
  DspRoutines(org.llmnpu.isa.MachineParams.DspParams dsp, float eps) {
    this.lanes = dsp.lanes();
    this.eps = eps;
    this.options = dsp.kernelOptions().withSumOfSquaresRotated(dsp.executeStages() > 1);
    this.pipeline = dsp.pipeline();
    this.programDepth = dsp.programDepth();
    this.rowPrograms = new DspRowPrograms(lanes, options);
  }

  /**
   * Programs already compiled, by routine and operands: a step runs the same few hundred programs thousands of
   * times (every layer, token and head), and a program depends on its operands only.
   */
  private final java.util.Map<List<Object>, Object> compiled = new java.util.HashMap<>();

  @SuppressWarnings("unchecked")
  private <T> T memo(List<Object> key, java.util.function.Supplier<T> compile) {
    Object hit = compiled.get(key);
    if (hit == null) {
      hit = compile.get();
      compiled.put(key, hit);
    }
    return (T) hit;
  }

  private static List<Integer> boxed(int[] values) {
    return java.util.Arrays.stream(values).boxed().toList();
  }

  /** A compiled kernel whose inputs start at {@code in[i]} and outputs at {@code out[i]}. */
  DspProgram kernel(DspKernel kernel, int len, int[] in, int[] out) {
    return memo(List.of("kernel", kernel, len, boxed(in), boxed(out)), () -> compileKernel(kernel, len, in, out));
  }

  /** Dynamic INT8 quantization of one to three vectors in one run ({@link DspQuantizer}): the results of separate runs. */
  DspProgram quantize(List<DspQuantizer.Vector> vectors) {
    return memo(List.of("quantize", List.copyOf(vectors)), () -> compileQuantize(vectors));
  }

  /** The runs of {@code programs}: merged programs where they differ only in their rows ({@link DspMerge}). */
  List<DspProgram> merged(List<DspProgram> programs) {
    return memo(List.of("merged", List.copyOf(programs)), () -> compileMerged(programs));
  }

  /**
   * As {@link #merged}, for compiled kernels: each straight-line first, its registers reallocated to as few as
   * its live values need ({@link DspMerge#compact}), so that copies fit; as they are when one has a loop.
   */
  List<DspProgram> mergedKernels(List<DspProgram> programs) {
    return memo(List.of("mergedKernels", List.copyOf(programs)), () -> compileMergedKernels(programs));
  }

  /**
   * Two tokens' RMSNorm runs (one shape, rows apart) as {@link #mergedKernels} runs them, or where those stay separate
   * (the kernels loop) one program ({@link DspLoopMerge#scheduledRun}: interleaved, the shared weight rows loaded once,
   * reordered by {@link DspListSchedule}) where that costs fewer cycles and fits. Each norm's sum of squares, tree and
   * reciprocal square root is one dependent chain; two fill each other's waits. Same results bit for bit.
   */
  List<DspProgram> mergedNorms(List<DspProgram> norms) {
    return memo(List.of("mergedNorms", List.copyOf(norms)),
        () -> DspLoopMerge.scheduledRun(norms, mergedKernels(norms), pipeline, programDepth));
  }

  /**
   * Attention's score scale and SoftMax of a head group ({@link AttentionSoftmax}): the heads' fused programs merged,
   * or the separate {@link #scale} and SoftMax runs where those cost less before {@code after} (the quantization).
   */
  List<DspProgram> scaledSoftmaxes(List<AttentionSoftmax.Head> heads, int len, List<DspProgram> after) {
    return memo(List.of("scaledSoftmaxes", List.copyOf(heads), len, List.copyOf(after)), () -> {
      List<DspProgram> scales = new ArrayList<>();
      List<DspProgram> softmaxes = new ArrayList<>();
      for (AttentionSoftmax.Head h : heads) {
        scales.add(scale(h.scores(), len, h.scaleRow(), h.vec(), h.c(), -1, h.x()));
        softmaxes.add(kernel(DspKernel.SOFTMAX, len, new int[] {h.x()}, new int[] {h.out()}));
      }
      List<DspProgram> separate = new ArrayList<>(merged(scales));
      separate.addAll(mergedKernels(softmaxes));
      return AttentionSoftmax.runs(heads, len, lanes, eps, pipeline, programDepth, separate, after);
    });
  }

  /**
   * All of a head group's probability runs ({@link AttentionSoftmax#runsWithCodes}): each head's scale, SoftMax and
   * probability codes against the token's V-scale bound (the weights at each vector's {@code vec} rows, y and f at rows
   * {@code bound} and {@code bound + 1}: {@link #tokenBound}) in one program, the heads merged where that costs less.
   */
  List<DspProgram> probabilityRuns(List<AttentionSoftmax.Head> heads, List<DspQuantizer.Vector> probabilities,
      int bound, int len) {
    return memo(List.of("probabilityRuns", List.copyOf(heads), List.copyOf(probabilities), bound, len),
        () -> AttentionSoftmax.runsWithCodes(heads, probabilities, bound, len, lanes, eps, pipeline, programDepth));
  }

  /** The V scales turned into the bound's weights in place ({@link ValueScaleBound#weightsProgram}). */
  DspProgram valueWeights(int scales, int len) {
    return memo(List.of("valueWeights", scales, len), () -> ValueScaleBound.weightsProgram(this, scales, len));
  }

  /** A token's V-scale bound over {@code len} slots ({@link ValueScaleBound#tokenProgram}). */
  DspProgram tokenBound(int weights, int len, int boundRow, short factor) {
    return memo(List.of("tokenBound", weights, len, boundRow, factor),
        () -> ValueScaleBound.tokenProgram(this, weights, len, boundRow, factor));
  }

  /**
   * A token's attention outputs dequantized and quantized in one run ({@link HeadOutputCodes}), or null where that
   * does not apply (then the heads' {@link #scale} runs and a {@link #quantize}).
   */
  DspProgram outputCodes(int in, int heads, int rowsPerHead, int scales, short c, int of, int out, int scaleRow) {
    return memo(java.util.Arrays.asList("outputCodes", in, heads, rowsPerHead, scales, c, of, out, scaleRow),
        () -> HeadOutputCodes.program(this, in, heads, rowsPerHead, scales, c, of, out, scaleRow));
  }

  /** See the class comment: {@code y = ((a·s)·v)·c + r}, each operand optional (negative row, null constant). */
  DspProgram scale(int in, int len, int scaleRow, int vec, Short c, int res, int out) {
    return memo(java.util.Arrays.asList("scale", in, len, scaleRow, vec, c, res, out),
        () -> rowPrograms.scale(in, len, scaleRow, vec, c, res, out));
  }

  /**
   * Static INT8 quantization: {@code out = saturate(rint((in · vec) · k))} over {@code len} elements ({@code vec}
   * skipped when negative; one rounding, {@code TOINT}'s), and the FP16 {@code d} (the codes' scale) broadcast to row
   * {@code scaleRow}. No absmax pass: the scale is a calibrated constant ({@link StaticScales}).
   */
  DspProgram quantizeStatic(int in, int len, int vec, short k, int out, int scaleRow, short d) {
    return quantizeStatic(in, len, vec, k, out, scaleRow, 1, d);
  }

  /**
   * As above, {@code d} broadcast to {@code scaleRows} rows from {@code scaleRow} (a block's tokens,
   * {@link BlockQkvPost}).
   */
  DspProgram quantizeStatic(int in, int len, int vec, short k, int out, int scaleRow, int scaleRows, short d) {
    return memo(List.of("quantizeStatic", in, len, vec, k, out, scaleRow, scaleRows, d),
        () -> rowPrograms.quantizeStatic(in, len, vec, k, out, scaleRow, scaleRows, d));
  }

  /** Two tokens' K codes packed into one FP16 element a dimension ({@link KeyPairs}); {@code odd} negative: one. */
  DspProgram keyPair(int even, int odd, int len, int out) {
    return memo(List.of("keyPair", even, odd, len, out), () -> KeyPairs.compile(this, even, odd, len, out));
  }

  /** A line of slots' K codes transposed, {@code c} dimensions of them ({@link KeyBlocks#program}). */
  DspProgram keyBlock(int line, int count, int c, int in, int out) {
    return memo(List.of("keyBlock", line, count, c, in, out),
        () -> KeyBlocks.program(this, line, lanes, count, c, in, out));
  }

  /** Row {@code row} moved {@code shift} lanes down in place, zeros above ({@link DspRowPrograms#shiftDown}). */
  DspProgram shiftDown(int row, int shift) {
    return memo(List.of("shiftDown", row, shift), () -> rowPrograms.shiftDown(row, shift));
  }

  /**
   * Heads read with {@code lead} columns before their results ({@link HeadWindows}), each at row {@code row + i·hdRows}
   * for i below {@code heads}: each moved down {@code lead} lanes ({@link #shiftDown}); none where {@code lead} is 0.
   */
  List<DspProgram> headsDown(int row, int hdRows, int heads, int lead) {
    return lead == 0 ? List.of()
        : java.util.stream.IntStream.range(0, heads).mapToObj(i -> shiftDown(row + i * hdRows, lead)).toList();
  }

  /** See the class comment. */
  DspProgram scatter(int in, int heads, int half, int out) {
    return memo(List.of("scatter", in, heads, half, out), () -> rowPrograms.scatter(in, heads, half, out));
  }

  /** See the class comment. */
  DspProgram sumPartials(int in, int parts, int partRows, int len, int scales, int out) {
    return memo(List.of("sumPartials", in, parts, partRows, len, scales, out),
        () -> rowPrograms.sumPartials(in, parts, partRows, len, scales, out));
  }

  /**
   * Copies the first {@code len} elements of the buffer rows from row {@code from} to those from row {@code to} (a
   * loop of LD/ST over {@code rows(len)} rows, the last row's lanes past {@code len} left as they were).
   */
  DspProgram moveElements(int from, int len, int to) {
    return memo(List.of("moveElements", from, len, to), () -> {
      DspAssembler a = new DspAssembler();
      a.setLength(len);
      int rows = rows(len);
      if (rows == 1) {
        a.load(1, from).store(to, 1);
      } else {
        a.loop(rows, () -> a.load(1, from).store(to, 1));
      }
      return a.finish("move " + len + " @" + from + "->" + to);
    });
  }

  /**
   * Whether a block of {@code tokens} tokens keeps the programs {@code pinned} (the same for every token) in the program
   * memory beside a per-token program of up to {@code otherWords} words ({@link CommandStream#dspRunPinned}): one
   * {@code dspld} a layer and a resident run a token instead of loading them with every token's run. Only for two
   * tokens or more (for one, the load and the second command cost more than they save: stories260K's decode step
   * 49,995 → 50,255 cycles) and when the joined program and the other fit the program memory together.
   */
  boolean pins(int tokens, List<DspProgram> pinned, int otherWords) {
    if (tokens < 2) {
      return false;
    }
    DspProgram run = pinned.size() == 1 ? pinned.get(0) : DspChain.join(pinned);
    return run.size() + otherWords <= programDepth;
  }

  /** Words of the DSP's program memory. */
  int programDepth() {
    return programDepth;
  }

  int lanes() {
    return lanes;
  }

  int rows(int elements) {
    return (elements + lanes - 1) / lanes;
  }

  /** A compiled kernel whose inputs start at {@code in[i]} and outputs at {@code out[i]}. */
  private DspProgram compileKernel(DspKernel kernel, int len, int[] in, int[] out) {
    DspProgram p = DspKernels.compile(kernel, len, lanes, eps, DspMath.DEFAULT, options);
    DspLayout layout = new DspLayout(kernel, len, lanes);
    List<DspInstruction> code = new ArrayList<>();
    for (DspInstruction i : p.instructions()) {
      if (i.op() == DspOp.LD || i.op() == DspOp.ST) {
        code.add(new DspInstruction(i.op(), i.rd(), i.ra(), i.rb(), i.rc(), i.masked(), i.aux(),
            relocate(layout, i.imm(), in, out)));
      } else {
        code.add(i);
      }
    }
    return new DspProgram(p.name() + " @" + java.util.Arrays.toString(in) + "->" + java.util.Arrays.toString(out),
        code);
  }

  private static int relocate(DspLayout layout, int row, int[] in, int[] out) {
    for (int i = 0; i < in.length; i++) {
      int base = layout.inputBase(i);
      if (row >= base && row < base + layout.inputRows()) {
        return in[i] + row - base;
      }
    }
    for (int i = 0; i < out.length; i++) {
      int base = layout.outputBase(i);
      if (row >= base && row < base + layout.outputRows()) {
        return out[i] + row - base;
      }
    }
    throw new IllegalStateException("kernel row " + row + " belongs to no operand");
  }

  /**
   * Dynamic INT8 quantization of {@code len} elements at {@code in} (times the vector at {@code vec}
   * when {@code vec ≥ 0}): codes to {@code out}, the dequantization scale {@code absmax/127} to
   * every lane of row {@code scaleRow}.
   */
  DspProgram quantize(int in, int len, int vec, int out, int scaleRow) {
    return quantize(List.of(new DspQuantizer.Vector(in, len, vec, out, scaleRow)));
  }

  /** Dynamic INT8 quantization of one to three vectors in one run ({@link DspQuantizer}): the results of separate runs. */
  private DspProgram compileQuantize(List<DspQuantizer.Vector> vectors) {
    return new DspQuantizer(this, lanes).program(vectors);
  }

  /**
   * The runs that quantize {@code vectors}: one program for all when it fits the DSP's program memory,
   * else one per vector (same results either way).
   */
  List<DspProgram> quantizeRuns(List<DspQuantizer.Vector> vectors) {
    DspProgram all = quantize(vectors);
    if (all.size() <= programDepth) {
      return List.of(all);
    }
    List<DspProgram> each = new ArrayList<>();
    for (DspQuantizer.Vector v : vectors) {
      each.add(quantize(List.of(v)));
    }
    return each;
  }

  /** The runs of {@code programs}: merged programs where they differ only in their rows ({@link DspMerge}). */
  private List<DspProgram> compileMerged(List<DspProgram> programs) {
    return DspMerge.mergeRuns(programs, programDepth);
  }

  /**
   * As {@link #merged}, for compiled kernels: each straight-line first, its registers reallocated to as few as
   * its live values need ({@link DspMerge#compact}), so that copies fit; as they are when one has a loop.
   */
  private List<DspProgram> compileMergedKernels(List<DspProgram> programs) {
    List<DspProgram> compact = new ArrayList<>();
    for (DspProgram p : programs) {
      DspProgram c = DspMerge.compact(p, lanes);
      if (c == null) {
        return programs;
      }
      compact.add(c);
    }
    List<DspProgram> runs = DspMerge.mergeRuns(compact, programDepth);
    if (runs.size() == programs.size()) {
      return programs;
    }
    // a program that merged with none runs as compiled (its loops rolled: fewer words to load)
    List<DspProgram> out = new ArrayList<>();
    for (DspProgram run : runs) {
      int alone = compact.indexOf(run);
      out.add(alone >= 0 ? programs.get(alone) : run);
    }
    return out;
  }

  int executeStages() {
    return pipeline.executeStages();
  }

  DspPipeline pipeline() {
    return pipeline;
  }

  /** As {@link DspRowPrograms#rowPass(DspAssembler, int, int, List, boolean, Runnable)}. */
  void rowPass(DspAssembler a, int rows, int len, List<Integer> free, boolean interleave, Runnable body) {
    rowPrograms.rowPass(a, rows, len, free, interleave, body);
  }

  /** As {@link DspRowPrograms#rowPass(DspAssembler, int, int, List, int, Runnable)}. */
  void rowPass(DspAssembler a, int rows, int len, List<Integer> free, int copies, Runnable body) {
    rowPrograms.rowPass(a, rows, len, free, copies, body);
  }

  /** Rows a row pass interleaves on this DSP ({@link DspKernels.Options#interleaveRows()}). */
  int interleaveRows() {
    return options.interleaveRows();
  }

}
