package org.llmnpu.rtl.npu;

import static org.llmnpu.hdl.Hw.cat;
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

/**
 * The performance counters of the {@link Npu}: a 48-bit value per {@link Counter}, cleared at start.
 *
 * <p>Timing: a mapped 48-bit incrementer is a ripple chain of about 6.5 ns at 180 nm, longer than the target
 * clock, and the counting conditions come late (the DSP's stall, the memory handshake). So each counter is a low
 * part of {@link #LOW} bits, a high part, and the low part's carry out of the previous cycle, added into the high
 * part one cycle later: the value is {@code (high + carry)·2^LOW + low}, formed where it is read (the
 * {@code counterValue} port and the snapshot), so every read sees the exact count of its cycle. And the
 * conditions do not feed a carry chain: every subset's sum of the amounts is computed from the registers and the
 * amounts alone, and the conditions pick one of them.
 */
final class NpuCounters {
  private static final int BITS = 48;
  /** Bits of a counter's low part. */
  static final int LOW = 24;
  private static final int HIGH = BITS - LOW;
  /** Terms per counter whose every subset sum is computed ahead of the conditions (2^n adders each). */
  private static final int MAX_TERMS = 3;
  /** Carry bits: up to {@link #MAX_TERMS} low-part amounts can carry 3 into the high part. */
  private static final int CARRY = 2;
  private final Npu npu;
  private final Map<Counter, UInt> low = new EnumMap<>(Counter.class);
  private final Map<Counter, UInt> high = new EnumMap<>(Counter.class);
  private final Map<Counter, UInt> carry = new EnumMap<>(Counter.class);
  private final Map<Counter, UInt> values = new EnumMap<>(Counter.class);
  private final Map<Counter, List<Bool>> conditions = new EnumMap<>(Counter.class);
  private final Map<Counter, List<UInt>> amounts = new EnumMap<>(Counter.class);

  NpuCounters(Npu npu) {
    this.npu = npu;
    for (Counter c : Counter.values()) {
      String name = "counter_" + c.key();
      UInt lo = npu.reg0(name + "_low", uint(LOW));
      UInt hi = npu.reg0(name + "_high", uint(HIGH));
      UInt cy = npu.reg0(name + "_carry", uint(CARRY));
      low.put(c, lo);
      high.put(c, hi);
      carry.put(c, cy);
      values.put(c, npu.wireOf(name, cat(hi.add(cy.resize(HIGH)), lo).asUInt()));
      conditions.put(c, new ArrayList<>());
      amounts.put(c, new ArrayList<>());
    }
  }

  void count(Counter c, Bool when) {
    add(c, when, uintLit(1, 1));
  }

  void add(Counter c, Bool when, UInt amount) {
    if (conditions.get(c).size() == MAX_TERMS) {
      throw new IllegalStateException("counter " + c.key() + " takes at most " + MAX_TERMS + " terms");
    }
    conditions.get(c).add(when);
    amounts.get(c).add(amount);
  }

  /** The counters' values (of the current cycle), in {@link Counter} order. */
  List<UInt> registers() {
    List<UInt> out = new ArrayList<>();
    for (Counter c : Counter.values()) {
      out.add(values.get(c));
    }
    return out;
  }

  /** Emits every counter's update: cleared when {@code clear}, else incremented by its amounts. */
  void clearOn(Bool clear) {
    for (Counter c : Counter.values()) {
      UInt lo = low.get(c);
      UInt hi = high.get(c);
      UInt cy = carry.get(c);
      List<Bool> cond = conditions.get(c);
      List<UInt> amt = amounts.get(c);
      int n = cond.size();
      UInt[] lows = new UInt[1 << n];
      UInt[] highs = new UInt[1 << n];
      for (int subset = 0; subset < lows.length; subset++) {
        UInt l = lo.resize(LOW + CARRY);
        UInt h = hi.add(cy.resize(HIGH));
        for (int i = 0; i < n; i++) {
          if ((subset >> i & 1) != 0) {
            UInt a = amt.get(i).resize(BITS);
            l = l.add(a.lsbs(LOW).resize(LOW + CARRY));
            if (amt.get(i).width() > LOW) {
              h = h.add(a.msbs(HIGH));
            }
          }
        }
        lows[subset] = l;
        highs[subset] = h;
      }
      UInt l = npu.wireOf("counter_" + c.key() + "_lowNext", pick(lows, cond));
      UInt h = npu.wireOf("counter_" + c.key() + "_highNext", pick(highs, cond));
      npu.whenElse(clear, () -> {
        lo.set(uintLit(0, LOW));
        hi.set(uintLit(0, HIGH));
        cy.set(uintLit(0, CARRY));
      }, () -> {
        lo.set(l.lsbs(LOW));
        cy.set(l.msbs(CARRY));
        hi.set(h);
      });
    }
  }

  /** The sum of the subset whose terms' conditions hold: a mux tree, the first term's condition nearest the sums. */
  private static UInt pick(UInt[] sums, List<Bool> cond) {
    for (Bool when : cond) {
      UInt[] half = new UInt[sums.length / 2];
      for (int j = 0; j < half.length; j++) {
        half[j] = mux(when, sums[2 * j + 1], sums[2 * j]);
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
    // a beat moves a line, or the row's remainder at its last beat: two terms, so the byte count's sums are
    // formed from registers and the last-beat compare only selects one
    Bool partial = n.wireOf("partialBeat", sp.lastInRow().and(remainder.ne(0)));
    UInt lineBytes = uintLit(n.line, lineShift + 1);
    Bool loadBeat = n.dma.loadWrite.or(n.dma.load4.beat);
    Bool storeBeat = n.inStore.and(n.fire);
    add(Counter.DMA_LOAD_BYTES, loadBeat.and(partial.not()), lineBytes);
    add(Counter.DMA_LOAD_BYTES, loadBeat.and(partial), remainder);
    add(Counter.DMA_STORE_BYTES, storeBeat.and(partial.not()), lineBytes);
    add(Counter.DMA_STORE_BYTES, storeBeat.and(partial), remainder);
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
    count(Counter.DSP_CYCLES, n.inDspTab.or(n.inDspProg).or(n.inDspRun).or(n.inDspIn).or(n.inDspOut)
        .or(n.inState(Npu.State.DSP_DRAIN)));
    add(Counter.DENSE_MACS, n.inState(Npu.State.GEMM_START), n.gemm.denseMacs());
    add(Counter.PPM_ELEMENTS, n.inPpmRun.and(sp.lastInRow()), n.ppm.lanes);
    count(Counter.PPM_CYCLES, n.inPpmLoad.or(n.inPpmRun).or(n.inPpmDrain));
    clearOn(n.inState(Npu.State.IDLE).and(n.start));
  }

  UInt select(UInt sel) {
    UInt out = uintLit(0, 64);
    for (Counter c : Counter.values()) {
      out = mux(sel.eq(c.ordinal()), values.get(c).resize(64), out);
    }
    return out;
  }
}
