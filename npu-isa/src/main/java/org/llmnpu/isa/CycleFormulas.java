package org.llmnpu.isa;

/**
 * The closed-form cycle formulas of {@link CycleModel} that depend on the machine and the command's operands only, not
 * on the timing state: a DSP program's beats, a DSP copy's cycles, a GEMM's W copy, the engine's run of a dense GEMM
 * (the systolic recurrence, {@link EngineRecurrence}) and whether a streamed INT4 W takes a beat a cycle. The RTL's
 * generators and the software stack use them to size and cost commands.
 *
 * <p>The cycles of each command kind, as {@link CycleModel} times them ({@code I}, {@code lat}, {@code memFree},
 * {@code t_i} and the command fetch as defined there):
 * <pre>
 * fetch  see above (D = 1: decode cycle = t_{b−1} + lat + 2; the command starts one cycle later)
 * load   (n = rows · ceil(rowBytes / line))  next fetch at t_{n−1} + lat + 1
 * store  (n as for load)        next fetch at t_{n−1} + 1 (writes are posted)
 * gemm   controller: M·kTiles (X lines) + nTiles·ceil(K / R) (W rows, R = weightRowsPerCycle a
 *        cycle) + 1 (start), then the next fetch;
 *        back-end: the array runs {@code engine} cycles (see {@link EngineTiming#engineCycles}: the
 *        systolic {@link CycleFormulas#engineCycles} or the PiM engine's), done is seen at
 *        start + 1 + engine, and the M·ceil(4·N / line) drain writes begin the cycle after the first
 *        cycle (≥ done) in which the controller is not in a LOAD or DSPOUT
 * dispatch  while a streamed GEMM's W stream runs (to its last W write) only a DSPIN, DSPOUT or resident DSPRUN
 *        goes (the others wait for it, then follow these rules); a decoded LOAD (LOAD4, LOADMX) waits while a drain starts or runs; a STORE that reads none
 *        of the running GEMM's result bytes goes at once — unless that GEMM's drain reads the scratchpad (accumulate,
 *        gate): then it waits until the back-end is idle; a DSPIN or DSPOUT that touches none of them goes at once
 *        and has the scratchpad's port in its cycles (a DSPOUT's writes; a DSPIN's DSP_IN reads beside a drain that
 *        reads): the drain's start is held to the copy's end, a running drain pauses for them (drain lines + the
 *        copy's cycles) — a DSPOUT beside a drain through the PPM (whose codes land L cycles after their lines)
 *        holds the drain's feed and start from its decode d and goes in max(d, f + L) + 1, f = min(d − 1, drain
 *        start + drain lines) its last line fed (d + 1 when none was); DSPRUN, DSPLD and DSPTAB go at once; any other
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
 *        ({@link CycleModel#streamedGemm(int, int, int, boolean, long, long, long)})
 * gemm ppm  as gemm, the same M·ceil(4·N / line) drain lines; each INT32 line goes through the PPM
 *        (line / 4 lanes, one line a cycle) and its INT8 codes are written L = the PPM latency cycles later
 *        (line q of a row: its line/4 codes, columns q·line/4 .., with byte enables at y + m·yStride + q·line/4); the back-end is idle from
 *        drain start + drain lines + L + 1 (the LOAD rule and the other commands wait for that); with a wide PPM
 *        ({@link MachineParams#ppmWide}, line lanes) M·ceil(N / line) drain lines: a whole N tile of a row a cycle,
 *        its line codes written as one line at y + m·yStride + t·line ({@link MachineParams#ppmDrainLines})
 * gemm accumulate  as gemm (each drain line reads the old Y line and writes the sum in the same cycle);
 *        the drain then uses the scratchpad's read port, so a STORE waits for the back-end as the
 *        other commands do, and a DSPIN clear of Y holds its start or pauses it (its result range is its Y range)
 * </pre>
 */
public final class CycleFormulas {
  private CycleFormulas() {
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
   * The engine's W buffer takes a streamed INT4 beat's two lines (N tiles {@code 2c}, {@code 2c + 1}) in one cycle:
   * the dense array's, banked by N-tile parity. An N:M array's writes the high half one cycle after the low half,
   * so there an INT4 stream takes a beat at most every other cycle.
   */
  public static boolean int4PairWrites(MachineParams p) {
    return p.sparsity() == Command.DENSE;
  }

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
