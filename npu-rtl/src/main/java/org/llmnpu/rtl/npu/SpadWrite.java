package org.llmnpu.rtl.npu;

import static org.llmnpu.hdl.Hw.bits;
import static org.llmnpu.hdl.Hw.bool;
import static org.llmnpu.hdl.Hw.uint;

import org.llmnpu.hdl.Bits;
import org.llmnpu.hdl.Bool;
import org.llmnpu.hdl.Bundle;
import org.llmnpu.hdl.Data;
import org.llmnpu.hdl.UInt;

/**
 * One writer's request on the {@link NpuScratchpad}'s write arbiter: in a cycle with {@code valid}, the bytes of
 * {@code data} whose {@code mask} bit is set go to scratchpad line {@code line} (absent for the writers that
 * write at the DMA's scratchpad walk, {@link NpuScratchpad#walkLine}).
 */
public final class SpadWrite extends Bundle {
  public final Bool valid = bool();
  public final UInt line;
  public final UInt data;
  public final Bits mask;
  private final int lineBytes;
  private final int lineAddressBits;

  /** A request of {@code lineBytes}-byte lines; {@code lineAddressBits} 0: no {@code line} (the walk's). */
  public SpadWrite(int lineBytes, int lineAddressBits) {
    this.lineBytes = lineBytes;
    this.lineAddressBits = lineAddressBits;
    line = lineAddressBits == 0 ? null : uint(lineAddressBits);
    data = uint(8 * lineBytes);
    mask = bits(lineBytes);
  }

  @Override
  public Data copyType() {
    return new SpadWrite(lineBytes, lineAddressBits);
  }
}
