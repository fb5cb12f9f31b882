package org.llmnpu.rtl.npu;

import static org.llmnpu.hdl.Hw.catLsbFirst;
import static org.llmnpu.hdl.Hw.mux;
import static org.llmnpu.hdl.Hw.uint;

import java.util.ArrayList;
import java.util.List;
import org.llmnpu.hdl.HwValue;
import org.llmnpu.hdl.UInt;
import org.llmnpu.isa.Counter;

/**
 * The {@code snapshot} command's data: a register that takes every counter's value of the command's
 * first cycle (latched on the dispatch edge from the counters' next values), laid out as the memory
 * image — 64 bits little-endian per {@link Counter}, in order — and cut into lines of the store.
 */
final class NpuSnapshot {
  /** Bytes the snapshot writes. */
  static final int BYTES = 8 * Counter.values().length;
  private final UInt latch;
  private final int lineBits;

  NpuSnapshot(Npu npu, int line, int counterBits) {
    lineBits = 8 * line;
    latch = npu.reg0("snapshot_latch", uint(counterBits * Counter.values().length));
  }

  /** Beats of the snapshot's store. */
  static int beats(int line) {
    return (BYTES + line - 1) / line;
  }

  /** Statement: latch these counter values (in {@link Counter} order). */
  void capture(List<UInt> values) {
    List<HwValue> parts = new ArrayList<>(values);
    latch.set(catLsbFirst(parts).asUInt());
  }

  /** The line of beat {@code beat}. */
  UInt line(Npu npu, UInt beat) {
    int n = Counter.values().length;
    int bits = latch.width() / n;
    List<HwValue> words = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      words.add(latch.slice(bits * i + bits - 1, bits * i).resize(64));
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
