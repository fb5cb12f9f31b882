package org.llmnpu.rtl.npu.axi;

import static org.llmnpu.hdl.Hw.bool;
import static org.llmnpu.hdl.Hw.mux;
import static org.llmnpu.hdl.Hw.uint;
import static org.llmnpu.hdl.Hw.uintLit;

import org.llmnpu.hdl.Bool;
import org.llmnpu.hdl.HwModule;
import org.llmnpu.hdl.UInt;

/**
 * The fetch beats' FIFO of the {@link NpuAxiMaster} (instance {@code fetchBeats}): R beats of the fetcher's ID, which
 * the slave may return before older DMA bursts (another ID), wait here until their burst is the oldest; the master
 * then hands them to the NPU in request order. Each entry: a line of data, RLAST and whether RRESP was an error.
 * {@code inReady} = fewer than {@code depth} entries (registered count); a push and a take may happen in one cycle;
 * {@code out*} show the oldest entry (a register file read by the read pointer). Depth: one fetch burst,
 * {@code max(1, 32 / line)} beats (a command is 32 bytes, and the master keeps at most one fetch burst outstanding
 * while a DMA burst is).
 */
public final class NpuAxiBeatFifo extends HwModule {
  public final Bool inValid = in(bool());
  public final Bool inReady = out(bool());
  public final UInt inData;
  public final Bool inLast = in(bool());
  public final Bool inError = in(bool());
  public final Bool outValid = out(bool());
  public final UInt outData;
  public final Bool outLast = out(bool());
  public final Bool outError = out(bool());
  public final Bool outTake = in(bool());
  private final int line;
  private final int depth;

  /** A FIFO of {@code depth} (1..64) beats of {@code lineBytes} bytes. */
  public NpuAxiBeatFifo(int lineBytes, int depth) {
    if (depth < 1 || depth > 64) {
      throw new IllegalArgumentException("depth must be in 1..64, got " + depth);
    }
    line = lineBytes;
    this.depth = depth;
    inData = in(uint(8 * line));
    outData = out(uint(8 * line));
    int ptrBits = Math.max(1, Integer.SIZE - Integer.numberOfLeadingZeros(depth - 1));
    int countBits = Integer.SIZE - Integer.numberOfLeadingZeros(depth);
    UInt wr = regInit("writePtr", uint(ptrBits), 0);
    UInt rd = regInit("readPtr", uint(ptrBits), 0);
    UInt count = regInit("count", uint(countBits), 0);
    UInt[] data = new UInt[depth];
    Bool[] last = new Bool[depth];
    Bool[] error = new Bool[depth];
    Bool push = wire("push", inValid.and(count.lt(depth)));
    Bool pop = wire("pop", outTake.and(count.ne(0)));
    for (int i = 0; i < depth; i++) {
      int slot = i;
      data[i] = reg("data" + i, uint(8 * line));
      last[i] = reg("last" + i, bool());
      error[i] = reg("error" + i, bool());
      when(push.and(wr.eq(slot)), () -> {
        data[slot].set(inData);
        last[slot].set(inLast);
        error[slot].set(inError);
      });
    }
    UInt headData = data[0];
    Bool headLast = last[0];
    Bool headError = error[0];
    for (int i = 1; i < depth; i++) {
      headData = mux(rd.eq(i), data[i], headData);
      headLast = mux(rd.eq(i), last[i], headLast);
      headError = mux(rd.eq(i), error[i], headError);
    }
    when(push, () -> wr.set(wrapAdd(wr)));
    when(pop, () -> rd.set(wrapAdd(rd)));
    when(push.and(pop.not()), () -> count.set(count.add(1)))
        .elseWhen(pop.and(push.not()), () -> count.set(count.sub(1)));
    inReady.set(count.lt(depth));
    outValid.set(count.ne(0));
    outData.set(headData);
    outLast.set(headLast);
    outError.set(headError);
  }

  private UInt wrapAdd(UInt ptr) {
    return mux(ptr.eq(depth - 1), uintLit(0, ptr.width()), ptr.add(1));
  }

  @Override
  public String moduleName() {
    return "NpuAxiBeatFifo_l" + line + "_d" + depth;
  }

  /** Flattened into the master (and the top) in synthesis. */
  @Override
  public boolean flattenInSynthesis() {
    return true;
  }
}
