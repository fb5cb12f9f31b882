package org.llmnpu.sw.lower;

import java.util.ArrayList;
import java.util.List;
import org.llmnpu.isa.Command;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.isa.dsp.DspAssembler;
import org.llmnpu.isa.dsp.DspOp;
import org.llmnpu.isa.dsp.DspPermutations;
import org.llmnpu.isa.dsp.DspProgram;

/**
 * Writes a line of slots' columns of a K cache held transposed ({@code Kᵀ}: kvDim rows of slot codes, row {@code d} at
 * {@code kT + d·kTStride}, slot j at byte j) on an NPU whose Vector DSP has the buffer permutations
 * ({@code dspPermute}, {@link MachineParams.DspParams#permute}): the alternative to {@link KeyColumns}' pairs of
 * one-element rows (issue 32, sw-stack README <i>Scores against Kᵀ</i>).
 *
 * <p>Per chunk of c dimensions (c = lanes·2^k, a multiple of the line, {@link #columns}): the line's {@code count}
 * K rows' c codes come in ({@code dspin} INT8: count rows of c FP16 values, token t at buffer element
 * {@code in·lanes + t·c}), one {@code dsprun} ({@link #program}) makes them codes again ({@code TOINT} INT8 at scale 1:
 * the raw element's low byte is the code), writes 0 into the rows of the line's {@code line − count} later slots and
 * transposes the line×c matrix ({@link DspPermutations#transpose}: lanes×lanes blocks by {@code LDS}/{@code ROT}/
 * {@code STS}) into c rows of {@code line} elements at {@code out}, and a {@code dspout} INT8 writes them as c rows of
 * Kᵀ, a whole line each. The codes are moved, never converted: {@code Kᵀ[d][first + t]} equals byte d of token t's K
 * row bit for bit for t &lt; count; the line's later slots read 0 until their tokens' line is written (the pairs
 * leave them unchanged; no scores read them: a query's scores take its causal slots only).
 *
 * <p><b>Cycles</b> per chunk (E the elements a copy moves a cycle, {@code dspCopyCycles}): the {@code dspin}
 * {@code count·ceil(c/E_INT8)}, the run's program ({@code DspProgram#cycles}: a row pass of {@code count·c/lanes} rows
 * of LD, TOINT, ST interleaved; {@code (line − count)·c/lanes} stores; {@code 1 + (line/lanes)·(c/lanes)·(3·lanes + 1)}
 * for the transpose) and the {@code dspout} {@code c·ceil(line/E_INT8)}. LLaMA-2-7B on edge-64 + {@code dspPermute}
 * (line = lanes = 64, kvDim 4,096, chunks of 512, 8 a line of slots): a 256-token layer's "QKV scale, RoPE, K/V out"
 * 2,413,833 → 1,397,811 cycles, the layer 21,531,482 → 20,515,460 ({@code PrefillProfileBench}, 2026-12-06).
 */
public final class KeyBlocks {
  private static final short ONE = (short) 0x3C00;
  private static final List<Integer> FREE = free();

  private final int line;
  private final int lanes;
  private final int kvDim;
  private final int columns;

  /**
   * @param dspRows free DSP rows from the chunk's input row (its input and output matrices, {@code 2·line·c/lanes})
   */
  KeyBlocks(MachineParams p, int kvDim, int dspRows) {
    this.line = p.lineBytes();
    this.lanes = p.dsp().lanes();
    this.kvDim = kvDim;
    this.columns = columns(p, kvDim, dspRows);
    if (columns == 0) {
      throw new IllegalArgumentException("KeyBlocks needs a DSP with permute, the line (" + line + ") a multiple of the"
          + " lanes (" + lanes + "), kvDim (" + kvDim + ") a multiple of the line and " + dspRows + " free DSP rows"
          + " holding two line×line matrices");
    }
  }

  private static List<Integer> free() {
    List<Integer> r = new ArrayList<>();
    for (int i = 8; i <= 31; i++) {
      r.add(i);
    }
    return r;
  }

  /**
   * The dimensions a chunk transposes: the largest lanes·2^k that is a multiple of the line, divides kvDim's chunks
   * evenly (kvDim a multiple of it), at most kvDim and {@link MachineParams#MAX_DMA_ROWS}, and whose line×c input and
   * c×line output fit {@code dspRows}; 0 where Kᵀ cannot go by blocks: a DSP without permute, a line not a multiple
   * of the lanes, kvDim not a multiple of the line, or too few rows.
   */
  public static int columns(MachineParams p, int kvDim, int dspRows) {
    int line = p.lineBytes();
    int lanes = p.dsp().lanes();
    if (!p.dsp().permute() || line % lanes != 0 || kvDim < line || kvDim % line != 0) {
      return 0;
    }
    int best = 0;
    for (long c = line; c <= kvDim && c <= MachineParams.MAX_DMA_ROWS; c *= 2) {
      if (kvDim % c == 0 && 2L * line * c / lanes <= dspRows) {
        best = (int) c;
      }
    }
    return best;
  }

  /** Dimensions a chunk transposes ({@link #columns}). */
  int columns() {
    return columns;
  }

  /**
   * The line of slots from {@code first} (a multiple of the line): its first {@code count} slots' K rows (kvDim INT8
   * codes at scratchpad {@code kRow0 + t·kRowStride}, line-aligned) written as Kᵀ columns {@code first .. first + line
   * − 1}, through DSP rows from {@code in} (the chunk's input; its output follows it).
   */
  void write(CommandStream b, DspRoutines r, long kRow0, long kRowStride, int count, int in, long kT, long kTStride,
             int first) {
    if (count < 1 || count > line || first % line != 0 || kT % line != 0 || kTStride % line != 0) {
      throw new IllegalArgumentException("KeyBlocks writes 1.." + line + " slots from a line: count " + count
          + ", first slot " + first + ", Kᵀ " + kT + ", stride " + kTStride + " (multiples of " + line + ")");
    }
    int out = in + line * columns / lanes;
    DspProgram program = r.keyBlock(line, count, columns, in, out);
    for (int d0 = 0; d0 < kvDim; d0 += columns) {
      b.dspIn(kRow0 + d0, kRowStride, columns, count, in, Command.FMT_INT8, 0);
      b.dspRun(program);
      b.dspOut(kT + first + (long) d0 * kTStride, kTStride, line, columns, out, Command.FMT_INT8);
    }
  }

  /**
   * {@link #write}'s commands appended to {@code program} (for programs outside a lowered model: tests, tools): DSP
   * programs placed by {@code pool}, compiled for {@code p}'s DSP.
   *
   * @throws IllegalArgumentException where {@link #columns} is 0 or the slots are not a line's
   */
  public static void emit(org.llmnpu.isa.Program.Builder program, java.util.function.ToLongFunction<DspProgram> pool,
                          MachineParams p, int kvDim, int dspRows, long kRow0, long kRowStride, int count, int in,
                          long kT, long kTStride, int first) {
    CommandStream b = new CommandStream(CommandStream.program(program), pool, p.dsp().programDepth(), false);
    new KeyBlocks(p, kvDim, dspRows).write(b, new DspRoutines(p.dsp(), 1e-5f), kRow0, kRowStride, count, in, kT,
        kTStride, first);
  }

  /**
   * The chunk's run: {@code count} rows of c code values at DSP row {@code in} made INT8 codes in place, the rows of
   * the {@code line − count} later slots set to 0, the line×c matrix transposed to row {@code out}.
   */
  static DspProgram program(DspRoutines r, int line, int lanes, int count, int c, int in, int out) {
    DspAssembler a = new DspAssembler();
    final int one = 1;
    final int x = 2;
    final int zero = 3;
    int len = count * c;
    a.li(one, ONE & 0xFFFF).setLength(len);
    r.rowPass(a, len / lanes, len, FREE, true, () -> {
      a.load(x, in);
      a.aux(DspOp.TOINT, 0, x, x, one);
      a.store(in, x);
    });
    int later = (line - count) * c / lanes;
    if (later > 0) {
      a.li(zero, 0);
      for (int done = 0; done < later; done += 0xFFFF) {
        int at = in + len / lanes + done;
        a.loop(Math.min(0xFFFF, later - done), () -> a.emit(DspOp.ST, 0, zero, 0, 0, false, 0, at));
      }
    }
    DspPermutations.transpose(a, line, c, lanes, in, out);
    return a.finish("keyBlock " + count + "x" + c + " @" + in + "->" + out);
  }
}
