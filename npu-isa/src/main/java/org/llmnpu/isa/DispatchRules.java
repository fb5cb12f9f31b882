package org.llmnpu.isa;

/**
 * {@link CycleModel}'s dispatch rules: when a decoded command may start beside the {@link GemmBackEnd} (npu-isa
 * README, Overlap, and "W stream beside the controller"). Each rule takes the controller's current cycle {@code now}
 * (the decode cycle + 1) and returns the command's first cycle; a rule that waits for the back-end resolves its run
 * ({@link GemmBackEnd#finish}). The rules:
 * <ul>
 *   <li>every command but a {@code dspin}/{@code dspout} (and a resident {@code dsprun}) needs the memory port or the
 *       DMA's walks, which a streamed GEMM's W stream holds until its last W write ({@code streamFree}): it goes no
 *       earlier than that, and the back-end rules then apply from there;</li>
 *   <li>a LOAD waits while a drain starts or runs (one scratchpad write port); it holds the drain's start while it
 *       writes;</li>
 *   <li>a {@code dspin} or {@code dspout} that touches none of the running GEMM's result bytes goes at once (a
 *       {@code dspout} beside a drain through the PPM once that drain's codes in flight have landed); it shares the
 *       scratchpad's port with the drain: the copy has it, and the drain's start is held, or the running drain
 *       pauses, for the cycles the copy writes it (a {@code dspout}; beside a drain through the PPM from its decode)
 *       or reads it (a {@code dspin}, when the drain reads the scratchpad too: {@link #copied});</li>
 *   <li>a STORE that reads none of the running GEMM's result bytes, and no drain reads the scratchpad
 *       ({@link #storeWaits}), a {@code dsprun}, a {@code dsptab} and a {@code ppmcfg} of the bank the PPM does not
 *       read go at once;</li>
 *   <li>every other command waits until the back-end is idle.</li>
 * </ul>
 */
final class DispatchRules {
  private final GemmBackEnd back;
  /**
   * The first cycle the last dispatched {@code dspout} held the drain: its decode cycle beside a drain through the
   * PPM (the feed stops while the codes in flight land), else its first cycle ({@code Long.MAX_VALUE}: that one).
   */
  private long heldFrom = Long.MAX_VALUE;

  DispatchRules(GemmBackEnd back) {
    this.back = back;
  }

  /**
   * The first cycle of a command decoded in {@code now − 1}: {@code isLoad} a LOAD (waits while a drain starts or
   * runs), {@code independent} a command that goes beside the back-end, {@code waitsForStream} one that first waits
   * for a streamed GEMM's W stream ({@code streamFree}).
   */
  long dispatch(long now, boolean isLoad, boolean independent, boolean waitsForStream) {
    long decode = now - 1;
    long from = waitsForStream ? Math.max(decode, back.streamFree()) : decode;
    long ready = from;
    if (back.pending() && !independent && (!isLoad || back.drainCandidate() <= from)) {
      ready = Math.max(from, back.finish(now));
    }
    return ready + 1;
  }

  /**
   * A {@code dspin} ({@code in}) or {@code dspout} of scratchpad bytes [{@code start}, {@code end}): one that touches
   * any of the running GEMM's result bytes waits until the back-end is idle; every other one goes beside the
   * back-end and shares the scratchpad's port with the drain ({@link #copied}): at once, but a {@code dspout} beside
   * a drain through the PPM, whose pipeline cannot pause (its codes land on the write port {@code L} cycles after
   * their lines), stops the drain's feed from its decode cycle and goes once the codes in flight have landed
   * ({@link GemmBackEnd#codesLanded}). Neither waits for a streamed GEMM's W stream: the copies walk the scratchpad
   * over the GEMM's operand walk and touch no memory.
   */
  long dspCopy(long now, boolean in, long start, long end) {
    heldFrom = Long.MAX_VALUE;
    if (back.resultsOverlap(start, end)) {
      return dispatch(now, false, false, false);
    }
    long decode = now - 1;
    if (!in && back.drainsThroughPpm()) {
      heldFrom = decode;
      return back.codesLanded(decode) + 1;
    }
    return dispatch(now, false, true, false);
  }

  /**
   * A DSP copy ran in cycles [{@code start}, {@code end}): a {@code dspout} writes the scratchpad in each of them, a
   * {@code dspin} reads it in each but the last (DSP_DRAIN). The copy has the port: a drain that writes (every drain
   * beside a {@code dspout}) or reads (beside a {@code dspin}: it accumulates or gates) the scratchpad does not start
   * in those cycles, and a running one pauses for them ({@link GemmBackEnd#shareDrain}); beside a drain through the
   * PPM a {@code dspout} holds it from its decode cycle ({@link #dspCopy}).
   */
  void copied(boolean in, long start, long end) {
    if (!in) {
      back.shareDrain(Math.min(start, heldFrom), end);
    } else if (back.drainReads()) {
      back.shareDrain(start, end - 1);
    }
  }

  /**
   * A {@code ppmcfg} of parameter bank {@code bank}: while the running GEMM's PPM reads that bank it waits until the
   * back-end is idle, as every PPM command; otherwise it goes beside the back-end as a {@code dsprun} (it reads its
   * records over the memory port, so after a streamed GEMM's last W write, and writes only the other bank).
   */
  long ppmCfg(long now, int bank) {
    boolean reads = back.pending() && back.ppmBank() == bank;
    return dispatch(now, false, !reads, true);
  }

  /**
   * A STORE of scratchpad bytes [start, end) waits for the back-end: they overlap the results of the GEMM it runs, or
   * that GEMM's drain reads the scratchpad ({@link #drainReadsY}), whose one read port the STORE would need.
   */
  boolean storeWaits(long start, long end) {
    return back.resultsOverlap(start, end) || back.drainReads();
  }

  /**
   * The GEMM just modelled drains over the scratchpad's read port too ({@code accumulate=1}: the old Y line;
   * {@code gate=1}: the gate line of its codes): a STORE waits for its back-end, a {@code dspin} clear of its result
   * range goes at once and holds its drain's start, or pauses its drain, while it reads ({@link #dspCopy},
   * {@link #copied}). Its result range stays its Y range.
   */
  void drainReadsY() {
    back.drainReadsY();
  }
}
