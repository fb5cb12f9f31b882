package org.llmnpu.isa;

import java.util.Arrays;

/**
 * {@link CycleModel}'s command fetcher: it reads commands ahead into the command queue (depth =
 * {@link MachineParams#commandQueueDepth}), a beat in every cycle in which the controller does not want the memory
 * and the memory is free (see {@link CycleModel}, "Command fetch"). It keeps when the controller entered FETCH for
 * each command ({@code E_k}) and when each command landed ({@code A_k}, the cycle after its last beat arrives).
 */
final class CommandFetcher {
  private final MachineParams p;
  private final MemoryPort port;
  /** The cycle in which the controller entered FETCH for (or decoded directly) command k: {@code E_k}. */
  private final Cycles entered = new Cycles();
  /** The cycle in which command j lands (the cycle after its last beat arrives). */
  private final Cycles landings = new Cycles();
  private long command;
  private int beat;
  /** The first cycle in which the fetcher may issue its next beat. */
  private long from;
  private long beats;
  private long firstBadCommand = Long.MAX_VALUE;

  CommandFetcher(MachineParams p, MemoryPort port) {
    this.p = p;
    this.port = port;
    begin(0);
  }

  /** A growing list of cycles, unboxed: a large model's step runs millions of commands. */
  private static final class Cycles {
    private long[] values = new long[1024];
    private int size;

    void add(long v) {
      if (size == values.length) {
        values = Arrays.copyOf(values, 2 * size);
      }
      values[size++] = v;
    }

    long get(int i) {
      if (i >= size) {
        throw new IndexOutOfBoundsException("cycle " + i + " of " + size);
      }
      return values[i];
    }

    int size() {
      return size;
    }
  }

  /** See {@link CycleModel#begin}. */
  void begin(long programAddress) {
    boolean aligned = programAddress % Command.BYTES == 0;
    long fitting = (p.extMemBytes() - programAddress) / Command.BYTES;
    firstBadCommand = aligned && programAddress <= p.extMemBytes() ? fitting : 0;
  }

  /** The controller enters FETCH for its next command in cycle {@code now}; returns that command's index. */
  int enter(long now) {
    entered.add(now);
    return entered.size() - 1;
  }

  /** The cycle in which command {@code k} lands (the fetcher runs until its last beat is issued). */
  long landing(int k) {
    advance(Long.MAX_VALUE, k);
    return landings.get(k);
  }

  /** The controller holds the memory until cycle {@code last}: the fetcher issues no beat before the cycle after. */
  void holdUntilAfter(long last) {
    from = Math.max(from, last + 1);
  }

  /** Beats the fetcher has issued (they count in {@code extReadBeats}). */
  long beats() {
    return beats;
  }

  /**
   * Runs the fetcher in the cycles before {@code limit} (and, with {@code throughCommand} ≥ 0, only until that
   * command's last beat is issued): it issues a beat in a cycle in which the controller does not want the memory
   * and the memory is free, starting command j once command {@code j − depth} is done (the controller has entered
   * FETCH for command {@code j − depth + 1}, cycle {@code E_{j−depth+1}}); the rest of a started command follows
   * beat by beat. A beat it waits for is a stall cycle.
   */
  void advance(long limit, long throughCommand) {
    int depth = p.commandQueueDepth();
    while (command < firstBadCommand && (throughCommand < 0 || command <= throughCommand)) {
      long start = from;
      if (beat == 0) {
        long released = command - depth + 1;
        if (released > 0) {
          if (released >= entered.size()) {
            return;
          }
          start = Math.max(start, entered.get((int) released));
        }
      }
      if (start >= limit) {
        return;
      }
      long at = Math.max(start, port.free);
      if (at >= limit) {
        port.stalls += limit - start;
        from = limit;
        return;
      }
      port.stalls += at - start;
      port.free = at + p.beatInterval();
      beats++;
      from = at + 1;
      if (++beat == p.beatsPerCommand()) {
        landings.add(at + p.memLatency() + 1);
        beat = 0;
        command++;
      }
    }
  }
}
