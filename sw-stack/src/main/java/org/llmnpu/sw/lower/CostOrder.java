package org.llmnpu.sw.lower;

import org.llmnpu.isa.dsp.DspProgram;

/**
 * The order in which the cost model's walk ({@link CommandCosts}) feeds its costed commands to the cycle model: each
 * command comes as its cost (a closure that issues it and adds its counts) with what an order needs to know of it.
 * {@link #NOW} costs every command as it comes (program order, the default); {@link WalkSchedule} holds them and
 * costs them in the interleaver's order ({@link StreamSchedule}), window by window.
 */
interface CostOrder {
  /** Program order: every cost runs as it comes. */
  CostOrder NOW = new CostOrder() {
  };

  /**
   * A {@code load}/{@code load4} of {@code operator} (a profile row) into the scratchpad; {@code fromWritten}: from
   * the external bytes a step writes (the K/V cache, Kᵀ).
   */
  default void load(String operator, boolean fromWritten, Runnable cost) {
    cost.run();
  }

  /** A {@code store} of {@code operator} from the scratchpad. */
  default void store(String operator, Runnable cost) {
    cost.run();
  }

  /**
   * A {@code dspin} ({@code in}) or {@code dspout} of {@code rows} rows of {@code elems} elements of {@code elemBytes}
   * bytes; an INT32 {@code dspin} reads result buffers {@code [tag, tagEnd)} (tag 0: none).
   */
  default void copy(String operator, boolean in, long rows, long elems, int elemBytes, long tag, long tagEnd,
                    Runnable cost) {
    cost.run();
  }

  /**
   * A GEMM writing result buffer {@code tag} ({@code rows} rows); a streamed one's W beats {@code streamBeats} (−1:
   * its weights are in the scratchpad); {@code ppm}: its results drain through the PPM.
   */
  default void gemm(String operator, long tag, long rows, long streamBeats, boolean ppm, Runnable cost) {
    cost.run();
  }

  /** A {@code ppmcfg} or {@code pputab}. */
  default void ppm(Runnable cost) {
    cost.run();
  }

  /** A {@code dsprun} of {@code program}: plain ({@code entry} −1) or resident from word {@code entry}. */
  default void run(String operator, DspProgram program, int entry, Runnable cost) {
    cost.run();
  }

  /** A {@code dspld} of {@code words} program words at {@code at}. */
  default void programLoad(int at, long words, Runnable cost) {
    cost.run();
  }

  /** A command that orders everything (the step's first and last, the DSP's tables). */
  default void barrier(Runnable cost) {
    cost.run();
  }

  /** Costs every command held (a window's end: a layer start, a snapshot). */
  default void flush() {
  }

  /**
   * A point of the stream that orders nothing (a layer's start or end in a window across layers,
   * {@link DecoderLowering#acrossLayers}): {@code at} runs where the order reaches it, after every command before it
   * that has not moved past it.
   */
  default void marker(Runnable at) {
    at.run();
  }

  /** The commands from now on are token block {@code lane}'s (0, or 1 for the second block in flight). */
  default void lane(int lane) {
  }

  /** Commands moved beside a streamed GEMM (or loads started before one) so far. */
  default long moved() {
    return 0;
  }
}
