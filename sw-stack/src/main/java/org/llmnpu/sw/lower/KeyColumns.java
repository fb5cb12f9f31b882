package org.llmnpu.sw.lower;

import org.llmnpu.isa.Command;
import org.llmnpu.isa.MachineParams;

/**
 * Writes a prefill block's columns of a K cache held transposed ({@code Kᵀ}: kvDim rows of slot codes, row
 * {@code d} at {@code kT + d·kTStride}, slot j at byte j), the W operand of scores {@code S = Q·Kᵀ} (issue 32; used a
 * line of slots at a time by {@link TransposedKeys}, sw-stack README <i>Scores against Kᵀ</i>).
 *
 * <p>A token's K codes are a <i>column</i> of {@code Kᵀ} (byte {@code slot} of every row), and every scratchpad
 * address a {@code dspout} takes is line-aligned, so no command writes one column: the block's columns go through a
 * staging region of one code a line. {@link #scatter}: token t's kvDim codes (DSP {@code TOINT} results, flat) to
 * lines {@code d·n + t} (one {@code dspout} of kvDim one-element FP16 rows, the codes' raw 16 bits, stride
 * {@code n} lines). {@link #write}: the block's {@code kvDim·n} lines gathered flat {@code [d][t]} ({@code dspin}
 * FP16, copied) and written as kvDim rows of n INT8 codes (the low byte of each {@code TOINT} result) at the block's
 * first slot, which must start a line; in chunks of rows that a command's row count and the DSP buffer hold. The
 * codes are copied, never converted: {@code Kᵀ[d][first + t]} equals token t's code d bit for bit. An earlier
 * token's codes, already INT8 in its K row, join a block through {@link #restage}.
 *
 * <p>Cycles (the cycle model's {@code dspCopyCycles}: one-element rows cost a cycle each): a token's scatter kvDim,
 * the write {@code kvDim·n} for the gather plus {@code kvDim·ceil(n / E)} for the rows, E the INT8 elements a
 * {@code dspout} moves a cycle.
 */
final class KeyColumns {
  private final int line;
  private final int kvDim;
  private final long stage;
  private final int maxTokens;
  private final int dspElements;

  /**
   * @param stage       line-aligned scratchpad address of the staging region ({@link #stageBytes} bytes)
   * @param maxTokens   the most tokens of a block (the staging region's width)
   * @param dspElements free DSP buffer elements at the gather's destination row (a chunk's {@code rows·n} codes)
   */
  KeyColumns(MachineParams p, int kvDim, long stage, int maxTokens, int dspElements) {
    this.line = p.lineBytes();
    this.kvDim = kvDim;
    this.stage = stage;
    this.maxTokens = maxTokens;
    this.dspElements = dspElements;
    if (stage % line != 0) {
      throw new IllegalArgumentException("KeyColumns stage " + stage + " is not line-aligned (line " + line + ")");
    }
    if (kvDim < 1 || maxTokens < 1 || (long) kvDim > MachineParams.MAX_DMA_ROWS || dspElements < maxTokens) {
      throw new IllegalArgumentException("KeyColumns needs 1 <= kvDim <= " + MachineParams.MAX_DMA_ROWS
          + ", maxTokens >= 1 and dspElements >= maxTokens, got kvDim " + kvDim + ", maxTokens " + maxTokens
          + ", dspElements " + dspElements);
    }
  }

  /** Scratchpad bytes of the staging region: a line per code of a block. */
  static long stageBytes(MachineParams p, int kvDim, int maxTokens) {
    return (long) kvDim * maxTokens * p.lineBytes();
  }

  /** Token t (of a block of n) codes, flat from DSP row {@code src}, to staging lines {@code d·n + t}. */
  void scatter(CommandStream b, int t, int n, int src) {
    check(n);
    if (t < 0 || t >= n) {
      throw new IllegalArgumentException("KeyColumns token " + t + " outside the block's 0.." + (n - 1));
    }
    b.dspOut(stage + (long) t * line, (long) n * line, 1, kvDim, src, Command.FMT_FP16);
  }

  /**
   * The block's n scattered tokens written as {@code Kᵀ} columns {@code first .. first + n − 1} ({@code first} a
   * multiple of the line), through DSP rows from {@code dst}.
   */
  void write(CommandStream b, int n, int dst, long kT, long kTStride, int first) {
    check(n);
    if (first % line != 0 || kT % line != 0 || kTStride % line != 0) {
      throw new IllegalArgumentException("KeyColumns writes from a line: first slot " + first + ", Kᵀ " + kT
          + ", stride " + kTStride + " must be multiples of " + line);
    }
    int rows = (int) Math.min(kvDim, Math.min(MachineParams.MAX_DMA_ROWS / n, dspElements / n));
    for (int d0 = 0; d0 < kvDim; d0 += rows) {
      int dc = Math.min(rows, kvDim - d0);
      b.dspIn(stage + (long) d0 * n * line, line, 1, (long) dc * n, dst, Command.FMT_FP16, 0);
      b.dspOut(kT + first + (long) d0 * kTStride, kTStride, n, dc, dst, Command.FMT_INT8);
    }
  }

  /**
   * An earlier token's K row (kvDim INT8 codes at scratchpad {@code kRow}, line-aligned) staged as token t of a block
   * of n: for a block that starts inside a line of slots (Kᵀ takes whole lines, so that line's earlier tokens are
   * written again) or a decode step that completes a line group. The row comes in as INT8 values ({@code dspin} to
   * DSP row {@code row}), a {@code TOINT} pass with scale 1 ({@link DspRoutines#quantizeStatic}: the same codes, now
   * {@code TOINT} results as a fresh token's) writes them to {@code out} (broadcasting 1.0 to the free row
   * {@code scaleRow}), then {@link #scatter}. Cycles: the row's {@code dspin}, the run, the scatter's kvDim.
   */
  void restage(CommandStream b, DspRoutines r, long kRow, int t, int n, int row, int out, int scaleRow) {
    b.dspIn(kRow, line, kvDim, 1, row, Command.FMT_INT8, 0);
    b.dspRun(r.quantizeStatic(row, kvDim, -1, ONE, out, scaleRow, ONE));
    scatter(b, t, n, out);
  }

  private static final short ONE = (short) 0x3C00;

  private void check(int n) {
    if (n < 1 || n > maxTokens) {
      throw new IllegalArgumentException("KeyColumns block of " + n + " tokens, allowed 1.." + maxTokens);
    }
  }
}
