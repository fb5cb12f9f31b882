package org.llmnpu.sw.lower;

import org.llmnpu.isa.Command;
import org.llmnpu.isa.MachineParams;

/**
 * Writes a prefill block's columns of a K cache held transposed ({@code Kᵀ}: kvDim rows of slot codes, row
 * {@code d} at {@code kT + d·kTStride}, slot j at byte j), the W operand of scores {@code S = Q·Kᵀ} (issue 32; used a
 * line of slots at a time by {@link TransposedKeys}, sw-stack README <i>Scores against Kᵀ</i>).
 *
 * <p>A token's K codes are a <i>column</i> of {@code Kᵀ} (byte {@code slot} of every row), and every scratchpad
 * address a {@code dspout} takes is line-aligned, so no command writes one column: the columns go through a staging
 * region of one FP16 element a line, and each element carries <b>two</b> columns ({@link KeyPairs}): slots
 * {@code 2j} and {@code 2j + 1} of the block. {@link #pairs}: the slots' K rows (INT8 codes, in the scratchpad's
 * K cache) come in ({@code dspin} INT8, the even and the odd ones of up to as many pairs as the DSP rows hold), a
 * {@code dsprun} packs them (the even slot's code in the low byte, the odd one's in the high byte), a pair's
 * {@code dspout} of kvDim one-element FP16 rows writes them to staging lines {@code d·P + j} ({@code P = ceil(n/2)}
 * pairs). {@link #write}: the block's {@code kvDim·P} lines gathered
 * flat {@code [d][j]} ({@code dspin} FP16, raw) and written as kvDim rows of P FP16 elements at the block's first
 * slot, which must start a line: their bytes are the n codes in slot order. An odd n would write one byte past the
 * block, so there the gathered rows go once through the staging ({@code dspout} FP16, {@code dspin} INT8 of n codes:
 * their values), a scale-1 {@code TOINT} run makes them codes again and a {@code dspout} INT8 writes n bytes a row.
 * Chunks of rows that a command's row count and the DSP buffer hold. The codes are copied, never converted:
 * {@code Kᵀ[d][first + t]} equals byte d of token t's K row bit for bit.
 *
 * <p>Cycles (the cycle model's {@code dspCopyCycles}: one-element rows cost a cycle each; E the elements a copy
 * moves a cycle): a pair {@code 2·ceil(kvDim/E_INT8)} for its K rows, its part of the pack run, kvDim for the
 * staging; the write {@code kvDim·P} for the gather plus {@code kvDim·ceil(P/E_FP16)} for the rows (odd n: plus the
 * staging round trip, the run and {@code kvDim·ceil(n/E_INT8)}). Against one code a staging line, the one-element
 * rows (the bulk) are halved.
 */
final class KeyColumns {
  private final int line;
  private final int lanes;
  private final int kvDim;
  private final long stage;
  private final int maxTokens;
  private final int dspElements;

  /**
   * @param stage       line-aligned scratchpad address of the staging region ({@link #stageBytes} bytes)
   * @param maxTokens   the most tokens of a block (the staging region holds their pairs)
   * @param dspElements free DSP buffer elements at the gather's destination row (a chunk's {@code rows·n} codes)
   */
  KeyColumns(MachineParams p, int kvDim, long stage, int maxTokens, int dspElements) {
    this.line = p.lineBytes();
    this.lanes = p.dsp().lanes();
    this.kvDim = kvDim;
    this.stage = stage;
    this.maxTokens = maxTokens;
    this.dspElements = dspElements;
    if (stage % line != 0) {
      throw new IllegalArgumentException("KeyColumns stage " + stage + " is not line-aligned (line " + line + ")");
    }
    if (kvDim < 1 || maxTokens < 1 || (long) kvDim > MachineParams.MAX_DMA_ROWS
        || (long) (dspElements / lanes - 1) * lanes < 2L * pairs(maxTokens)) {
      throw new IllegalArgumentException("KeyColumns needs 1 <= kvDim <= " + MachineParams.MAX_DMA_ROWS
          + ", maxTokens >= 1 and dspElements >= lanes + 2·ceil(maxTokens/2) in whole rows, got kvDim " + kvDim
          + ", maxTokens " + maxTokens + ", dspElements " + dspElements);
    }
  }

  /** Scratchpad bytes of the staging region: a line per pair of codes of a block. */
  static long stageBytes(MachineParams p, int kvDim, int maxTokens) {
    return (long) kvDim * pairs(maxTokens) * p.lineBytes();
  }

  /** The pairs of slots of a block of n: {@code ceil(n/2)}. */
  static int pairs(int n) {
    return (n + 1) / 2;
  }

  /**
   * Pairs {@code j0 .. j0 + k − 1} of a block of n (pair j: slots {@code 2j}, {@code 2j + 1}): slot s's K row (kvDim
   * INT8 codes) at scratchpad {@code kRow0 + (s − 2·j0)·kRowStride} (line-aligned); the even slots' rows come in to
   * DSP rows from {@code even}, the odd ones' from {@code odd} (one {@code dspin} each, a K row every
   * {@code rows(kvDim)} DSP rows), one run packs them ({@link KeyPairs}) and each pair goes to staging lines
   * {@code d·P + j}. Several pairs at once need kvDim a multiple of the lanes; the lone last slot of an odd n goes
   * alone ({@code k = 1}, no odd row).
   */
  void pairs(CommandStream b, DspRoutines r, long kRow0, long kRowStride, int j0, int k, int n, int even, int odd) {
    check(n);
    boolean lone = 2 * (j0 + k) > n;
    if (j0 < 0 || k < 1 || 2 * (j0 + k - 1) >= n || lone && k != 1 || k > 1 && kvDim % lanes != 0) {
      throw new IllegalArgumentException("KeyColumns pairs " + j0 + ".." + (j0 + k - 1) + " of a block of " + n
          + " tokens: allowed within 0.." + (pairs(n) - 1) + ", a lone last slot alone, several pairs only with kvDim "
          + kvDim + " a multiple of the lanes " + lanes);
    }
    b.dspIn(kRow0, 2 * kRowStride, kvDim, k, even, Command.FMT_INT8, 0);
    if (!lone) {
      b.dspIn(kRow0 + kRowStride, 2 * kRowStride, kvDim, k, odd, Command.FMT_INT8, 0);
    }
    b.dspRun(r.keyPair(even, lone ? -1 : odd, k * kvDim, even));
    for (int i = 0; i < k; i++) {
      b.dspOut(stage + (long) (j0 + i) * line, (long) pairs(n) * line, 1, kvDim, even + i * (kvDim / lanes),
          Command.FMT_FP16);
    }
  }

  /**
   * The block's n staged codes written as {@code Kᵀ} columns {@code first .. first + n − 1} ({@code first} a
   * multiple of the line), through DSP rows from {@code dst}.
   */
  void write(CommandStream b, DspRoutines r, int n, int dst, long kT, long kTStride, int first) {
    check(n);
    if (first % line != 0 || kT % line != 0 || kTStride % line != 0) {
      throw new IllegalArgumentException("KeyColumns writes from a line: first slot " + first + ", Kᵀ " + kT
          + ", stride " + kTStride + " must be multiples of " + line);
    }
    int p = pairs(n);
    boolean odd = n % 2 == 1;
    // an odd block's codes take a row of their own after a chunk's for the unpacking run's scale
    long budget = odd ? (long) (dspElements / lanes - 1) * lanes : dspElements;
    int rows = (int) Math.min(kvDim, Math.min(MachineParams.MAX_DMA_ROWS / p, budget / (2L * p)));
    long unpackStride = LoweredModel.roundUp(2 * p, line);
    for (int d0 = 0; d0 < kvDim; d0 += rows) {
      int dc = Math.min(rows, kvDim - d0);
      long lines = stage + (long) d0 * p * line;
      b.dspIn(lines, line, 1, (long) dc * p, dst, Command.FMT_FP16, 0);
      if (!odd) {
        b.dspOut(kT + first + (long) d0 * kTStride, kTStride, p, dc, dst, Command.FMT_FP16);
        continue;
      }
      // the chunk's staging lines are read: its rows of pairs go there, come back as n code values a row
      b.dspOut(lines, unpackStride, p, dc, dst, Command.FMT_FP16);
      b.dspIn(lines, unpackStride, n, dc, dst, Command.FMT_INT8, 0);
      b.dspRun(r.quantizeStatic(dst, dc * n, -1, ONE, dst, dst + r.rows(dc * n), ONE));
      b.dspOut(kT + first + (long) d0 * kTStride, kTStride, n, dc, dst, Command.FMT_INT8);
    }
  }

  private static final short ONE = (short) 0x3C00;

  private void check(int n) {
    if (n < 1 || n > maxTokens) {
      throw new IllegalArgumentException("KeyColumns block of " + n + " tokens, allowed 1.." + maxTokens);
    }
  }
}
