package org.llmnpu.rtl.npu;

import static org.llmnpu.hdl.Hw.bitsToHold;
import static org.llmnpu.hdl.Hw.bool;
import static org.llmnpu.hdl.Hw.cat;
import static org.llmnpu.hdl.Hw.catLsbFirst;
import static org.llmnpu.hdl.Hw.mux;
import static org.llmnpu.hdl.Hw.uint;
import static org.llmnpu.hdl.Hw.uintLit;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.llmnpu.hdl.Bool;
import org.llmnpu.hdl.HwModule;
import org.llmnpu.hdl.HwValue;
import org.llmnpu.hdl.UInt;
import org.llmnpu.isa.Counter;

/**
 * The performance-counter unit of the {@link Npu}: a 48-bit value per {@link Counter}, cleared by {@link #clear}
 * (the cycle a program starts) and advanced every cycle by the events on its input ports, which the other units
 * raise ({@link #busy}, {@link #loadBeat}, {@link #gemmStart} with {@link #macs}, …). {@link #value} is the counter
 * chosen by {@link #select} ({@link Counter} ordinal, zero-extended to 64 bits); {@link #values} is every counter,
 * {@value #BITS} bits each in {@link Counter} order (the snapshot's image). Both read the count of the current
 * cycle: an event of cycle {@code t} shows from cycle {@code t + 1}. Cycle formula: each counter after cycle
 * {@code t} is the sum over cycles since the last clear of its events' amounts (one for a plain event), modulo
 * {@code 2^48}.
 *
 * <p>Timing: a mapped 48-bit incrementer is a ripple chain of about 6.5 ns at 180 nm, longer than the target
 * clock, and the counting conditions come late (the DSP's stall, the memory handshake). So each counter is a low
 * part of {@link #LOW} bits, a high part, and the low part's carry out of the previous cycle, added into the high
 * part one cycle later: the value is {@code (high + carry)·2^LOW + low}, formed where it is read, so every read
 * sees the exact count of its cycle. The conditions are meant to pick one of the sums of the subsets of the
 * amounts, each computed from the registers and the amounts alone; but synthesis shares those adders into one whose
 * operand the conditions gate (Yosys/ABC on the tiny NPU, 2026-12-06: a 24-stage AND chain of the low part's carry,
 * about 3.5 ns at 180 nm, after the condition), so an event that comes late in the cycle must reach its port from a
 * register. The controller registers the late ones before the ports where no reader can see the delay
 * ({@code NpuUnitPorts#counters}): the DMA's read beats ({@link #readBeat}; the fetcher's, {@link #fetchRead}, count
 * in their cycle), the LOAD, PPM and DSPOUT scratchpad writes ({@link #spadWrite}; the back-end's and load4's,
 * {@link #backWrite}, in their cycle), a PPM run's rows ({@link #ppmRow}; a {@code gemm ppm=1}'s, {@link
 * #ppmResultRow}, in their cycle), the DSP's issues and copy elements.
 */
public final class NpuCounters extends HwModule {
  /** Bits of a counter. */
  public static final int BITS = 48;
  /** Bits of a counter's low part. */
  static final int LOW = 24;
  private static final int HIGH = BITS - LOW;
  /** Terms per counter whose every subset sum is computed ahead of the conditions (2^n adders each). */
  private static final int MAX_TERMS = 3;
  /** Carry bits: up to {@link #MAX_TERMS} low-part amounts can carry 3 into the high part. */
  private static final int CARRY = 2;

  /** Clears every counter (a program starts). */
  public final Bool clear = in(bool());
  /** The NPU runs a program (cycles). */
  public final Bool busy = in(bool());
  /** A command is decoded. */
  public final Bool decode = in(bool());
  /** A load beat writes the scratchpad / a store beat is accepted; the beat is a row's short last one. */
  public final Bool loadBeat = in(bool());
  public final Bool storeBeat = in(bool());
  public final Bool partialBeat = in(bool());
  /** The bytes of a short beat ({@code rowBytes mod line}). */
  public final UInt remainder;
  /** A read request of the DMA / of the fetcher / a write request is accepted by the memory. */
  public final Bool readBeat = in(bool());
  public final Bool fetchRead = in(bool());
  public final Bool writeBeat = in(bool());
  /** A GEMM starts, with its MAC count and its dense-equivalent MAC count. */
  public final Bool gemmStart = in(bool());
  public final UInt macs = in(uint(BITS));
  public final UInt denseMacs = in(uint(BITS));
  /** A GEMM's drain starts, with its partial-sum write-backs. */
  public final Bool drainStart = in(bool());
  public final UInt psumWritebacks = in(uint(32));
  /** A scratchpad line read (STORE beat, GEMM X copy, DSP line, PPM line; W copy when one row a cycle). */
  public final Bool spadRead = in(bool());
  /** The W copy of several rows a cycle runs, reading {@link #weightLines} lines (null with one row a cycle). */
  public final Bool weightCopy;
  public final UInt weightLines;
  /** The accumulate-into drain reads the old line. */
  public final Bool drainRead = in(bool());
  /** A scratchpad line write of a LOAD, a PPM run or a DSPOUT / of the GEMM back-end or a load4. */
  public final Bool spadWrite = in(bool());
  public final Bool backWrite = in(bool());
  public final Bool fetchCycle = in(bool());
  public final Bool dmaCycle = in(bool());
  public final Bool gemmCycle = in(bool());
  public final Bool arrayCycle = in(bool());
  public final Bool memStall = in(bool());
  public final Bool dspInstruction = in(bool());
  /** A DSP copy moves {@link #dspElements} elements (a chunk of up to {@code min(line, lanes)}) this cycle. */
  public final Bool dspElement = in(bool());
  public final UInt dspElements;
  public final Bool dspCycle = in(bool());
  /**
   * A PPM run's source row ends: {@link #ppmLanes} elements requantized; a {@code gemm ppm=1} result row ends:
   * {@link #ppmResultLanes}.
   */
  public final Bool ppmRow = in(bool());
  public final UInt ppmLanes;
  public final Bool ppmResultRow = in(bool());
  public final UInt ppmResultLanes;
  public final Bool ppmCycle = in(bool());
  /** The counter read on {@link #value}. */
  public final UInt select = in(uint(5));
  public final UInt value = out(uint(64));
  public final UInt values = out(uint(BITS * Counter.values().length));

  private final int lineBytes;
  private final int weightRowsPerCycle;
  private final Map<Counter, List<Bool>> conditions = new EnumMap<>(Counter.class);
  private final Map<Counter, List<UInt>> amounts = new EnumMap<>(Counter.class);

  /**
   * The counters of an NPU of configuration {@code c} (validated by {@link NpuConfig}): its line bytes
   * ({@code rows}), W rows copied a cycle ({@code weightRowsPerCycle}, 1: no {@link #weightCopy} port) and PPM
   * lanes ({@code rows}) set the ports' widths.
   */
  public NpuCounters(NpuConfig c) {
    lineBytes = c.machine().lineBytes();
    weightRowsPerCycle = c.weightRowsPerCycle();
    int laneBits = bitsToHold(c.machine().ppmChannels());
    int lineShift = Integer.numberOfTrailingZeros(lineBytes);
    int groupShift = Integer.numberOfTrailingZeros(weightRowsPerCycle);
    remainder = in(uint(lineShift + 1));
    weightCopy = weightRowsPerCycle == 1 ? null : in(bool());
    weightLines = weightRowsPerCycle == 1 ? null : in(uint(groupShift + 1));
    ppmLanes = in(uint(laneBits));
    ppmResultLanes = in(uint(laneBits));
    dspElements = in(uint(bitsToHold(Math.min(lineBytes, c.machine().dsp().lanes()))));

    UInt lineAmount = uintLit(lineBytes, lineShift + 1);
    count(Counter.CYCLES, busy);
    count(Counter.COMMANDS, decode);
    // a beat moves a line, or the row's remainder at its last beat: two terms, so the byte count's sums are
    // formed from registers and the last-beat compare only selects one
    add(Counter.DMA_LOAD_BYTES, loadBeat.and(partialBeat.not()), lineAmount);
    add(Counter.DMA_LOAD_BYTES, loadBeat.and(partialBeat), remainder);
    add(Counter.DMA_STORE_BYTES, storeBeat.and(partialBeat.not()), lineAmount);
    add(Counter.DMA_STORE_BYTES, storeBeat.and(partialBeat), remainder);
    count(Counter.EXT_READ_BEATS, readBeat);
    count(Counter.EXT_READ_BEATS, fetchRead);
    count(Counter.EXT_WRITE_BEATS, writeBeat);
    add(Counter.MACS, gemmStart, macs);
    add(Counter.PSUM_WRITEBACKS, drainStart, psumWritebacks);
    count(Counter.SPAD_READS, spadRead);
    if (weightCopy != null) {
      add(Counter.SPAD_READS, weightCopy, weightLines);
    }
    count(Counter.SPAD_READS, drainRead);
    count(Counter.SPAD_WRITES, spadWrite);
    count(Counter.SPAD_WRITES, backWrite);
    count(Counter.FETCH_CYCLES, fetchCycle);
    count(Counter.DMA_CYCLES, dmaCycle);
    count(Counter.GEMM_CYCLES, gemmCycle);
    count(Counter.ARRAY_CYCLES, arrayCycle);
    count(Counter.MEM_STALL_CYCLES, memStall);
    count(Counter.DSP_INSTRUCTIONS, dspInstruction);
    add(Counter.DSP_ELEMENTS, dspElement, dspElements);
    count(Counter.DSP_CYCLES, dspCycle);
    add(Counter.DENSE_MACS, gemmStart, denseMacs);
    add(Counter.PPM_ELEMENTS, ppmRow, ppmLanes);
    add(Counter.PPM_ELEMENTS, ppmResultRow, ppmResultLanes);
    count(Counter.PPM_CYCLES, ppmCycle);

    // a high part changes only in the cycle after its low part carried, with a term wider than the low part, or
    // on a clear: all high parts on one clock gate (NpuClockGates#COUNTER_HIGHS) open in those cycles
    Map<Counter, UInt> carries = new EnumMap<>(Counter.class);
    Bool highWrite = clear;
    for (Counter counter : Counter.values()) {
      UInt cy = regInit(counter.key() + "_carry", uint(CARRY), 0);
      carries.put(counter, cy);
      highWrite = highWrite.or(cy.ne(0));
      for (int i = 0; i < amounts.get(counter).size(); i++) {
        if (amounts.get(counter).get(i).width() > LOW) {
          highWrite = highWrite.or(conditions.get(counter).get(i));
        }
      }
    }
    Map<Counter, UInt> highs = new EnumMap<>(Counter.class);
    clockGated(NpuClockGates.COUNTER_HIGHS, wire("highWrite", highWrite), c.clockGatingMode(), () -> {
      for (Counter counter : Counter.values()) {
        highs.put(counter, regInit(counter.key() + "_high", uint(HIGH), 0));
      }
    });
    List<HwValue> all = new ArrayList<>();
    UInt selected = uintLit(0, 64);
    for (Counter counter : Counter.values()) {
      UInt v = counter(counter, highs.get(counter), carries.get(counter));
      all.add(v);
      selected = mux(select.eq(counter.ordinal()), v.resize(64), selected);
    }
    value.set(selected);
    values.set(catLsbFirst(all).asUInt());
  }

  /** Synthesized inside the NPU's top: its paths continue through the other units. */
  @Override
  public boolean flattenInSynthesis() {
    return true;
  }

  @Override
  public String moduleName() {
    return "NpuCounters_l" + lineBytes + (weightRowsPerCycle == 1 ? "" : "_w" + weightRowsPerCycle);
  }

  private void count(Counter c, Bool when) {
    add(c, when, uintLit(1, 1));
  }

  private void add(Counter c, Bool when, UInt amount) {
    List<Bool> cond = conditions.computeIfAbsent(c, k -> new ArrayList<>());
    if (cond.size() == MAX_TERMS) {
      throw new IllegalStateException("counter " + c.key() + " takes at most " + MAX_TERMS + " terms");
    }
    cond.add(when);
    amounts.computeIfAbsent(c, k -> new ArrayList<>()).add(amount);
  }

  /**
   * Counter {@code c}'s low register and the update of it, its high part {@code hi} and carry {@code cy}: cleared on
   * {@link #clear}, else incremented by its terms; its value.
   */
  private UInt counter(Counter c, UInt hi, UInt cy) {
    String name = c.key();
    UInt lo = regInit(name + "_low", uint(LOW), 0);
    UInt v = wire(name, cat(hi.add(cy.resize(HIGH)), lo).asUInt());
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
    UInt l = wire(name + "_lowNext", pick(lows, cond));
    UInt h = wire(name + "_highNext", pick(highs, cond));
    when(clear, () -> {
      lo.set(uintLit(0, LOW));
      hi.set(uintLit(0, HIGH));
      cy.set(uintLit(0, CARRY));
    }).otherwise(() -> {
      lo.set(l.lsbs(LOW));
      cy.set(l.msbs(CARRY));
      hi.set(h);
    });
    return v;
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
}
