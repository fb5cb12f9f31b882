package org.llmnpu.rtl.npu;

import static org.llmnpu.hdl.Hw.bool;
import static org.llmnpu.hdl.Hw.boolLit;
import static org.llmnpu.hdl.Hw.catLsbFirst;
import static org.llmnpu.hdl.Hw.mux;
import static org.llmnpu.hdl.Hw.uint;

import java.util.ArrayList;
import java.util.List;
import org.llmnpu.hdl.Bool;
import org.llmnpu.hdl.HwValue;
import org.llmnpu.hdl.UInt;
import org.llmnpu.isa.Counter;

/**
 * The {@code snapshot} command's data: every counter's value of the command's first cycle, laid out as the
 * memory image — 64 bits little-endian per {@link Counter}, in order — and cut into lines of the store.
 *
 * <p>Timing: the dispatch only sets {@link #take} (one flip-flop). In the command's first cycle the image is
 * the counter registers themselves (which hold exactly the values of that cycle), and at its end the latch
 * takes them; from the second cycle on the image is the latch. So the latch's D input comes from registers
 * (the counters) through one mux instead of from the controller's state through the counters' next-value
 * adders, and the stored values and the cycles are those of a latch taken on the dispatch edge.
 */
final class NpuSnapshot {
  /** Bytes the snapshot writes. */
  static final int BYTES = 8 * Counter.values().length;
  private final UInt latch;
  /** The counters' registers (set by {@link #takeFrom}). */
  private final UInt live;
  /** The first cycle of a {@code snapshot}: the image is {@link #live}, and the latch takes it. */
  private final Bool take;
  private final int lineBits;
  private final Npu npu;

  NpuSnapshot(Npu npu, int line, int counterBits) {
    this.npu = npu;
    lineBits = 8 * line;
    latch = npu.reg0("snapshot_latch", uint(counterBits * Counter.values().length));
    live = npu.wireOf("snapshot_live", uint(counterBits * Counter.values().length));
    take = npu.reg0("snapshot_take", bool());
    take.set(boolLit(false));
  }

  /** Beats of the snapshot's store. */
  static int beats(int line) {
    return (BYTES + line - 1) / line;
  }

  /** Statement (at dispatch): the next cycle is the snapshot's first; latch the counters then. */
  void capture() {
    take.set(boolLit(true));
  }

  /** The counter registers (in {@link Counter} order), which the latch takes in the snapshot's first cycle. */
  void takeFrom(List<UInt> counterRegisters) {
    List<HwValue> parts = new ArrayList<>(counterRegisters);
    live.set(catLsbFirst(parts).asUInt());
    npu.whenDo(take, () -> latch.set(live));
  }

  /** The line of beat {@code beat}. */
  UInt line(Npu npu, UInt beat) {
    int n = Counter.values().length;
    UInt values = npu.wireOf("snapshot_values", mux(take, live, latch));
    int bits = latch.width() / n;
    List<HwValue> words = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      words.add(values.slice(bits * i + bits - 1, bits * i).resize(64));
    }
    int beats = (64 * n + lineBits - 1) / lineBits;
    UInt image = catLsbFirst(words).asUInt().resize(beats * lineBits);
    UInt out = image.lsbs(lineBits);
    for (int j = 1; j < beats; j++) {
      out = mux(beat.eq(j), image.slice(lineBits * j + lineBits - 1, lineBits * j), out);
    }
    return npu.wireOf("snapshot_line", out);
  }
}
