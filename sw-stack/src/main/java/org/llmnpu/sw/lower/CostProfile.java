package org.llmnpu.sw.lower;

import java.util.Map;
import java.util.TreeMap;

/**
 * Where a costed program's cycles go ({@link CommandCosts}): per "operator / command kind" the cycles each command
 * advanced the program's end by (as {@link CommandKindProfile}), its commands and the cycles it waited for a GEMM's
 * back-end; and over the program the window the GEMMs' back-ends ran beside the controller and the part of it the
 * controller spent waiting ({@link PhaseCostModel#besideWindowCycles}, {@link PhaseCostModel#backEndWaitCycles});
 * and per row the cycles of its commands in which no GEMM back-end ran (the controller alone on the critical path:
 * {@link #waited}, each command's span against the last GEMM's back-end run).
 */
final class CostProfile {
  /** "operator / kind" → {cycles, commands, waited, back-end idle}; null while off ({@link #start}). */
  private Map<String, long[]> rows;
  private String operator = "other";
  private String chargedKey;
  private long chargedFrom;
  private long besideWindow;
  private long backEndWaits;
  /** The last GEMM's back-end run: from its command's first execution cycle to the first idle cycle read so far. */
  private long busyFrom;
  private long busyUntil;
  /** The run of the GEMM before it (its end may lie inside the span of the command that started the last one). */
  private long lastFrom;
  private long lastUntil;

  /** A fresh program: nothing charged, no window, no waits (the rows, if on, are kept). */
  void reset() {
    chargedKey = null;
    chargedFrom = 0;
    busyFrom = 0;
    busyUntil = 0;
    lastFrom = 0;
    lastUntil = 0;
    besideWindow = 0;
    backEndWaits = 0;
  }

  /** Keeps the rows from now on. */
  void start() {
    rows = new TreeMap<>();
  }

  /** The commands issued from now on belong to {@code name} (a row's first half). */
  void operator(String name) {
    operator = name;
  }

  String operator() {
    return operator;
  }

  /**
   * At cycle {@code now} (the program's end so far): charges the previous command's cycles to its row and starts
   * {@code kind}'s (null: none).
   */
  void charge(String kind, long now, long backEndIdleFrom) {
    if (rows == null) {
      return;
    }
    if (backEndIdleFrom != now) {
      // a GEMM is pending (CycleModel#backEndIdleFrom: now when none is; final once it lies before a command's start)
      busyUntil = backEndIdleFrom;
    }
    if (chargedKey != null) {
      long[] row = rows.computeIfAbsent(chargedKey, k -> new long[4]);
      row[0] += now - chargedFrom;
      long busy = Math.max(0, Math.min(now, busyUntil) - Math.max(chargedFrom, busyFrom))
          + Math.max(0, Math.min(now, lastUntil) - Math.max(chargedFrom, lastFrom));
      row[3] += now - chargedFrom - busy;
    }
    chargedFrom = now;
    chargedKey = kind == null ? null : operator + " / " + kind;
    if (chargedKey != null) {
      rows.computeIfAbsent(chargedKey, k -> new long[4])[1]++;
    }
  }

  /**
   * The command being charged waited {@code cycles} for a GEMM's back-end before it could start, in cycle
   * {@code start}; a GEMM's back-end starts there (its X copy, a streamed GEMM's W stream and engine run).
   */
  void waited(long cycles, long start) {
    if (chargedKey != null && chargedKey.contains(" / gemm")) {
      lastFrom = busyFrom;
      lastUntil = Math.min(busyUntil, start);
      busyFrom = start;
    }
    backEndWaits += cycles;
    if (rows != null && chargedKey != null) {
      rows.get(chargedKey)[2] += cycles;
    }
  }

  /** A GEMM's back-end runs {@code cycles} after the controller took the next command. */
  void beside(long cycles) {
    besideWindow += cycles;
  }

  /** The rows so far (empty when off). */
  Map<String, long[]> rows() {
    return rows == null ? Map.of() : rows;
  }

  /**
   * The cycles since {@link CommandCosts#reset} in which a GEMM's back-end (a streamed GEMM's W stream, the engine's
   * passes, the drain) still ran after the controller had taken the next command: summed over the GEMMs, each
   * {@code CycleModel#backEndIdleFrom} − the controller's release. The most DSP work any command order could put
   * beside the GEMMs (the npu-isa Overlap rules: a command goes beside the back-end; beside a W stream only a
   * {@code dspin}, a {@code dspout} or a resident {@code dsprun}, every other command after the stream's last W
   * write).
   */
  long besideWindow() {
    return besideWindow;
  }

  /**
   * The cycles since {@link CommandCosts#reset} in which the controller had a decoded command but waited for a GEMM's
   * back-end (the {@link #besideWindow} left unused): what a command order with other work ready there could gain at
   * most.
   */
  long backEndWaits() {
    return backEndWaits;
  }
}
