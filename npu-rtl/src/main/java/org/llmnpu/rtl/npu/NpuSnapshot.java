package org.llmnpu.rtl.npu;

import static org.llmnpu.hdl.Hw.bool;
import static org.llmnpu.hdl.Hw.catLsbFirst;
import static org.llmnpu.hdl.Hw.mux;
import static org.llmnpu.hdl.Hw.uint;

import java.util.ArrayList;
import java.util.List;
import org.llmnpu.hdl.Bool;
import org.llmnpu.hdl.HwModule;
import org.llmnpu.hdl.HwValue;
import org.llmnpu.hdl.UInt;
import org.llmnpu.isa.Counter;

/**
 * The {@code snapshot} command's data unit: every counter's value of the command's first cycle, laid out as the
 * memory image — 64 bits little-endian per {@link Counter}, in order — and cut into the lines of the store:
 * {@link #line} is line {@link #beat} of the image. {@link #capture} (the dispatch) makes the next cycle the
 * snapshot's first. Latency: the image is fixed from that first cycle on; {@link #beats} lines.
 *
 * <p>Timing: the dispatch only sets one flip-flop ({@code take}). In the command's first cycle the image is the
 * counter registers themselves ({@link #counters}, which hold exactly the values of that cycle), and at its end
 * the latch takes them; from the second cycle on the image is the latch. So the latch's D input comes from
 * registers (the counters) through one mux instead of from the controller's state through the counters'
 * next-value adders, and the stored values and the cycles are those of a latch taken on the dispatch edge. The
 * latch's clock is gated ({@link NpuClockGates#SNAPSHOT_LATCH}): it ticks only in the snapshots' first cycles.
 */
public final class NpuSnapshot extends HwModule {
  /** Bytes the snapshot writes. */
  static final int BYTES = 8 * Counter.values().length;
  /** The dispatch of a {@code snapshot}: the next cycle is its first. */
  public final Bool capture = in(bool());
  /** Every counter, {@link NpuCounters#BITS} bits each in {@link Counter} order ({@link NpuCounters#values}). */
  public final UInt counters = in(uint(NpuCounters.BITS * Counter.values().length));
  /** The store's beat (line of the image). */
  public final UInt beat = in(uint(16));
  public final UInt line;
  private final int lineBytes;

  /** The snapshot of an NPU with lines of {@code c.machine().lineBytes()} bytes. */
  public NpuSnapshot(NpuConfig c) {
    lineBytes = c.machine().lineBytes();
    int lineBits = 8 * lineBytes;
    line = out(uint(lineBits));
    Bool take = regInit("take", bool(), 0);
    take.set(capture);
    // written once per snapshot: on a clock gate opened by the take (NpuClockGates)
    UInt[] latched = new UInt[1];
    clockGated(NpuClockGates.SNAPSHOT_LATCH, take, c.clockGatingMode(),
        () -> latched[0] = regInit("latch", uint(counters.width()), 0));
    UInt latch = latched[0];
    when(take, () -> latch.set(counters));
    int n = Counter.values().length;
    UInt values = wire("values", mux(take, counters, latch));
    int bits = NpuCounters.BITS;
    List<HwValue> words = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      words.add(values.slice(bits * i + bits - 1, bits * i).resize(64));
    }
    int beats = beats(lineBytes);
    UInt image = catLsbFirst(words).asUInt().resize(beats * lineBits);
    UInt out = image.lsbs(lineBits);
    for (int j = 1; j < beats; j++) {
      out = mux(beat.eq(j), image.slice(lineBits * j + lineBits - 1, lineBits * j), out);
    }
    line.set(out);
  }

  /** Beats of the snapshot's store. */
  static int beats(int line) {
    return (BYTES + line - 1) / line;
  }

  /** Synthesized inside the NPU's top: its paths continue through the other units. */
  @Override
  public boolean flattenInSynthesis() {
    return true;
  }

  @Override
  public String moduleName() {
    return "NpuSnapshot_l" + lineBytes;
  }
}
