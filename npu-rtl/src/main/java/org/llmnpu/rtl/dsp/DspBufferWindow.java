package org.llmnpu.rtl.dsp;

import static org.llmnpu.hdl.Hw.mux;
import static org.llmnpu.hdl.Hw.uintLit;

import java.util.List;
import org.llmnpu.hdl.Bool;
import org.llmnpu.hdl.UInt;

/**
 * The {@link VectorDsp}'s buffer window: W consecutive elements from element x, element i in lane
 * {@code (x + i) mod lanes}, row {@code (x + i) / lanes}. Every lane holds at most one of them, so each lane's buffer
 * is written or read once, with its own row ({@code x / lanes}, or the next one for the lanes below
 * {@code x mod lanes}); the window's elements reach the lanes through a rotation by {@code x mod lanes}.
 */
final class DspBufferWindow {
  private DspBufferWindow() {
  }

  /**
   * Lane {@code l}'s host port: it holds window element {@code i = (l − x) mod lanes}, written when i &lt; W and its
   * mask bit is set.
   */
  static void connect(DspLane lane, int l, UInt address, UInt mask, UInt data, Bool write, UInt row, int laneBits,
                      int window) {
    UInt first = address.lsbs(laneBits);
    UInt index = uintLit(l, laneBits).sub(first);
    Bool enabled = mask.bit(0).and(index.eq(0));
    UInt value = data.lsbs(16);
    for (int i = 1; i < window; i++) {
      enabled = mux(index.eq(i), mask.bit(i), enabled);
      value = mux(index.eq(i), data.slice(16 * i + 15, 16 * i), value);
    }
    lane.hostWrite.set(write.and(enabled));
    // the last lane is never below the window's first element's lane: its row is the first's
    lane.hostRow.set(l == (1 << laneBits) - 1 ? row : mux(first.gt(l), row.add(1), row));
    lane.hostData.set(value);
  }

  /** Window element {@code i}: the host read of lane {@code (x + i) mod lanes}. */
  static UInt read(List<DspLane> lanes, int i, UInt address, int laneBits) {
    UInt read = uintLit(0, 16);
    for (int l = 0; l < lanes.size(); l++) {
      read = laneBits == 0 ? lanes.get(l).hostRead
          : mux(address.lsbs(laneBits).add(i).eq(l), lanes.get(l).hostRead, read);
    }
    return read;
  }
}
