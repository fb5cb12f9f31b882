package org.llmnpu.rtl.npu;

import static org.llmnpu.hdl.Hw.bits;
import static org.llmnpu.hdl.Hw.bool;
import static org.llmnpu.hdl.Hw.catLsbFirst;
import static org.llmnpu.hdl.Hw.mux;
import static org.llmnpu.hdl.Hw.uint;
import static org.llmnpu.hdl.Hw.uintLit;

import java.util.ArrayList;
import java.util.List;
import org.llmnpu.hdl.Bits;
import org.llmnpu.hdl.Bool;
import org.llmnpu.hdl.HwValue;
import org.llmnpu.hdl.UInt;
import org.llmnpu.isa.MachineParams;

/**
 * The {@code load4} datapath of the {@link Npu}: a memory beat of {@code line} source bytes holds
 * {@code 2·line} signed INT4 values (low nibble first) that become {@code 2·line} INT8 bytes, two
 * scratchpad lines. The first line (from the beat's low half) is written in the cycle the beat
 * arrives, the second (high half) in the next cycle from a holding register; a short last beat of
 * a row writes only the bytes it holds (masks), and a second line only if it has bytes. So beats
 * must arrive at least two cycles apart (the controller requests them so); no added latency beyond
 * that cycle: {@code org.llmnpu.isa.CycleModel#load4}.
 */
final class NpuLoad4 {
  /** A beat arrives (first line written now). */
  final Bool beat;
  final UInt firstData;
  final Bits firstMask;
  /** The second line of the previous beat is written this cycle. */
  final Bool pending;
  final UInt pendingLine;
  final UInt pendingData;
  final Bits pendingMask;

  /**
   * @param beat       a {@code load4} beat arrives
   * @param data       the memory's read data
   * @param rowEnd     the beat is the last of its row
   * @param remainder  {@code rowBytes mod line} (0: whole lines)
   * @param line       the scratchpad line of the beat's first line
   */
  NpuLoad4(Npu npu, MachineParams p, Bool beat, UInt data, Bool rowEnd, UInt remainder, UInt line) {
    int bytes = p.lineBytes();
    int lineShift = Integer.numberOfTrailingZeros(bytes);
    this.beat = npu.wireOf("load4_beat", beat);
    // INT8 bytes of the beat: 2·(source bytes), at most 2·line
    UInt unpacked = npu.wireOf("load4_beatBytes", mux(rowEnd.and(remainder.ne(0)), remainder.resize(lineShift + 2),
        uintLit(bytes, lineShift + 2)).shiftLeft(1).resize(lineShift + 2));
    Bool second = npu.wireOf("load4_needsSecond", unpacked.gt(bytes));
    UInt firstShort = npu.wireOf("load4_firstShortBy", mux(second, uintLit(0, lineShift + 2),
        uintLit(bytes, lineShift + 2).sub(unpacked)).resize(lineShift + 1));
    UInt secondShort = npu.wireOf("load4_secondShortBy", uintLit(2 * bytes, lineShift + 2).sub(unpacked)
        .resize(lineShift + 1));
    Bits ones = NpuScratchpad.allBytes(bytes);
    firstData = npu.wireOf("load4_low", unpack(data, 0, bytes));
    firstMask = npu.wireOf("load4_firstMask", ones.shiftRight(firstShort));
    pending = npu.reg0("load4_pending", bool());
    pendingLine = npu.reg0("load4_pendingLine", uint(line.width()));
    pendingData = npu.reg0("load4_pendingData", uint(8 * bytes));
    pendingMask = npu.reg0("load4_pendingMask", bits(bytes));
    pending.set(beat.and(second));
    npu.whenDo(beat, () -> {
      pendingLine.set(line.add(1));
      pendingData.set(unpack(data, bytes / 2, bytes));
      pendingMask.set(ones.shiftRight(secondShort));
    });
  }

  /** INT8 bytes of the signed INT4 nibbles (low nibble first) of bytes {@code from .. from + line/2 − 1}. */
  private static UInt unpack(UInt data, int from, int line) {
    List<HwValue> out = new ArrayList<>();
    for (int i = from; i < from + line / 2; i++) {
      out.add(data.slice(8 * i + 3, 8 * i).asSInt().resize(8));
      out.add(data.slice(8 * i + 7, 8 * i + 4).asSInt().resize(8));
    }
    return catLsbFirst(out).asUInt();
  }
}
