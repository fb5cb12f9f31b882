package org.llmnpu.rtl.npu.axi;

import static org.llmnpu.hdl.Hw.bits;
import static org.llmnpu.hdl.Hw.bool;
import static org.llmnpu.hdl.Hw.uint;

import org.llmnpu.hdl.Bits;
import org.llmnpu.hdl.Bool;
import org.llmnpu.hdl.HwModule;
import org.llmnpu.hdl.UInt;

/**
 * A two-entry request buffer in front of the {@link NpuAxiMaster}'s burst logic (instance {@code req} of the master):
 * the NPU's native request (valid, write, address, data, strobes, run hint, pacing gap, fetch flag) goes into the buffer, and the burst logic
 * takes its requests from the buffer's head. Its point is timing: {@code inReady} is a register ({@code !full}), so the
 * NPU's request handshake does not wait on the burst logic's 32-bit address compare (without it the AXI NPU's
 * critical path ran from the fetcher's program counter through that compare back into the fetcher, 7.94 ns).
 *
 * <p>Behaviour: {@code inReady} = the second entry is empty; a request offered with {@code inReady} high is stored
 * (into the head if the head is empty or leaves in the same cycle, else into the second entry); {@code outValid} and
 * the {@code out*} payload are the head's registers; {@code outTake} (the burst logic took the head) pops it, the
 * second entry moving up. So requests keep their order, a request a cycle passes through when the head leaves every
 * cycle, and the buffer adds exactly one cycle between the NPU's request and the burst logic seeing it.
 * {@code empty}: no entry.
 */
public final class NpuAxiRequestBuffer extends HwModule {
  public final Bool inValid = in(bool());
  public final Bool inReady = out(bool());
  public final Bool inWrite = in(bool());
  public final UInt inAddr = in(uint(NpuAxiMaster.ADDR));
  public final UInt inWdata;
  public final Bits inWstrb;
  public final UInt inRun = in(uint(16));
  /** The request's pacing gap ({@link NpuAxiMaster#GAP_BITS} bits), carried with it. */
  public final UInt inGap = in(uint(NpuAxiMaster.GAP_BITS));
  /** The request is the fetcher's. */
  public final Bool inFetch = in(bool());
  public final Bool outValid = out(bool());
  public final Bool outWrite = out(bool());
  public final UInt outAddr = out(uint(NpuAxiMaster.ADDR));
  public final UInt outWdata;
  public final Bits outWstrb;
  public final UInt outRun = out(uint(16));
  public final UInt outGap = out(uint(NpuAxiMaster.GAP_BITS));
  public final Bool outFetch = out(bool());
  public final Bool outTake = in(bool());
  public final Bool empty = out(bool());
  private final int line;

  /** The buffer for lines of {@code lineBytes} bytes. */
  public NpuAxiRequestBuffer(int lineBytes) {
    line = lineBytes;
    inWdata = in(uint(8 * line));
    inWstrb = in(bits(line));
    outWdata = out(uint(8 * line));
    outWstrb = out(bits(line));

    Bool v0 = regInit("headValid", bool(), 0);
    Bool w0 = reg("headWrite", bool());
    UInt a0 = reg("headAddr", uint(NpuAxiMaster.ADDR));
    UInt d0 = reg("headWdata", uint(8 * line));
    Bits s0 = reg("headWstrb", bits(line));
    UInt r0 = reg("headRun", uint(16));
    UInt g0 = reg("headGap", uint(NpuAxiMaster.GAP_BITS));
    Bool f0 = reg("headFetch", bool());
    Bool v1 = regInit("nextValid", bool(), 0);
    Bool w1 = reg("nextWrite", bool());
    UInt a1 = reg("nextAddr", uint(NpuAxiMaster.ADDR));
    UInt d1 = reg("nextWdata", uint(8 * line));
    Bits s1 = reg("nextWstrb", bits(line));
    UInt r1 = reg("nextRun", uint(16));
    UInt g1 = reg("nextGap", uint(NpuAxiMaster.GAP_BITS));
    Bool f1 = reg("nextFetch", bool());

    Bool push = wire("push", inValid.and(v1.not()));
    Bool pop = wire("pop", outTake.and(v0));
    Bool intoHead = wire("intoHead", push.and(v0.not().or(pop)));
    when(pop.and(v1), () -> {
      w0.set(w1);
      a0.set(a1);
      d0.set(d1);
      s0.set(s1);
      r0.set(r1);
      g0.set(g1);
      f0.set(f1);
      v1.set(false);
    }).elseWhen(intoHead, () -> {
      w0.set(inWrite);
      a0.set(inAddr);
      d0.set(inWdata);
      s0.set(inWstrb);
      r0.set(inRun);
      g0.set(inGap);
      f0.set(inFetch);
    }).elseWhen(pop, () -> v0.set(false));
    when(intoHead, () -> v0.set(true));
    when(push.and(intoHead.not()), () -> {
      w1.set(inWrite);
      a1.set(inAddr);
      d1.set(inWdata);
      s1.set(inWstrb);
      r1.set(inRun);
      g1.set(inGap);
      f1.set(inFetch);
      v1.set(true);
    });

    inReady.set(v1.not());
    outValid.set(v0);
    outWrite.set(w0);
    outAddr.set(a0);
    outWdata.set(d0);
    outWstrb.set(s0);
    outRun.set(r0);
    outGap.set(g0);
    outFetch.set(f0);
    empty.set(v0.not());
  }

  @Override
  public String moduleName() {
    return "NpuAxiRequestBuffer_l" + line;
  }

  /** Flattened into the master (and the top) in synthesis. */
  @Override
  public boolean flattenInSynthesis() {
    return true;
  }
}
