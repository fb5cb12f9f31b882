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
import org.llmnpu.hdl.HwModule;
import org.llmnpu.hdl.HwValue;
import org.llmnpu.hdl.UInt;

/**
 * The {@code load4} unpacker of the {@link Npu}'s load path: a memory beat ({@link #data}) of {@code line} source
 * bytes holds {@code 2·line} signed INT4 values (low nibble first) that become {@code 2·line} INT8 bytes
 * (sign-extended, {@code org.llmnpu.numerics} INT4 unpacking), two scratchpad lines. The first line (from the
 * beat's low half, {@link #first}) is written in the cycle the beat arrives ({@link #beat}), the second (high
 * half, {@link #second}) in the next cycle from a holding register, at {@link #line}{@code  + 1}; a short last beat
 * of a row ({@link #rowEnd} with {@link #remainder} {@code ≠ 0}) writes only the bytes it holds (masks), and a
 * second line only if it has bytes. So beats must arrive at least two cycles apart (the controller requests them
 * so). Latency: first line 0 cycles, second line 1 cycle; no added cycles beyond that:
 * {@code org.llmnpu.isa.CycleModel#load4}.
 */
public final class NpuLoad4 extends HwModule {
  /** A {@code load4} beat arrives. */
  public final Bool beat = in(bool());
  /** The memory's read data. */
  public final UInt data;
  /** The beat is the last of its row. */
  public final Bool rowEnd = in(bool());
  /** {@code rowBytes mod line} (0: whole lines). */
  public final UInt remainder;
  /** The scratchpad line of the beat's first line. */
  public final UInt line;
  /** The beat's first line (written with the beat: {@code valid} is {@link #beat}). */
  public final SpadWrite first;
  /** The previous beat's second line, written this cycle. */
  public final SpadWrite second;
  private final int bytes;
  private final int lineAddressBits;

  /** The unpacker of an NPU of configuration {@code c} (its line bytes and scratchpad lines). */
  public NpuLoad4(NpuConfig c) {
    bytes = c.machine().lineBytes();
    int lineShift = Integer.numberOfTrailingZeros(bytes);
    lineAddressBits = Integer.numberOfTrailingZeros(c.machine().spadBytes() / bytes);
    data = in(uint(8 * bytes));
    remainder = in(uint(lineShift + 1));
    line = in(uint(lineAddressBits));
    first = master(new SpadWrite(bytes, 0));
    second = master(new SpadWrite(bytes, lineAddressBits));
    // INT8 bytes of the beat: 2·(source bytes), at most 2·line
    UInt unpacked = wire("beatBytes", mux(rowEnd.and(remainder.ne(0)), remainder.resize(lineShift + 2),
        uintLit(bytes, lineShift + 2)).shiftLeft(1).resize(lineShift + 2));
    Bool needsSecond = wire("needsSecond", unpacked.gt(bytes));
    UInt firstShort = wire("firstShortBy", mux(needsSecond, uintLit(0, lineShift + 2),
        uintLit(bytes, lineShift + 2).sub(unpacked)).resize(lineShift + 1));
    UInt secondShort = wire("secondShortBy", uintLit(2 * bytes, lineShift + 2).sub(unpacked)
        .resize(lineShift + 1));
    Bits ones = NpuScratchpad.allBytes(bytes);
    first.valid.set(beat);
    first.data.set(unpack(data, 0, bytes));
    first.mask.set(ones.shiftRight(firstShort));
    Bool pending = regInit("pending", bool(), 0);
    UInt pendingLine = regInit("pendingLine", uint(lineAddressBits), 0);
    UInt pendingData = regInit("pendingData", uint(8 * bytes), 0);
    Bits pendingMask = regInit("pendingMask", bits(bytes), 0);
    pending.set(beat.and(needsSecond));
    when(beat, () -> {
      pendingLine.set(line.add(1));
      pendingData.set(unpack(data, bytes / 2, bytes));
      pendingMask.set(ones.shiftRight(secondShort));
    });
    second.valid.set(pending);
    second.line.set(pendingLine);
    second.data.set(pendingData);
    second.mask.set(pendingMask);
  }

  /** Synthesized inside the NPU's top: its paths continue through the other units. */
  @Override
  public boolean flattenInSynthesis() {
    return true;
  }

  @Override
  public String moduleName() {
    return "NpuLoad4_l" + bytes + "_a" + lineAddressBits;
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
