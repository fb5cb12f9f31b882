package org.llmnpu.rtl.dsp;

import static org.llmnpu.hdl.Hw.bool;
import static org.llmnpu.hdl.Hw.boolLit;
import static org.llmnpu.hdl.Hw.cat;
import static org.llmnpu.hdl.Hw.catLsbFirst;
import static org.llmnpu.hdl.Hw.mux;
import static org.llmnpu.hdl.Hw.uint;
import static org.llmnpu.hdl.Hw.uintLit;

import java.util.ArrayList;
import java.util.List;
import org.llmnpu.hdl.Bool;
import org.llmnpu.hdl.ClockGating;
import org.llmnpu.hdl.Mem;
import org.llmnpu.hdl.Vec;
import org.llmnpu.hdl.HwModule;
import org.llmnpu.hdl.HwValue;
import org.llmnpu.hdl.UInt;
import org.llmnpu.isa.dsp.DspOp;
import org.llmnpu.isa.dsp.DspPipe;
import org.llmnpu.isa.dsp.DspRunParameters;
import org.llmnpu.isa.dsp.DspTable;

/**
 * Parts of the {@link VectorDsp} outside its issue logic: the program memory (and its predecoded run-parameter flags), the polynomial table registers written
 * by the host and their selection at issue, the lanes' neighbour connections (LSHIFT, BCAST), the pipelined units'
 * clock enables, and the buffer permutations of {@code permute} (the skewed rows of {@code LDS}/
 * {@code STS} at issue, the lane rotation of {@code ROT} in execute 1). Each method builds its logic
 * into the DSP (the generated Verilog is the DSP's). And the checks of its configuration and host ports.
 */
abstract class VectorDspPaths extends HwModule {
  /** The parameters of a {@link VectorDsp.Config}, checked: each message names the parameter and its allowed values. */
  static void checkConfig(int lanes, int rows, int programDepth, int tableSegments, int tableDegree, int executeStages,
                          ClockGating pipeGating) {
    java.util.Objects.requireNonNull(pipeGating, "pipeGating");
    if (executeStages < 1 || executeStages > 4) {
      throw new IllegalArgumentException("executeStages must be 1, 2, 3 or 4, got " + executeStages);
    }
    checkPowerOfTwo("lanes", lanes, 1, 64);
    checkPowerOfTwo("rows", rows, 16, 65536);
    checkPowerOfTwo("programDepth", programDepth, 16, 4096);
    if (tableSegments < 1 || tableSegments > DspTable.MAX_SEGMENTS) {
      throw new IllegalArgumentException("tableSegments must be in 1.." + DspTable.MAX_SEGMENTS + ", got " + tableSegments);
    }
    if (tableDegree < 0 || tableDegree >= DspTable.MAX_COEFFICIENTS) {
      throw new IllegalArgumentException("tableDegree must be in 0.." + (DspTable.MAX_COEFFICIENTS - 1) + ", got "
          + tableDegree);
    }
  }

  private static void checkPowerOfTwo(String name, int v, int lo, int hi) {
    if (v < lo || v > hi || Integer.bitCount(v) != 1) {
      throw new IllegalArgumentException(name + " must be a power of two in " + lo + ".." + hi + ", got " + v);
    }
  }

  /** The host ports' widths of {@link VectorDsp#VectorDsp(VectorDsp.Config, int, int, int, int)}, checked. */
  static void checkPorts(VectorDsp.Config c, int progWords, int tableEntries, int bufWindow, int wideReads) {
    if (bufWindow < 1 || bufWindow > c.lanes() || Integer.bitCount(bufWindow) != 1) {
      throw new IllegalArgumentException("bufWindow must be a power of two in 1.." + c.lanes() + ", got "
          + bufWindow);
    }
    if (wideReads < 1 || wideReads > bufWindow) {
      throw new IllegalArgumentException("wideReads must be in 1.." + bufWindow + ", got " + wideReads);
    }
    if (progWords < 1 || progWords > c.programDepth() || Integer.bitCount(progWords) != 1) {
      throw new IllegalArgumentException("progWords must be a power of two in 1.." + c.programDepth() + ", got "
          + progWords);
    }
    if (tableEntries < 1 || tableEntries > 128 || Integer.bitCount(tableEntries) != 1) {
      throw new IllegalArgumentException("tableEntries must be a power of two in 1..128, got " + tableEntries);
    }
  }

  /**
   * Slots 0..2 × {@code segments} × (start, c0..c{degree}) registers, written by the host ({@code entries}
   * per write; entries beyond the capacity in a wide write are dropped: slices of the gated data);
   * starts reset to NaN (unused), coefficients to 0. They change only in the cycles of a table write: with
   * {@code gating} ON or CHECKED they are on the clock gate {@value #TABLE_GATE}, open in those cycles.
   */
  UInt[][][] tableRegisters(Bool write, UInt address, UInt data, int segments, int degree, int entries,
                            ClockGating gating) {
    UInt[][][] tables = new UInt[VectorDsp.TABLE_SLOTS][segments][degree + 2];
    UInt tableWord = entries == 1 ? data : mux(write, data, uintLit(0, 16 * entries));
    clockGated(TABLE_GATE, write, gating, () -> tableRegisters(tables, write, address, tableWord, entries));
    return tables;
  }

  /** The clock gate of the polynomial tables' registers (written by the host only). */
  public static final String TABLE_GATE = "tables";

  private void tableRegisters(UInt[][][] tables, Bool write, UInt address, UInt tableWord, int entries) {
    int segments = tables[0].length;
    int degree = tables[0][0].length - 2;
    for (int slot = 0; slot < VectorDsp.TABLE_SLOTS; slot++) {
      for (int s = 0; s < segments; s++) {
        for (int f = 0; f <= degree + 1; f++) {
          UInt r = regInit("table_" + slot + "_" + s + "_" + f, uint(16), f == 0 ? 0x7E00 : 0);
          int at = slot * 128 + s * 8 + f;
          int j = at % entries;
          UInt entry = tableWord.slice(16 * j + 15, 16 * j);
          when(write.and(address.eq(at / entries)), () -> r.set(entry));
          tables[slot][s][f] = r;
        }
      }
    }
  }

  /**
   * The instruction word at {@code pc} (read asynchronously) from a program memory of {@code depth} 64-bit words,
   * written by the host {@code words} words at a time: one memory for one word, else W memories of depth / W words
   * (word i in memory i mod W, row i / W; {@code mask} bit j enables word j of a write). With W &gt; 1 the register
   * fields ra, rb and rc (bits 52..38), which address every lane's register file, are selected among the W memories
   * by {@code fieldSelectN}, a copy of {@code pc}'s low bits held inverted in a register of its own
   * ({@link #wordSelectCopy}): their select then drives 15 multiplexers, not the 64 of the word and {@code pc}'s
   * other loads (on the default NPU a chain of buffers ahead of the register-file read).
   */
  UInt programWord(int depth, int words, Bool we, UInt address, UInt data, UInt mask, UInt pc, UInt fieldSelectN) {
    List<UInt> columns = programMemory("program", 64, depth, words, we, address, data, mask, pc, w -> w);
    UInt read = selectColumn(columns, pc, false, 63, 0);
    if (words == 1) {
      return read;
    }
    return cat(read.slice(63, 53), selectColumn(columns, fieldSelectN, true, 52, 38), read.lsbs(38)).asUInt();
  }

  /**
   * The register that holds the inverted low {@code wordBits} bits of the program counter ({@code fieldSelectN} of
   * {@link #programWord}); reset to all ones (pc 0). Every assignment of the pc sets it too ({@code jumpCopy}). It is
   * stored inverted so that synthesis keeps it apart from the pc's own bits.
   */
  UInt wordSelectCopy(int wordBits) {
    return wordBits == 0 ? null : regInit("pcWordSelectN", uint(wordBits), (1 << wordBits) - 1);
  }

  /**
   * The run-parameter flags of the instruction at {@code pc}, predecoded when the host writes the program (a
   * memory of 3 bits beside each program word, written and read like {@link #programWord}): bit 0 = {@code rc[4]} of
   * a row instruction or {@code SETLEN} (its immediate adds a run parameter, {@link DspRunParameters}), bits 2..1 =
   * its base k = {@code rc[1:0]} (0 without the flag). The row and length paths take these from their own read, so
   * the program word's {@code rc} field, which addresses every lane's register file, carries no extra load.
   */
  UInt runParameterFlags(int depth, int words, Bool we, UInt address, UInt data, UInt mask, UInt pc) {
    List<UInt> columns = programMemory("programRunFlags", 3, depth, words, we, address, data, mask, pc, w -> {
      Bool flag = w.bit(42).and(opIn(w.slice(63, 58), o -> o.addressesRows() || o == DspOp.SETLEN));
      return cat(w.bit(39).and(flag), w.bit(38).and(flag), flag).asUInt();
    });
    return selectColumn(columns, pc, false, 2, 0);
  }

  /** The read of each of the program's W memories (one for W = 1) at {@code pc}, storing {@code stored(word)}. */
  private List<UInt> programMemory(String name, int width, int depth, int words, Bool we, UInt address, UInt data,
                                   UInt mask, UInt pc, java.util.function.UnaryOperator<UInt> stored) {
    List<UInt> columns = new ArrayList<>();
    if (words == 1) {
      Mem<UInt> program = mem(name, uint(width), depth);
      program.init(new long[depth]);
      UInt value = stored.apply(data);
      when(we, () -> program.write(address, value));
      columns.add(program.readAsync(pc));
      return columns;
    }
    int wordBits = Integer.numberOfTrailingZeros(words);
    for (int j = 0; j < words; j++) {
      Mem<UInt> column = mem(name + j, uint(width), depth / words);
      column.init(new long[depth / words]);
      UInt part = stored.apply(data.slice(64 * j + 63, 64 * j));
      when(we.and(mask.bit(j)), () -> column.write(address, part));
      columns.add(column.readAsync(pc.slice(pc.width() - 1, wordBits)));
    }
    return columns;
  }

  /** Bits hi..lo of the column that {@code select}'s low bits (inverted when {@code inverted}) name. */
  private static UInt selectColumn(List<UInt> columns, UInt select, boolean inverted, int hi, int lo) {
    if (columns.size() == 1) {
      return columns.get(0).slice(hi, lo);
    }
    int wordBits = Integer.numberOfTrailingZeros(columns.size());
    int all = columns.size() - 1;
    UInt read = uintLit(0, hi - lo + 1);
    for (int j = 0; j < columns.size(); j++) {
      read = mux(select.lsbs(wordBits).eq(inverted ? all & ~j : j), columns.get(j).slice(hi, lo), read);
    }
    return read;
  }

  /**
   * Sets {@code starts} and {@code coefficients} to the registered segment starts and coefficients of table
   * {@code aux[1:0]} (coefficient {@code aux[3:2]}) of the issuing instruction: the lanes' segment search then starts
   * from flip-flops, not from the selection's fan-out. Slot 3 reads as an unused table (start NaN, coefficient 0).
   */
  void selectTable(UInt[][][] tables, UInt aux, int degree, Vec<UInt> starts, Vec<UInt> coefficients) {
    UInt unusedStart = uintLit(0x7E00, 16);
    UInt zero16 = uintLit(0, 16);
    for (int s = 0; s < starts.size(); s++) {
      UInt startSel = unusedStart;
      UInt coefSel = zero16;
      for (int slot = VectorDsp.TABLE_SLOTS - 1; slot >= 0; slot--) {
        startSel = mux(aux.lsbs(2).eq(slot), tables[slot][s][0], startSel);
        for (int k = 0; k <= degree; k++) {
          coefSel = mux(aux.lsbs(2).eq(slot).and(aux.slice(3, 2).eq(k)), tables[slot][s][1 + k], coefSel);
        }
      }
      starts.get(s).set(regNext("exStart" + s, startSel));
      coefficients.get(s).set(regNext("exCoefficient" + s, coefSel));
    }
  }

  /** LSHIFT and BCAST: lane l's shift input is operand a of lane l + imm (imm a power of two), else 0; broadcast from lane 0. */
  static void connectNeighbours(List<DspLane> lanes, UInt exImm) {
    for (int l = 0; l < lanes.size(); l++) {
      UInt shifted = uintLit(0, 32);
      for (int s = 1; l + s < lanes.size(); s *= 2) {
        shifted = mux(exImm.eq(s), lanes.get(l + s).sourceA, shifted);
      }
      lanes.get(l).shiftIn.set(shifted);
      lanes.get(l).broadcastIn.set(lanes.get(0).broadcastSource);
    }
  }

  /**
   * The lanes' pipelined-unit clock enables, bit i for {@link DspPipe} i among those built ({@link DspLane#pipes}):
   * high while an operation of the unit is in execute 1..N − 1 ({@code exValid} with its op in execute 1, then the
   * same flag delayed through execute N − 1), the cycles at whose end the unit's internal registers advance.
   */
  UInt pipeEnables(Bool exValid, UInt exOp, int stages, java.util.function.Predicate<DspOp> built) {
    List<Bool> on = new ArrayList<>();
    for (DspPipe p : DspPipe.values()) {
      if (!p.ops().stream().allMatch(built)) {
        continue;
      }
      String name = p.name().toLowerCase(java.util.Locale.ROOT);
      Bool inStage = wire(name + "InExecute1", exValid.and(opIn(exOp, p.ops()::contains)));
      Bool any = inStage;
      for (int j = 2; j < stages; j++) {
        Bool later = regInit(name + "InExecute" + j, bool(), 0);
        later.set(inStage);
        inStage = later;
        any = any.or(later);
      }
      on.add(wire(name + "PipeEnable", any));
    }
    java.util.Collections.reverse(on);
    return wire("pipeEnables", cat(on.toArray(new Bool[0])).asUInt());
  }

  /**
   * The interlock's condition ({@link org.llmnpu.isa.dsp.DspIssueWindow}): the issuing instruction {@code word}
   * (opcode {@code op}) reads a register that an FP op in execute 1..N − 1 writes ({@code exWrites}, {@code exRd} in
   * execute 1, delayed through execute N − 1); an FP result exists only in execute N.
   */
  Bool pendingRead(UInt op, UInt word, Bool exWrites, UInt exRd, int stages, java.util.function.Predicate<DspOp> built) {
    Bool anyHazard = boolLit(false);
    Bool lateWrite = exWrites;
    UInt lateRd = exRd;
    Bool readsA = opIn(op, built.and(DspOp::readsA));
    Bool readsB = opIn(op, built.and(DspOp::readsB));
    Bool readsC = opIn(op, built.and(DspOp::readsC));
    for (int j = 1; j < stages; j++) {
      if (j > 1) {
        Bool w = regInit("lateWrite" + j, bool(), 0);
        w.set(lateWrite);
        lateWrite = w;
        lateRd = regNext("lateRd" + j, lateRd);
      }
      UInt r = lateRd;
      anyHazard = anyHazard.or(lateWrite.and(readsA.and(word.slice(52, 48).eq(r)).or(readsB.and(word.slice(47, 43).eq(r)))
          .or(readsC.and(word.slice(42, 38).eq(r)))));
    }
    return anyHazard;
  }

  /**
   * The run parameters ({@link org.llmnpu.isa.dsp.DspRunParameters}) held for the run, sampled when {@code sample}
   * (a start): row bases 0..3 (field k of {@code rowBits} bits of {@code bases}: rows wrap mod the buffer's rows), then
   * the 32-bit length.
   */
  UInt[] sampleRunParameters(Bool sample, UInt bases, UInt length, int rowBits) {
    int n = org.llmnpu.isa.dsp.DspRunParameters.BASES;
    UInt[] q = new UInt[n + 1];
    for (int k = 0; k < n; k++) {
      UInt base = regInit("runBase" + k, uint(rowBits), 0);
      UInt field = bases.slice(rowBits * k + rowBits - 1, rowBits * k);
      when(sample, () -> base.set(field));
      q[k] = base;
    }
    UInt len = regInit("runLength", uint(32), 0);
    when(sample, () -> len.set(length));
    q[n] = len;
    return q;
  }

  /**
   * What the issuing instruction adds to its row immediate: row base k when its predecoded {@code flags}
   * ({@link #runParameterFlags}) are set, else 0; plus {@code index} (null: nothing). The sums of the bases and
   * {@code index} come from registers, in parallel with the program memory's read: the flags only select one, then
   * the immediate is added.
   */
  UInt rowOffset(UInt flags, UInt[] run, int rowBits, UInt index) {
    UInt[] b = new UInt[4];
    for (int k = 0; k < 4; k++) {
      b[k] = index == null ? run[k] : run[k].add(index);
    }
    UInt base = mux(flags.bit(2), mux(flags.bit(1), b[3], b[2]), mux(flags.bit(1), b[1], b[0]));
    return wire("rowOffset", mux(flags.bit(0), base, index == null ? uintLit(0, rowBits) : index));
  }

  /**
   * The buffer window's read ({@code buf_rdata}): window element i (lane {@code (x + i) mod lanes}) at bits
   * {@code 16i..} for the first {@code wideReads}, then the low byte of each of the others. The selections all land on
   * the port's one line; Verilator refuses a line of more than 40,000 tokens, which a 64-element window over 64 lanes
   * passes, so a window of more selections than 32 x 32 names each element's read.
   */
  UInt windowRead(List<DspLane> lanes, UInt bufAddr, int laneBits, int bufWindow, int wideReads) {
    boolean namedReads = bufWindow * lanes.size() > 32 * 32;
    List<HwValue> window = new ArrayList<>();
    for (int i = 0; i < bufWindow; i++) {
      UInt read = DspBufferWindow.read(lanes, i, bufAddr, laneBits);
      UInt element = i < wideReads ? read : read.lsbs(8);
      window.add(namedReads ? wire("bufWindowRead_" + i, element) : element);
    }
    return catLsbFirst(window).asUInt();
  }

  /** ROT: lane l takes operand a of lane (l + k) mod lanes (a barrel rotation of the vector by {@code k}). */
  static void rotate(List<DspLane> lanes, UInt k) {
    List<UInt> v = new ArrayList<>();
    for (DspLane lane : lanes) {
      v.add(lane.sourceA);
    }
    for (int bit = 0; (1 << bit) < lanes.size(); bit++) {
      List<UInt> rotated = new ArrayList<>();
      for (int l = 0; l < lanes.size(); l++) {
        rotated.add(mux(k.bit(bit), v.get((l + (1 << bit)) % lanes.size()), v.get(l)));
      }
      v = rotated;
    }
    for (int l = 0; l < lanes.size(); l++) {
      lanes.get(l).rotateIn.set(v.get(l));
    }
  }

  /**
   * Row of lane {@code l} at issue: {@code imm + idx}, skewed for LDS ({@code ((l − idx) mod lanes)·2^aux})
   * and STS ({@code ((l + idx) mod lanes)·2^aux}).
   */
  UInt permutedRow(UInt op, UInt imm, UInt idx, UInt aux, int l, int rowBits, int laneCount) {
    // rows and lanes are powers of two: everything is taken mod rows (rowBits bits)
    int lanesMask = (laneCount - 1) & ((1 << rowBits) - 1);
    UInt lane = uintLit(l & ((1 << rowBits) - 1), rowBits);
    UInt index = idx.resize(rowBits);
    UInt mask = uintLit(lanesMask, rowBits);
    UInt skewLoad = lane.sub(index).and(mask).shiftLeft(aux);
    UInt skewStore = lane.add(index).and(mask).shiftLeft(aux);
    UInt base = imm.lsbs(rowBits);
    return mux(op.eq(DspOp.LDS.code()), base.add(skewLoad), mux(op.eq(DspOp.STS.code()), base.add(skewStore),
        base.add(index)));
  }

  /** Whether the 6-bit {@code code} is one of the ops {@code which} selects. */
  static Bool opIn(UInt code, java.util.function.Predicate<DspOp> which) {
    Bool any = boolLit(false);
    for (DspOp o : DspOp.values()) {
      if (which.test(o)) {
        any = any.or(code.eq(o.code()));
      }
    }
    return any;
  }
}
