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
 * <p>The cycles of each command kind (load, store, gemm and its variants, the DSP and PPM commands) and the rules
 * by which a command dispatches beside a running GEMM are tabled in {@link CycleFormulas}; the GEMM back-end's
 * state is {@link GemmBackEnd}'s, the dispatch rules that read it {@link DispatchRules}'.
 *
 * {@code cycles} at the end = the cycle in which {@code done} (or the error) is raised.
 */
public final class CycleModel {
  private final MachineParams p;
  private long now;
  private final MemoryPort port = new MemoryPort();
  private long fetchCycles;
  private long dmaCycles;
  private long dspCycles;
  private long ppmCycles;
  /** The GEMM back-end (array run and drain), which overlaps with the commands that follow. */
  private final GemmBackEnd back;
  private final CommandFetcher fetcher;
  private final DispatchRules rules;
  /** The previous command was a DSP copy: the next one is decoded from FETCH, not straight from the queue. */
  private boolean viaFetch;

  public CycleModel(MachineParams p) {
    this(p, EngineTiming.SYSTOLIC);
  }

  /** The model of an NPU whose GEMM commands run on {@code engine}. */
  public CycleModel(MachineParams p, EngineTiming engine) {
    this.p = p;
    back = new GemmBackEnd(p, engine);
    fetcher = new CommandFetcher(p, port);
    rules = new DispatchRules(back);
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

  /** {@link DispatchRules#dispatch}. */
  private void dispatch(boolean isLoad, boolean independentStore, boolean waitsForStream) {
    now = rules.dispatch(now, isLoad, independentStore, waitsForStream);
  }

  /**
   * The dispatch of a {@code dspin} ({@code in}) or {@code dspout} of scratchpad bytes [start, end):
   * {@link DispatchRules#dspCopy}.
   */
  public void dispatchDspCopy(boolean in, long start, long end) {
    now = rules.dspCopy(now, in, start, end);
  }

  /**
   * The dispatch of a {@code dsprun} or {@code dsptab}: it goes at once, beside a running GEMM (its program or
   * tables come from the memory, which the back-end does not use once a streamed GEMM's W stream is in; the DSP
   * touches no scratchpad byte while it runs), but after that stream's last W write ({@code streamFree}).
   */
  public void dispatchBeside() {
    dispatch(false, true);
  }

  /** The dispatch of a {@code ppmcfg} of parameter bank {@code bank}: {@link DispatchRules#ppmCfg}. */
  public void dispatchPpmCfg(int bank) {
    now = rules.ppmCfg(now, bank);
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
    return back.finish(now);
  }

  public void load(long beats) {
    long start = now;
    long last = issue(beats);
    now = last + p.memLatency() + 1;
    dmaCycles += now - start;
    // The drain cannot start while the controller is in the LOAD state.
    back.holdDrain(start, now);
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
    back.holdDrain(start, now);
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
   * {@link CycleFormulas#dspElementsPerCycle}, and for a {@code dspin} one cycle more (its last buffer write trails its last
   * line read by three cycles).
   */
  public void dspCopy(long rows, long rowElems, int elementBytes, boolean in) {
    long cost = CycleFormulas.dspCopyCycles(p, rows, rowElems, elementBytes) + (in ? 1 : 0);
    long start = now;
    now += cost;
    dspCycles += cost;
    // the controller then waits in FETCH: no decode straight from the queue
    viaFetch = true;
    rules.copied(in, start, now);
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
   * The first cycle in which the back-end is idle if no later command holds its drain's start (a {@code load},
   * {@code load4} or {@code dspout} on the scratchpad's write port); {@link #now} when no GEMM runs. Read only: the
   * cycle a command that waits for the back-end would wait for, so {@code backEndIdleFrom() − now()} right after a
   * {@code gemm} is the most controller time a command beside its back-end can use.
   */
  public long backEndIdleFrom() {
    return back.idleFrom(now);
  }

  /** A STORE of scratchpad bytes [start, end) waits for the back-end: {@link DispatchRules#storeWaits}. */
  public boolean resultsOverlap(long start, long end) {
    return rules.storeWaits(start, end);
  }

  /**
   * The running GEMM's drain reads the scratchpad over its one read port (it accumulates or gates): a STORE clear of
   * its results waits for the back-end all the same ({@link DispatchRules#storeWaits}).
   */
  public boolean drainReadsScratchpad() {
    return back.drainReads();
  }

  /** The GEMM just modelled drains over the scratchpad's read port too: {@link DispatchRules#drainReadsY}. */
  public void drainReadsY() {
    rules.drainReadsY();
  }

  /** A GEMM whose results occupy scratchpad bytes [yStart, yEnd); see {@link #gemm(int, int, int)}. */
  public void gemm(int m, int k, int n, long yStart, long yEnd) {
    gemm(m, k, n, k, false, yStart, yEnd);
  }

  /**
   * A GEMM whose W operand has {@code wRows} scratchpad rows ({@code K} dense; values and metadata
   * with N:M, whose passes cover {@code 2·rows} of K).
   */
  public void gemm(int m, int k, int n, int wRows, boolean sparse, long yStart, long yEnd) {
    gemm(m, k, n, wRows, sparse, false, yStart, yEnd);
  }

  /** As {@link #gemm(int, int, int, int, boolean, long, long)}; {@code keepX}: no X copy ({@code xKeep=1}). */
  public void gemm(int m, int k, int n, int wRows, boolean sparse, boolean keepX, long yStart, long yEnd) {
    now = back.gemm(now, m, k, n, wRows, sparse, keepX);
    back.results(yStart, yEnd);
  }

  /**
   * A GEMM (the back-end is idle when it starts): the controller copies the operands and starts the
   * array, then goes on; the array runs {@code engine} cycles and its results drain when the
   * controller is not in a LOAD.
   */
  public void gemm(int m, int k, int n) {
    now = back.gemm(now, m, k, n, k, false, false);
  }

  /**
   * A GEMM whose W streams from the memory ({@code wStream=1}; {@code int4}: {@code wInt4=1}) straight into the
   * engine's W buffer beside the X copy; N:M ({@code nmRows} > 0) with its metadata and value rows a column. The
   * timing: {@link GemmBackEnd#streamedGemm}.
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
    streamedGemm(m, k, n, int4, nmRows, groupScaled, false, yStart, yEnd);
  }

  /** As above; {@code keepX}: no X copy ({@code xKeep=1}): the controller is free the cycle after GEMM_START. */
  public void streamedGemm(int m, int k, int n, boolean int4, long nmRows, boolean groupScaled, boolean keepX,
                           long yStart, long yEnd) {
    now = back.streamedGemm(now, this::issue, m, k, n, int4, nmRows, groupScaled, keepX, yStart, yEnd);
  }

  /**
   * The GEMM just modelled routes its results through the PPM ({@code ppm=1}): the drain reads each INT32 result
   * line once, as without the flag, and the PPM takes one line a cycle; its INT8 codes reach the scratchpad
   * {@code L =} {@link MachineParams#ppmLatency()} cycles after their line, so the back-end is idle
   * {@code L} cycles later than without the flag. With a wide PPM ({@link MachineParams#ppmWide}) the drain reads a
   * whole N tile of a row a cycle instead: {@code M·ceil(N/line)} drain cycles ({@link MachineParams#ppmDrainLines}).
   */
  public void drainThroughPpm() {
    drainThroughPpm(0);
  }

  /** As {@link #drainThroughPpm()}, the PPM reading parameter bank {@code bank} ({@code ppm=1}: 0, {@code ppm=2}: 1). */
  public void drainThroughPpm(int bank) {
    back.drainThroughPpm(bank);
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
    counters[Counter.GEMM_CYCLES.ordinal()] = back.gemmCycles();
    counters[Counter.ARRAY_CYCLES.ordinal()] = back.arrayCycles();
    counters[Counter.MEM_STALL_CYCLES.ordinal()] = port.stalls;
    counters[Counter.DSP_CYCLES.ordinal()] = dspCycles;
    counters[Counter.PPM_CYCLES.ordinal()] = ppmCycles;
  }
}
