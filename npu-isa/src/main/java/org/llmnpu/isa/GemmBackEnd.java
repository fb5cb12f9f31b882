package org.llmnpu.isa;

/**
 * {@link CycleModel}'s GEMM back-end: the array run and the result drain of the GEMM that overlaps with the commands
 * after it, the W stream of a streamed GEMM ({@code wStream=1}), and the state the dispatch rules read (is a GEMM
 * pending, when may its drain start, which scratchpad bytes are its results, which PPM bank it reads, when is the W
 * stream done). It counts {@code gemmCycles} and {@code arrayCycles}. The cycle formulas are {@link CycleModel}'s
 * ("gemm", "gemm N:M", "gemm wStream", "gemm ppm").
 */
final class GemmBackEnd {
  /** The controller's beat issue: {@code n} beats at least {@code gap} cycles apart; returns the last beat's cycle. */
  @FunctionalInterface
  interface BeatIssue {
    long issue(long n, int gap);
  }

  private final MachineParams p;
  private final EngineTiming engine;
  private long gemmCycles;
  private long arrayCycles;
  private boolean pending;
  private long backStart;
  private long drainCandidate;
  private long drainLines;
  /** The pending GEMM's M and N (a drain through a {@link MachineParams#ppmWide} PPM takes {@code M·ceil(N/line)} lines). */
  private long drainM;
  private long drainN;
  /** Cycles the back-end stays busy after its last drain line: the PPM latency for a GEMM with {@code ppm=1}. */
  private long drainTail;
  /**
   * The first cycle in which no streamed GEMM's W stream runs (the cycle after its last W write, {@code a_{n−1} + 1});
   * until then it holds the memory port and the DMA's walks, and only a {@code dspin} or {@code dspout} goes.
   */
  private long streamFree;
  private long resultStart;
  private long resultEnd;
  /** The parameter bank the pending GEMM's PPM reads, −1 when its results do not go through the PPM. */
  private int ppmBank = -1;
  /** The pending GEMM's drain reads Y over the scratchpad's read port ({@code accumulate=1} or {@code gate=1}). */
  private boolean drainReads;

  GemmBackEnd(MachineParams p, EngineTiming engine) {
    this.p = p;
    this.engine = engine;
  }

  boolean pending() {
    return pending;
  }

  /** The cycle in which the pending GEMM's drain may start (if no later command holds it). */
  long drainCandidate() {
    return drainCandidate;
  }

  long streamFree() {
    return streamFree;
  }

  int ppmBank() {
    return ppmBank;
  }

  long gemmCycles() {
    return gemmCycles;
  }

  long arrayCycles() {
    return arrayCycles;
  }

  /**
   * A command writes the scratchpad in cycles [{@code start}, {@code end}) (a {@code load}, {@code load4} or
   * {@code dspout}): a drain that would start in that window starts at {@code end}.
   */
  void holdDrain(long start, long end) {
    if (pending && drainCandidate >= start && drainCandidate < end) {
      drainCandidate = end;
    }
  }

  /**
   * A DSP copy has the scratchpad's port in cycles [{@code start}, {@code end}) that the pending drain would use (the
   * RTL's drain pauses while the copy holds the port): a drain that would start in that window starts at
   * {@code end} ({@link #holdDrain}); a drain that started before it and whose lines (cycles
   * {@code drainCandidate + 1 .. drainCandidate + drainLines}) reach into it pauses there, so its remaining lines come
   * {@code end − start} cycles later. A drain through the PPM pauses its feed (its codes in flight still land, in the
   * {@code L} cycles after their lines): its tail follows its last fed line as before; a {@code dspout} beside it
   * holds it from its decode cycle ({@link #codesLanded}).
   */
  void shareDrain(long start, long end) {
    if (!pending || end <= start) {
      return;
    }
    if (drainCandidate >= start && drainCandidate < end) {
      drainCandidate = end;
    } else if (drainCandidate < start && start <= drainCandidate + drainLines) {
      drainLines += end - start;
    }
  }

  /**
   * The first cycle {@code t ≥ decode} after which no code of the pending drain through the PPM lands: its feed stops
   * from {@code decode} (a {@code dspout} waits beside it), so its last line fed is
   * {@code f = min(decode − 1, drainCandidate + drainLines)}, whose codes are written in {@code f + L}:
   * {@code t = max(decode, f + L)}, or {@code decode} when no line was fed before it (the drain starts in
   * {@code decode − 1} or later). A {@code dspout} dispatched in {@code t} writes from {@code t + 1}.
   */
  long codesLanded(long decode) {
    if (!drainsThroughPpm() || drainCandidate >= decode - 1) {
      return decode;
    }
    long lastFed = Math.min(decode - 1, drainCandidate + drainLines);
    return Math.max(decode, lastFed + drainTail);
  }

  /** The pending GEMM drains through the PPM ({@code gemm ppm=1}): its codes land on the write port. */
  boolean drainsThroughPpm() {
    return pending && ppmBank >= 0;
  }

  /** Resolves a pending back-end run: its drain starts at the candidate cycle; returns the first idle cycle. */
  long finish(long now) {
    if (!pending) {
      return now;
    }
    long drainStart = drainCandidate;
    gemmCycles += (drainStart - backStart) + drainLines + drainTail;
    pending = false;
    long idle = drainStart + drainLines + drainTail + 1;
    drainTail = 0;
    return idle;
  }

  /** See {@link CycleModel#backEndIdleFrom()}. */
  long idleFrom(long now) {
    return pending ? drainCandidate + drainLines + drainTail + 1 : now;
  }

  boolean resultsOverlap(long start, long end) {
    return pending && start < resultEnd && resultStart < end;
  }

  /** The pending GEMM's drain reads its Y lines over the scratchpad's read port (it accumulates or gates). */
  boolean drainReads() {
    return pending && drainReads;
  }

  /** See {@link CycleModel#drainReadsY()}. */
  void drainReadsY() {
    drainReads = true;
  }

  void results(long yStart, long yEnd) {
    resultStart = yStart;
    resultEnd = yEnd;
  }

  /** See {@link CycleModel#drainThroughPpm(int)}. */
  void drainThroughPpm(int bank) {
    drainTail = p.ppmLatency();
    drainLines = p.ppmDrainLines(drainM, drainN);
    ppmBank = bank;
  }

  /**
   * A GEMM from cycle {@code now} with a W copy of {@code wRows} rows, after its X copy of {@code M·ceil(K/rows)} lines
   * unless {@code keepX} ({@code xKeep=1}: X is in the engine's buffer); returns the controller's next cycle.
   */
  long gemm(long now, int m, int k, int n, int wRows, boolean sparse, boolean keepX) {
    int line = p.lineBytes();
    long kTiles = (k + (long) p.rows() - 1) / p.rows();
    long engineRun = sparse
        ? CycleFormulas.engineCyclesOverKTiles(p.rows(), p.rows(), p.mTile(), m,
            (k + 2L * p.rows() - 1) / (2L * p.rows()), n)
        : engine.engineCycles(p, m, k, n);
    long copy = (keepX ? 0 : m * kTiles) + CycleFormulas.weightCopyCycles(p, wRows, n);
    backStart = now + copy;
    drainCandidate = backStart + 1 + engineRun;
    drainLines = m * ((4L * n + line - 1) / line);
    drainM = m;
    drainN = n;
    pending = true;
    ppmBank = -1;
    drainReads = false;
    gemmCycles += copy + 1;
    arrayCycles += engineRun + 1;
    return backStart + 1;
  }

  /**
   * A GEMM whose W streams from the memory ({@code wStream=1}; {@code int4}: {@code wInt4=1}) straight into the
   * engine's W buffer: the engine starts in the X copy's first cycle {@code e} (the command's first cycle,
   * {@code backStart}); the controller copies the {@code M·ceil(K/rows)} X lines K tile by K tile (line
   * {@code kt·M + m} in cycle {@code e + kt·M + m}), then GEMM_START (one cycle); the W stream runs beside the X copy:
   * from {@code e} it issues the {@code n = C·K} W beats ({@code C} beat
   * columns of {@code line} bytes a W row: {@code ceil(N/line)}, INT4 {@code ceil(ceil(N/2)/line)}) column by
   * column, rows k in order: {@code t_i = max(e, memFree) + i·max(I, g)}, {@code g} = 1 (INT8, and INT4 on a dense
   * array, whose W buffer writes an INT4 beat's two rows in one cycle: {@link CycleFormulas#int4PairWrites}), INT4 on an N:M
   * array 2 (the second row one cycle after the beat arrives). Beat {@code i = c·K + k} is in the buffer after
   * cycle {@code a_i = t_i + lat} (INT4 on an N:M array {@code + 1}); pass j of N tile {@code nt} and K tile {@code kt}
   * needs beat {@code (nt / T)·K + min(K, (kt + 1)·rows) − 1} ({@code T} = 1, INT4 2 N tiles a column), so its
   * loader starts no earlier than {@code R_j = max(a − backStart, X)} (engine cycles; engine cycle 0 = {@code e + 1}),
   * {@code X = (kt + 1)·M − 1} the first engine cycle after K tile kt's last X line (an N:M GEMM, whose K tile is two
   * lines of K, {@code min(2kt + 2, ceil(K/rows))·M − 1}): {@link EngineRecurrence#cycles}
   * with {@code P_j ≥ R_j}, INT4 of more than one N tile in N-tile pair order ({@link EngineRecurrence#pairOrder}: a
   * column's two tiles' passes K tile by K tile, so both follow the column's beats). The controller takes the next command the
   * cycle after GEMM_START, {@code e + M·kTiles + 1}; the stream goes on beside it as a back-end
   * phase until its last W write, and only a {@code dspin} or {@code dspout} dispatches before {@code a_{n−1} + 1}
   * ({@code streamFree}; every other command needs the memory port or the DMA's walks); the back-end
   * (engine, drain) goes on as for a {@code gemm}, from {@code backStart} ({@code gemmCycles} count the X copy inside
   * it: the engine ends after the last K tile is in).
   * N:M ({@code nmRows} > 0: the {@code ceil(S/P)} packed metadata and {@code S} value rows a column): {@code n =
   * C·nmRows} beats, a column's metadata before its values, so the pass of N tile {@code nt}, K tile {@code kt}
   * needs beat {@code nt·nmRows + ceil(S/P) + min(S, (kt + 1)·rows) − 1} (a K tile of {@code 2·rows} K has
   * {@code rows} value rows); the engine runs {@code ceil(K / 2·rows)} K tiles.
   * With {@code keepX} ({@code xKeep=1}) there is no X copy: GEMM_START is the command's first cycle {@code e}, the
   * controller takes the next command in {@code e + 1}, and every K tile's X is ready ({@code X = 0}).
   * Starts from cycle {@code now}; {@code issue} issues the W beats over the controller's memory port. Returns the
   * controller's next cycle.
   */
  long streamedGemm(long now, BeatIssue issue, int m, int k, int n, boolean int4, long nmRows, boolean groupScaled,
                    boolean keepX, long yStart, long yEnd) {
    int line = p.lineBytes();
    int rows = p.rows();
    long kTiles = (k + (long) rows - 1) / rows;
    long copy = keepX ? 0 : m * kTiles;
    // the engine starts in the X copy's first cycle; the controller's GEMM_START follows the copy
    backStart = now;
    long controllerStart = now + copy;
    long rowBytes = int4 ? (n + 1L) / 2 : n;
    long columns = (rowBytes + line - 1) / line;
    long rowsPerColumn = nmRows > 0 ? nmRows : groupScaled ? k + 2L * ((k + StreamedWeights.SCALE_GROUP - 1)
        / StreamedWeights.SCALE_GROUP) : k;
    long beats = columns * rowsPerColumn;
    boolean halves = int4 && !CycleFormulas.int4PairWrites(p);
    int gap = halves ? 2 : 1;
    long last = issue.issue(beats, gap);
    long interval = Math.max(gap, p.beatInterval());
    long first = last - (beats - 1) * interval;
    long written = p.memLatency() + (halves ? 1 : 0);
    int tilesPerColumn = int4 ? 2 : 1;
    // N:M: a column's packed metadata rows come first, then its S value rows, rows of them a K tile (2·rows of K)
    long valueRows = nmRows > 0 ? nmValueRows(k) : 0;
    long metaRows = nmRows - valueRows;
    EngineRecurrence.PassReady ready = (nt, kt) -> {
      long lastRow = Math.min(k, (kt + 1) * rows) - 1;
      long beat = nmRows > 0 ? nt * nmRows + metaRows + Math.min(valueRows, (kt + 1) * rows) - 1
          : nt / tilesPerColumn * rowsPerColumn
          + (groupScaled ? StreamedWeights.groupScaledRow(lastRow) : lastRow);
      long wReady = first + beat * interval + written - backStart;
      // the X copy's K tile kt is in from engine cycle (kt + 1)·M − 1 (its last line in cycle backStart + (kt+1)·M − 1);
      // an N:M GEMM's K tile is two lines of K: min(2kt + 2, kTiles)·M − 1
      long xReady = keepX ? 0 : (nmRows > 0 ? Math.min(2 * kt + 2, kTiles) : kt + 1) * m - 1;
      return Math.max(wReady, xReady);
    };
    long engineKTiles = nmRows > 0 ? (k + 2L * rows - 1) / (2L * rows) : kTiles;
    boolean pairs = EngineRecurrence.pairOrder(p, int4, n);
    long engineRun = EngineRecurrence.cycles(rows, rows, p.mTile(), m, engineKTiles, n, ready, pairs);
    drainCandidate = backStart + 1 + engineRun;
    drainLines = m * ((4L * n + line - 1) / line);
    drainM = m;
    drainN = n;
    pending = true;
    ppmBank = -1;
    drainReads = false;
    // the X copy and GEMM_START lie inside the back-end's run (the engine ends after the last K tile is in)
    gemmCycles += 1;
    arrayCycles += engineRun + 1;
    resultStart = yStart;
    resultEnd = yEnd;
    streamFree = last + written + 1;
    return controllerStart + 1;
  }

  /** Value rows {@code S = E·ceil(K/G)} of an N:M W of {@code k} rows in this machine's N:M mode. */
  private long nmValueRows(long k) {
    int kept = p.sparsity() == Command.S2_4 ? 2 : 4;
    int group = p.sparsity() == Command.S2_4 ? 4 : 8;
    return kept * ((k + group - 1) / group);
  }
}
