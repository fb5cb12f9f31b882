package org.llmnpu.rtl.npu;

import static org.llmnpu.hdl.Hw.mux;
import static org.llmnpu.hdl.Hw.uint;
import static org.llmnpu.hdl.Hw.uintLit;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.llmnpu.hdl.Bool;
import org.llmnpu.hdl.UInt;
import org.llmnpu.isa.Counter;

/** The performance counters of the {@link Npu}: one 48-bit register per {@link Counter}, cleared at start. */
final class NpuCounters {
  private static final int BITS = 48;
  private final Npu npu;
  private final Map<Counter, UInt> regs = new EnumMap<>(Counter.class);
  private final Map<Counter, List<Bool>> conditions = new EnumMap<>(Counter.class);
  private final Map<Counter, List<UInt>> amounts = new EnumMap<>(Counter.class);

  NpuCounters(Npu npu) {
    this.npu = npu;
    for (Counter c : Counter.values()) {
      regs.put(c, npu.reg0("counter_" + c.key(), uint(BITS)));
      conditions.put(c, new ArrayList<>());
      amounts.put(c, new ArrayList<>());
    }
  }

  void count(Counter c, Bool when) {
    add(c, when, uintLit(1, 1));
  }

  void add(Counter c, Bool when, UInt amount) {
    conditions.get(c).add(when);
    amounts.get(c).add(amount);
  }

  /** The counters' registers, in {@link Counter} order. */
  List<UInt> registers() {
    List<UInt> out = new ArrayList<>();
    for (Counter c : Counter.values()) {
      out.add(regs.get(c));
    }
    return out;
  }

  /**
   * Emits every counter's update: cleared when {@code clear}, else incremented by its amounts. Timing: the
   * conditions come late (the DSP's stall, the memory handshake), so they do not feed the 48-bit carry chain;
   * every subset's sum {@code register + amounts} is computed from the register and the amounts alone, and the
   * conditions only pick one of them (for more than {@link #PRECOMPUTED} terms the rest are added after).
   */
  void clearOn(Bool clear) {
    for (Counter c : Counter.values()) {
      UInt r = regs.get(c);
      List<Bool> cond = conditions.get(c);
      List<UInt> amt = new ArrayList<>();
      for (UInt a : amounts.get(c)) {
        amt.add(a.resize(BITS));
      }
      int early = Math.min(cond.size(), PRECOMPUTED);
      UInt next = pick(r, cond, amt, early);
      for (int i = early; i < cond.size(); i++) {
        next = next.add(mux(cond.get(i), amt.get(i), uintLit(0, BITS)));
      }
      UInt sum = npu.wireOf("counter_" + c.key() + "_next", next);
      npu.whenElse(clear, () -> r.set(uintLit(0, BITS)), () -> r.set(sum));
    }
  }

  /** Terms per counter whose every subset sum is computed ahead of the conditions (2^n adders). */
  private static final int PRECOMPUTED = 3;

  /** {@code r} plus the amounts of the first {@code n} terms whose conditions hold, as a mux tree over subsets. */
  private static UInt pick(UInt r, List<Bool> cond, List<UInt> amt, int n) {
    UInt[] sums = new UInt[1 << n];
    for (int subset = 0; subset < sums.length; subset++) {
      UInt s = r;
      for (int i = 0; i < n; i++) {
        if ((subset >> i & 1) != 0) {
          s = s.add(amt.get(i));
        }
      }
      sums[subset] = s;
    }
    // select bit by bit, the last term's condition nearest the register
    for (int i = 0; i < n; i++) {
      UInt[] half = new UInt[sums.length / 2];
      for (int j = 0; j < half.length; j++) {
        half[j] = mux(cond.get(i), sums[2 * j + 1], sums[2 * j]);
      }
      sums = half;
    }
    return sums[0];
  }

  /** The events of the {@link Npu}'s units; {@code busy}: the NPU runs a program. */
  void connect(Npu n, Bool busy) {
    Walker sp = n.dma.sp;
    UInt remainder = n.dma.remainder;
    int lineShift = n.lineShift;
    count(Counter.CYCLES, busy);
    count(Counter.COMMANDS, n.inState(Npu.State.DECODE));
    UInt beatBytes = n.wireOf("beatBytes", mux(sp.lastInRow().and(remainder.ne(0)), remainder.resize(lineShift + 1),
        uintLit(n.line, lineShift + 1)));
    add(Counter.DMA_LOAD_BYTES, n.dma.loadWrite.or(n.dma.load4.beat), beatBytes);
    add(Counter.DMA_STORE_BYTES, n.inStore.and(n.fire), beatBytes);
    count(Counter.EXT_READ_BEATS, n.fire.and(n.mem_req_write.not()).or(n.fetch.fire));
    count(Counter.EXT_WRITE_BEATS, n.fire.and(n.mem_req_write));
    add(Counter.MACS, n.inState(Npu.State.GEMM_START), n.gemm.macsRegister());
    add(Counter.PSUM_WRITEBACKS, n.back.drainStarts, n.gemm.engine.psumWritebacks);
    NpuDsp dsp = n.dsp.unit;
    if (n.config().weightRowsPerCycle() == 1) {
      count(Counter.SPAD_READS, n.inStore.and(n.fire).or(n.inState(Npu.State.GEMM_X))
          .or(n.inState(Npu.State.GEMM_W))
          .or(n.inDspIn.and(dsp.lineStart)).or(n.inPpmRun));
    } else {
      // the W copy reads several lines a cycle
      count(Counter.SPAD_READS, n.inStore.and(n.fire).or(n.inState(Npu.State.GEMM_X)).or(n.inDspIn.and(dsp.lineStart)).or(n.inPpmRun));
      add(Counter.SPAD_READS, n.inState(Npu.State.GEMM_W), n.gemm.weightLinesRead());
    }
    count(Counter.SPAD_READS, n.back.drainReads);
    // dspout writes a line element by element: one line write when it starts a line
    count(Counter.SPAD_WRITES, n.spad.write.and(n.inDspOut.and(dsp.lineStart.not()).not()));
    count(Counter.FETCH_CYCLES, n.inFetch.or(n.inState(Npu.State.DECODE)));
    count(Counter.DMA_CYCLES, n.inLoad.or(n.inStore).or(n.inLoad4).or(n.inLoad4End).or(n.inSnap));
    count(Counter.GEMM_CYCLES, n.state.ge(Npu.st(Npu.State.GEMM_X)).and(n.state.le(Npu.st(Npu.State.GEMM_START)))
        .or(n.back.idle.not()));
    count(Counter.ARRAY_CYCLES, n.inState(Npu.State.GEMM_START)
        .or(n.back.state.eq(Npu.bk(Npu.Back.RUN)).and(n.gemm.engine.done.not())));
    count(Counter.MEM_STALL_CYCLES, n.mem_req_valid.and(n.mem_req_ready.not()));
    count(Counter.DSP_INSTRUCTIONS, n.inDspRun.and(dsp.dsp.busy).and(dsp.dsp.stalled.not()).and(n.dsp.runExpired.not()));
    count(Counter.DSP_ELEMENTS, n.inDspIn.or(n.inDspOut));
    count(Counter.DSP_CYCLES, n.inDspTab.or(n.inDspProg).or(n.inDspRun).or(n.inDspIn).or(n.inDspOut));
    add(Counter.DENSE_MACS, n.inState(Npu.State.GEMM_START), n.gemm.denseMacs());
    add(Counter.PPM_ELEMENTS, n.inPpmRun.and(sp.lastInRow()), n.ppm.lanes);
    count(Counter.PPM_CYCLES, n.inPpmLoad.or(n.inPpmRun).or(n.inPpmDrain));
    clearOn(n.inState(Npu.State.IDLE).and(n.start));
  }

  UInt select(UInt sel) {
    UInt out = uintLit(0, 64);
    for (Counter c : Counter.values()) {
      out = mux(sel.eq(c.ordinal()), regs.get(c).resize(64), out);
    }
    return out;
  }
}
