package org.llmnpu.isa;

/**
 * Analytical cycle model of the NPU, command by command. It keeps two numbers of state: the
 * current cycle {@code now} (cycle 0 = the first cycle after {@code start}) and the first cycle
 * {@code memFree} at which the external memory accepts another beat. With {@code I =}
 * {@link MachineParams#beatInterval()} and {@code lat =} {@link MachineParams#memLatency()}, a phase
 * that issues {@code n} beats from cycle {@code e} issues beat i at {@code t_i = max(e, memFree) + i·I}
 * and leaves {@code memFree = t_{n−1} + I}; read data of beat i arrives in cycle {@code t_i + lat}.
 *
 * <p><b>Command fetch</b> (queue of {@code D =} {@link MachineParams#commandQueueDepth()} commands: the one the
 * controller runs and up to D − 1 read ahead). The fetcher issues the {@code b = beatsPerCommand} beats of one
 * command after the other, a beat in every cycle in which the memory is free and the controller does not want it
 * (the controller wants it from the first cycle of a phase that issues beats until its last beat is accepted; the
 * fetcher has no other priority). It starts command j once command {@code j − D} is done, i.e. from cycle
 * {@code E_{j−D+1}}, where {@code E_k} is the cycle after command {@code k − 1}'s last cycle ({@code E_0 = 0}).
 A command lands in the cycle after its last beat arrives ({@code A_k = t_{b−1} + lat + 1}: one cycle in
 * which its range checks are summed). The controller decodes command k in cycle {@code E_k} if it landed by
 * {@code E_k − 2} and command k − 1 is not a {@code dspin}/{@code dspout}, else in {@code max(E_k, A_k) + 1}; the
 * command starts the cycle after decode. With D = 1 the fetch of command k starts at {@code E_k}: decode in
 * {@code t_{b−1} + lat + 2} (no prefetch). The fetcher stops at
 * a command beyond the memory (the controller halts with EXT_ADDRESS when it gets there) and when the NPU halts;
 * its beats count in {@code extReadBeats} and its waits for the memory in {@code memStallCycles}.
 *
 * <pre>
 * fetch  see above (D = 1: decode cycle = t_{b−1} + lat + 2; the command starts one cycle later)
 * load   (n = rows · ceil(rowBytes / line))  next fetch at t_{n−1} + lat + 1
 * store  (n as for load)        next fetch at t_{n−1} + 1 (writes are posted)
 * gemm   controller: M·kTiles (X lines) + nTiles·ceil(K / R) (W rows, R = weightRowsPerCycle a
 *        cycle) + 1 (start), then the next fetch;
 *        back-end: the array runs {@code engine} cycles (see {@link EngineTiming#engineCycles}: the
 *        systolic {@link #engineCycles} or the PiM engine's), done is seen at
 *        start + 1 + engine, and the M·ceil(4·N / line) drain writes begin the cycle after the first
 *        cycle (≥ done) in which the controller is not in a LOAD or DSPOUT
 * dispatch  while a streamed GEMM's W stream runs (to its last W write) only a DSPIN, DSPOUT or resident DSPRUN
 *        goes (the others wait for it, then follow these rules); a decoded LOAD (LOAD4, LOADMX) waits while a drain starts or runs; a STORE or DSPIN that reads none
 *        of the running GEMM's result bytes goes at once; a DSPOUT that writes none of them goes as a LOAD
 *        (and, like a LOAD, holds the drain's start while it writes); DSPRUN, DSPLD and DSPTAB go at once; any other
 *        command (and a STORE, DSPIN or DSPOUT that touches the results) waits until the back-end is
 *        idle (drain start + drain lines + 1)
 * fence, halt  wait for the back-end, then 0 cycles
 load4  (n source beats)  beats at least 2 cycles apart: t_i = max(e, memFree) + i·max(I, 2);
 *        next fetch at t_{n−1} + lat + 2 (each beat writes two scratchpad lines, the second one cycle later)
 * loadmx  as a load (the element decoding is combinational on the beat's way to the scratchpad)
 * dsptab (n = 768 / line beats)  as a load
 * dsprun (n = ceil(8·words / line))  program beats as a load, the run starts with the last word:
 *        next fetch at t_{n−1} + lat + 1 + run + 1 (run = instructions issued, HALT included, plus the
 *        interlock stalls of a DSP with more than one execute stage: {@code MachineParams.DspParams.executeStages});
 *        resident (words 0, no beats) the run starts in the dispatch cycle e − 1: next fetch at e + run + 1
 * dspld (n = ceil(8·words / line))  as a load
 * dspin, dspout  rows · ceil(rowElems / E), E = min(line / elementBytes, lanes) elements a cycle (one scratchpad line
 *        read or written a cycle; a row's last cycle moves the rest), and a dspin one cycle more
 * snapshot  waits for the back-end, then writes its beats as a store
 * ppmcfg, pputab (c items of B bytes: 16-byte channel records, 2-byte table entries; n = ceil(c·B / line)
 *        beats, P = max(1, line / B) items per beat): beats at least P cycles apart,
 *        t_i = max(e, memFree) + i·max(I, P); each beat's items go into the PPM one a cycle from its
 *        arrival (a record spanning several beats with its last beat): next fetch at
 *        t_{n−1} + lat + 1 + r, r = (c − 1) mod P when line ≥ B, else 0
 * ppm    (M rows, N lanes, R = ceil(4N / line) lines a row)  M·R + L, L = the PPM latency
 * gemm N:M  as gemm with W rows = 2·E·ceil(K/G) (values and metadata) and kTiles = ceil(K / 2·rows)
 *        in the engine recurrence
 * gemm wStream  engine start (backStart) = the X copy's first cycle e; controller: M·kTiles (X lines, K tile by
 *        K tile) + 1 (GEMM_START); beside the X copy, from e, the C·K W beats (C beat columns a W row),
 *        t_i = max(e, memFree) + i·max(I, g), g = 1 (INT8; wInt4 on a dense array) or 2 (wInt4 on an N:M array), written into the engine's W buffer at a_i = t_i + lat
 *        (+1 with wInt4 on an N:M array); next fetch at e + M·kTiles + 1: the stream runs on beside the
 *        controller, and until a_{n−1} + 1 only a dspin or dspout dispatches; the engine's loader starts pass j no
 *        earlier than the cycle after its last W row was written and after its K tile's X lines
 *        ({@link #streamedGemm})
 * gemm ppm  as gemm, the same M·ceil(4·N / line) drain lines; each INT32 line goes through the PPM
 *        (line / 4 lanes, one line a cycle) and its INT8 codes are written L = the PPM latency cycles later
 *        (line q of a row: its line/4 codes, columns q·line/4 .., with byte enables at y + m·yStride + q·line/4); the back-end is idle from
 *        drain start + drain lines + L + 1 (the LOAD rule and the other commands wait for that)
 * gemm accumulate  as gemm (each drain line reads the old Y line and writes the sum in the same cycle);
 *        the drain then holds the scratchpad's read port, so a STORE waits for the back-end as the
 *        other commands do (its result range is the whole scratchpad)
 * </pre>
 * {@code cycles} at the end = the cycle in which {@code done} (or the error) is raised.
 */
public final class CycleModel {
  private final MachineParams p;
  private long now;
  private final MemoryPort port = new MemoryPort();
  private long fetchCycles;
  private long dmaCycles;
  private long gemmCycles;
  private long arrayCycles;
  private long dspCycles;
  private long ppmCycles;
  // The GEMM back-end (array run and drain), which overlaps with the commands that follow.
  private boolean backPending;
  private long backStart;
  private long drainCandidate;
  private long drainLines;
  /** Cycles the back-end stays busy after its last drain line: the PPM latency for a GEMM with {@code ppm=1}. */
  private long drainTail;
  /**
   * The first cycle in which no streamed GEMM's W stream runs (the cycle after its last W write, {@code a_{n−1} + 1});
   * until then it holds the memory port and the DMA's walks, and only a {@code dspin} or {@code dspout} goes.
   */
  private long streamFree;

  private final EngineTiming engine;
  private final CommandFetcher fetcher;
  /** The previous command was a DSP copy: the next one is decoded from FETCH, not straight from the queue. */
  private boolean viaFetch;

  public CycleModel(MachineParams p) {
    this(p, EngineTiming.SYSTOLIC);
  }

  /** The model of an NPU whose GEMM commands run on {@code engine}. */
  public CycleModel(MachineParams p, EngineTiming engine) {
    this.p = p;
    this.engine = engine;
    fetcher = new CommandFetcher(p, port);
  }

  public long now() {
    return now;
  }

  /** Issues n beats from the current cycle; returns the cycle of the last issue. */
  private long issue(long n) {
    return issue(n, 1);
  }

  /**
   * The controller issues n beats from the current cycle, requesting a beat at the earliest {@code gap} cycles
   * after the previous one was accepted; returns the cycle of the last issue. The controller wants the memory from
   * the current cycle until its last beat is accepted: the fetcher issues before that window and after it.
   */
  private long issue(long n, int gap) {
    fetcher.advance(now, Long.MAX_VALUE);
    long first = Math.max(now, port.free);
    long interval = Math.max(gap, p.beatInterval());
    port.stalls += (first - now) + (n - 1) * (interval - gap);
    long last = first + (n - 1) * interval;
    port.free = last + p.beatInterval();
    fetcher.holdUntilAfter(last);
    return last;
  }

  /**
   * Where the program starts ({@code programAddress}) and how large the memory is: the fetcher reads no command
   * whose 32 bytes lie beyond the memory (or at a misaligned address). Without a call the program is at 0.
   */
  public void begin(long programAddress) {
    fetcher.begin(programAddress);
  }

  /**
   * The controller waits for its next command (it entered FETCH, or finished its previous command, in cycle
   * {@code E} = the current cycle) and decodes it: in cycle {@code E} when the command landed by {@code E − 2}
   * (it was in the queue when the previous command finished), else in cycle {@code max(E, A) + 1} ({@code A} =
   * the cycle it lands). Afterwards {@code now} is the command's first execution cycle (decode + 1).
   */
  public void fetchAndDecode() {
    long start = now;
    long arrival = fetcher.landing(fetcher.enter(now));
    long decode = arrival <= start - 2 && !viaFetch ? start : Math.max(start, arrival) + 1;
    viaFetch = false;
    now = decode + 1;
    fetchCycles += now - start;
  }

  /** A fetch that fails its address check in its first cycle. */
  public void fetchFault() {
    fetcher.enter(now);
    fetchCycles += 1;
    now += 1;
    finishBackEnd();
  }

  /** The decoded command failed its checks: the error is raised one cycle after decode. */
  public void decodeFault() {
    finishBackEnd();
  }

  /**
   * Waits until the decoded command may start: a LOAD while no drain starts or writes the
   * scratchpad, any other command once the GEMM back-end is idle. Afterwards {@code now} is the
   * command's first cycle.
   */
  public void dispatch(boolean isLoad) {
    dispatch(isLoad, false);
  }

  /**
   * As {@link #dispatch(boolean)}; {@code independentStore}: a STORE that reads none of the running
   * GEMM's result bytes, which goes without waiting.
   */
  public void dispatch(boolean isLoad, boolean independentStore) {
    dispatch(isLoad, independentStore, true);
  }

  /**
   * The dispatch rules; {@code waitsForStream}: the command needs the memory port or the DMA's walks, which a
   * streamed GEMM's W stream holds until its last W write ({@link #streamFree}): it goes no earlier than that (every
   * command but a {@code dspin}/{@code dspout}), and the back-end rules then apply from there.
   */
  private void dispatch(boolean isLoad, boolean independentStore, boolean waitsForStream) {
    long decode = now - 1;
    long from = waitsForStream ? Math.max(decode, streamFree) : decode;
    long ready = from;
    if (backPending && !independentStore && (!isLoad || drainCandidate <= from)) {
      long idleFrom = finishBackEnd();
      ready = Math.max(from, idleFrom);
    }
    now = ready + 1;
  }

  /**
   * The dispatch of a {@code dspin} ({@code in}) or {@code dspout} of scratchpad bytes [{@code start}, {@code end}):
   * one that touches none of the running GEMM's result bytes goes beside the back-end — a {@code dspin} at once
   * (it reads over the scratchpad's read port, which a drain uses only when it accumulates, and then its result
   * range is the whole scratchpad), a {@code dspout} as a LOAD (it waits while a drain starts or runs, and holds
   * the drain's start while it writes: one write port, {@link #dspCopy}); one that touches them waits until the
   * back-end is idle. Neither waits for a streamed GEMM's W stream: the copies walk the scratchpad over the GEMM's
   * operand walk and touch no memory.
   */
  public void dispatchDspCopy(boolean in, long start, long end) {
    boolean clear = !resultsOverlap(start, end);
    if (in || !clear) {
      dispatch(false, clear, false);
    } else {
      dispatch(true, false, false);
    }
  }

  /**
   * The dispatch of a {@code dsprun} or {@code dsptab}: it goes at once, beside a running GEMM (its program or
   * tables come from the memory, which the back-end does not use once a streamed GEMM's W stream is in; the DSP
   * touches no scratchpad byte while it runs), but after that stream's last W write ({@link #streamFree}).
   */
  public void dispatchBeside() {
    dispatch(false, true);
  }

  /**
   * The dispatch of a {@code ppmcfg} of parameter bank {@code bank}: while the running GEMM's PPM reads that bank
   * ({@link #drainThroughPpm(int)}) it waits until the back-end is idle, as every PPM command; otherwise it goes
   * beside the back-end as a {@link #dispatchBeside} (it reads its records over the memory port, so after a streamed
   * GEMM's last W write, and writes only the other bank of the PPM's parameter memory).
   */
  public void dispatchPpmCfg(int bank) {
    if (backPending && ppmBank == bank) {
      dispatch(false, false);
    } else {
      dispatchBeside();
    }
  }

  /**
   * The dispatch of a resident {@code dsprun} (words 0): as {@link #dispatchBeside}, and it goes beside a streamed
   * GEMM's W stream too: it loads nothing over the memory port and uses none of the DMA's walks.
   */
  public void dispatchResidentRun() {
    dispatch(false, true, false);
  }

  /** Resolves a pending back-end run: its drain starts at the candidate cycle; returns the first idle cycle. */
  private long finishBackEnd() {
    if (!backPending) {
      return now;
    }
    long drainStart = drainCandidate;
    gemmCycles += (drainStart - backStart) + drainLines + drainTail;
    backPending = false;
    long idle = drainStart + drainLines + drainTail + 1;
    drainTail = 0;
    return idle;
  }

  public void load(long beats) {
    long start = now;
    long last = issue(beats);
    now = last + p.memLatency() + 1;
    dmaCycles += now - start;
    // The drain cannot start while the controller is in the LOAD state.
    if (backPending && drainCandidate >= start && drainCandidate < now) {
      drainCandidate = now;
    }
  }

  /**
   * A {@link Command.Load4}: {@code beats} source beats, each written as up to two scratchpad lines
   * (the second in the cycle after the beat arrives), so beats are requested at most every other cycle.
   */
  public void load4(long beats) {
    long start = now;
    long last = issue(beats, 2);
    now = last + p.memLatency() + 2;
    dmaCycles += now - start;
    if (backPending && drainCandidate >= start && drainCandidate < now) {
      drainCandidate = now;
    }
  }

  /** A {@link Command.DspTab}: reads {@code beats} beats of tables. */
  public void dspTable(long beats) {
    long start = now;
    long last = issue(beats);
    now = last + p.memLatency() + 1;
    dspCycles += now - start;
  }

  /**
   * A {@link Command.DspRun}: {@code beats} program beats, then {@code runCycles} DSP cycles; the run starts with
   * the last beat's words, or, resident ({@code beats} 0), in the dispatch cycle (the one before {@code now}).
   */
  public void dspRun(long beats, long runCycles) {
    long start = now;
    long runStart = beats == 0 ? now - 1 : issue(beats) + p.memLatency();
    now = runStart + 1 + runCycles + 1;
    dspCycles += now - start;
  }

  /** A {@link Command.DspLoad}: {@code beats} program beats, as a {@link Command.DspTab}'s. */
  public void dspLoad(long beats) {
    dspTable(beats);
  }

  /**
   * A {@link Command.DspIn} ({@code in}) or {@link Command.DspOut} of {@code rows} rows of {@code rowElems} elements of
   * {@code elementBytes} bytes: {@code rows · ceil(rowElems / E)} cycles, {@code E =}
   * {@link #dspElementsPerCycle}, and for a {@code dspin} one cycle more (its last buffer write trails its last
   * line read by three cycles).
   */
  public void dspCopy(long rows, long rowElems, int elementBytes, boolean in) {
    long cost = dspCopyCycles(p, rows, rowElems, elementBytes) + (in ? 1 : 0);
    long start = now;
    now += cost;
    dspCycles += cost;
    // the controller then waits in FETCH: no decode straight from the queue
    viaFetch = true;
    // a dspout writes the scratchpad in each of its cycles: the drain cannot start meanwhile
    if (!in && backPending && drainCandidate >= start && drainCandidate < now) {
      drainCandidate = now;
    }
  }

  /** Memory beats of {@code words} DSP program words ({@code dsprun}, {@code dspld}): {@code ceil(8·words / line)}. */
  public static long dspProgramBeats(MachineParams p, long words) {
    return (8 * words + p.lineBytes() - 1) / p.lineBytes();
  }

  /**
   * Elements a {@code dspin}/{@code dspout} moves a cycle: {@code min(line / elementBytes, lanes)} — one scratchpad
   * line read or written a cycle, at most one element per DSP lane (the buffer writes or reads one element in each
   * lane a cycle). Both are powers of two, so a cycle's elements never straddle a line.
   */
  public static long dspElementsPerCycle(MachineParams p, int elementBytes) {
    return Math.max(1, Math.min(p.lineBytes() / elementBytes, p.dsp().lanes()));
  }

  /** The element-moving cycles of a DSP copy: {@code rows · ceil(rowElems / E)}. */
  public static long dspCopyCycles(MachineParams p, long rows, long rowElems, int elementBytes) {
    long e = dspElementsPerCycle(p, elementBytes);
    return rows * ((rowElems + e - 1) / e);
  }

  /**
   * A {@link Command.PpmCfg} or {@link Command.PpuTab}: {@code items} items of {@code itemBytes} bytes
   * from memory into the PPM, one a cycle, beats paced to the items they carry.
   */
  public void ppmLoad(long items, int itemBytes) {
    long start = now;
    int line = p.lineBytes();
    long beats = (items * itemBytes + line - 1) / line;
    int perBeat = Math.max(1, line / itemBytes);
    long last = issue(beats, perBeat);
    long tail = line >= itemBytes ? (items - 1) % perBeat : 0;
    now = last + p.memLatency() + 1 + tail;
    ppmCycles += now - start;
  }

  /** A {@link Command.Ppm} of {@code m} rows of {@code linesPerRow} INT32 lines: {@code m·linesPerRow + L}. */
  public void ppm(long m, long linesPerRow) {
    long cost = m * linesPerRow + p.ppmLatency();
    now += cost;
    ppmCycles += cost;
  }

  public void store(long beats) {
    long start = now;
    long last = issue(beats);
    now = last + 1;
    dmaCycles += now - start;
  }

  /**
   * A GEMM (the back-end is idle when it starts): the controller copies the operands and starts the
   * array, then goes on; the array runs {@code engine} cycles and its results drain when the
   * controller is not in a LOAD.
   */
  /**
   * The first cycle in which the back-end is idle if no later command holds its drain's start (a {@code load},
   * {@code load4} or {@code dspout} on the scratchpad's write port); {@link #now} when no GEMM runs. Read only: the
   * cycle a command that waits for the back-end would wait for, so {@code backEndIdleFrom() − now()} right after a
   * {@code gemm} is the most controller time a command beside its back-end can use.
   */
  public long backEndIdleFrom() {
    return backPending ? drainCandidate + drainLines + drainTail + 1 : now;
  }

  /** Scratchpad bytes [start, end) of the results of the GEMM the back-end runs, if any. */
  public boolean resultsOverlap(long start, long end) {
    return backPending && start < resultEnd && resultStart < end;
  }

  private long resultStart;
  private long resultEnd;

  /** A GEMM whose results occupy scratchpad bytes [yStart, yEnd); see {@link #gemm(int, int, int)}. */
  public void gemm(int m, int k, int n, long yStart, long yEnd) {
    gemm(m, k, n, k, false, yStart, yEnd);
  }

  /**
   * A GEMM whose W operand has {@code wRows} scratchpad rows ({@code K} dense; values and metadata
   * with N:M, whose passes cover {@code 2·rows} of K).
   */
  public void gemm(int m, int k, int n, int wRows, boolean sparse, long yStart, long yEnd) {
    gemm(m, k, n, wRows, sparse);
    resultStart = yStart;
    resultEnd = yEnd;
  }

  public void gemm(int m, int k, int n) {
    gemm(m, k, n, k, false);
  }

  private void gemm(int m, int k, int n, int wRows, boolean sparse) {
    int line = p.lineBytes();
    long kTiles = (k + (long) p.rows() - 1) / p.rows();
    long nTiles = (n + (long) p.rows() - 1) / p.rows();
    long engine = sparse
        ? engineCyclesOverKTiles(p.rows(), p.rows(), p.mTile(), m, (k + 2L * p.rows() - 1) / (2L * p.rows()), n)
        : this.engine.engineCycles(p, m, k, n);
    long copy = m * kTiles + weightCopyCycles(p, wRows, n);
    backStart = now + copy;
    drainCandidate = backStart + 1 + engine;
    drainLines = m * ((4L * n + line - 1) / line);
    backPending = true;
    ppmBank = -1;
    gemmCycles += copy + 1;
    arrayCycles += engine + 1;
    now = backStart + 1;
  }

  /**
   * A GEMM whose W streams from the memory ({@code wStream=1}; {@code int4}: {@code wInt4=1}) straight into the
   * engine's W buffer: the engine starts in the X copy's first cycle {@code e} (the command's first cycle,
   * {@code backStart}); the controller copies the {@code M·ceil(K/rows)} X lines K tile by K tile (line
   * {@code kt·M + m} in cycle {@code e + kt·M + m}), then GEMM_START (one cycle); the W stream runs beside the X copy:
   * from {@code e} it issues the {@code n = C·K} W beats ({@code C} beat
   * columns of {@code line} bytes a W row: {@code ceil(N/line)}, INT4 {@code ceil(ceil(N/2)/line)}) column by
   * column, rows k in order: {@code t_i = max(e, memFree) + i·max(I, g)}, {@code g} = 1 (INT8, and INT4 on a dense
   * array, whose W buffer writes an INT4 beat's two rows in one cycle: {@link #int4PairWrites}), INT4 on an N:M
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
   * ({@link #streamFree}; every other command needs the memory port or the DMA's walks); the back-end
   * (engine, drain) goes on as for a {@code gemm}, from {@code backStart} ({@code gemmCycles} count the X copy inside
   * it: the engine ends after the last K tile is in).
   * N:M ({@code nmRows} > 0: the {@code ceil(S/P)} packed metadata and {@code S} value rows a column): {@code n =
   * C·nmRows} beats, a column's metadata before its values, so the pass of N tile {@code nt}, K tile {@code kt}
   * needs beat {@code nt·nmRows + ceil(S/P) + min(S, (kt + 1)·rows) − 1} (a K tile of {@code 2·rows} K has
   * {@code rows} value rows); the engine runs {@code ceil(K / 2·rows)} K tiles.
   */
  public void streamedGemm(int m, int k, int n, boolean int4, long nmRows, long yStart, long yEnd) {
    streamedGemm(m, k, n, int4, nmRows, false, yStart, yEnd);
  }

  /**
   * As {@link #streamedGemm(int, int, int, boolean, long, long, long)}; a {@code groupScaled} INT4 W ({@code wInt4=2})
   * streams {@code R = K + 2·ceil(K/32)} rows a column, each group's two multiplier rows timed as INT4 beats (they
   * latch the multipliers instead of writing W rows), so W row k is the column's beat
   * {@link StreamedWeights#groupScaledRow}{@code (k)} and pass (nt, kt) needs beat
   * {@code (nt / 2)·R + groupScaledRow(min(K, (kt + 1)·rows) − 1)}.
   */
  public void streamedGemm(int m, int k, int n, boolean int4, long nmRows, boolean groupScaled, long yStart,
                           long yEnd) {
    int line = p.lineBytes();
    int rows = p.rows();
    long kTiles = (k + (long) rows - 1) / rows;
    long copy = m * kTiles;
    // the engine starts in the X copy's first cycle; the controller's GEMM_START follows the copy
    backStart = now;
    long controllerStart = now + copy;
    long rowBytes = int4 ? (n + 1L) / 2 : n;
    long columns = (rowBytes + line - 1) / line;
    long rowsPerColumn = nmRows > 0 ? nmRows : groupScaled ? k + 2L * ((k + StreamedWeights.SCALE_GROUP - 1)
        / StreamedWeights.SCALE_GROUP) : k;
    long beats = columns * rowsPerColumn;
    boolean halves = int4 && !int4PairWrites(p);
    int gap = halves ? 2 : 1;
    long last = issue(beats, gap);
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
      long xReady = (nmRows > 0 ? Math.min(2 * kt + 2, kTiles) : kt + 1) * m - 1;
      return Math.max(wReady, xReady);
    };
    long engineKTiles = nmRows > 0 ? (k + 2L * rows - 1) / (2L * rows) : kTiles;
    boolean pairs = EngineRecurrence.pairOrder(p, int4, n);
    long engine = EngineRecurrence.cycles(rows, rows, p.mTile(), m, engineKTiles, n, ready, pairs);
    drainCandidate = backStart + 1 + engine;
    drainLines = m * ((4L * n + line - 1) / line);
    backPending = true;
    ppmBank = -1;
    // the X copy and GEMM_START lie inside the back-end's run (the engine ends after the last K tile is in)
    gemmCycles += 1;
    arrayCycles += engine + 1;
    resultStart = yStart;
    resultEnd = yEnd;
    streamFree = last + written + 1;
    now = controllerStart + 1;
  }

  /**
   * The engine's W buffer takes a streamed INT4 beat's two lines (N tiles {@code 2c}, {@code 2c + 1}) in one cycle:
   * the dense array's, banked by N-tile parity. An N:M array's writes the high half one cycle after the low half,
   * so there an INT4 stream takes a beat at most every other cycle.
   */
  public static boolean int4PairWrites(MachineParams p) {
    return p.sparsity() == Command.DENSE;
  }

  /** Value rows {@code S = E·ceil(K/G)} of an N:M W of {@code k} rows in this machine's N:M mode. */
  private long nmValueRows(long k) {
    int kept = p.sparsity() == Command.S2_4 ? 2 : 4;
    int group = p.sparsity() == Command.S2_4 ? 4 : 8;
    return kept * ((k + group - 1) / group);
  }

  /**
   * The GEMM just modelled routes its results through the PPM ({@code ppm=1}): the drain reads each INT32 result
   * line once, as without the flag, and the PPM takes one line a cycle; its INT8 codes reach the scratchpad
   * {@code L =} {@link MachineParams#ppmLatency()} cycles after their line, so the back-end is idle
   * {@code L} cycles later than without the flag.
   */
  public void drainThroughPpm() {
    drainThroughPpm(0);
  }

  /** As {@link #drainThroughPpm()}, the PPM reading parameter bank {@code bank} ({@code ppm=1}: 0, {@code ppm=2}: 1). */
  public void drainThroughPpm(int bank) {
    drainTail = p.ppmLatency();
    ppmBank = bank;
  }

  /** The parameter bank the pending GEMM's PPM reads, −1 when its results do not go through the PPM. */
  private int ppmBank = -1;

  /**
   * Cycles of a GEMM's W copy into the engine: {@code ceil(N / rows)} N tiles of {@code ceil(K / R)}
   * cycles, each moving {@code R = weightRowsPerCycle} W rows (the last of a tile the rest); {@code k} is
   * the W operand's scratchpad rows (K dense; values and metadata rows with N:M).
   */
  public static long weightCopyCycles(MachineParams p, int k, int n) {
    long nTiles = (n + (long) p.rows() - 1) / p.rows();
    int r = p.weightRowsPerCycle();
    return nTiles * ((k + (long) r - 1) / r);
  }

  /**
   * Counter values of the cycle counters at the current cycle (the others are left as they are), and the
   * command fetcher's memory reads up to it added to {@code extReadBeats} (they depend on the timing: the fetcher
   * reads up to {@code commandQueueDepth − 1} commands ahead, also past the program's {@code halt}).
   */
  public void fill(long[] counters) {
    fetcher.advance(now, Long.MAX_VALUE);
    counters[Counter.EXT_READ_BEATS.ordinal()] += fetcher.beats();
    counters[Counter.CYCLES.ordinal()] = now;
    counters[Counter.FETCH_CYCLES.ordinal()] = fetchCycles;
    counters[Counter.DMA_CYCLES.ordinal()] = dmaCycles;
    counters[Counter.GEMM_CYCLES.ordinal()] = gemmCycles;
    counters[Counter.ARRAY_CYCLES.ordinal()] = arrayCycles;
    counters[Counter.MEM_STALL_CYCLES.ordinal()] = port.stalls;
    counters[Counter.DSP_CYCLES.ordinal()] = dspCycles;
    counters[Counter.PPM_CYCLES.ordinal()] = ppmCycles;
  }

  /** The engine's cycles of a dense GEMM whose W is in at the start ({@link EngineRecurrence#engineCycles}). */
  public static long engineCycles(int rows, int cols, int mTile, int m, int k, int n) {
    return EngineRecurrence.engineCycles(rows, cols, mTile, m, k, n);
  }

  /** {@link EngineRecurrence#cycles(int, int, int, int, long, int)}: the recurrence over {@code kTiles} K tiles. */
  public static long engineCyclesOverKTiles(int rows, int cols, int mTile, int m, long kTiles, int n) {
    return EngineRecurrence.cycles(rows, cols, mTile, m, kTiles, n);
  }

  /** {@link EngineRecurrence#cycles(int, int, int, int, long, int, EngineRecurrence.PassReady, boolean)}, plain order. */
  public static long engineCyclesOverKTiles(int rows, int cols, int mTile, int m, long kTiles, int n,
                                            EngineRecurrence.PassReady ready) {
    return EngineRecurrence.cycles(rows, cols, mTile, m, kTiles, n, ready, false);
  }
}
