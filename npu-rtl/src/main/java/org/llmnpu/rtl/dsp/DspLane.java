package org.llmnpu.rtl.dsp;

import org.llmnpu.isa.dsp.DspOp;
import org.llmnpu.isa.dsp.DspInstruction;
import org.llmnpu.isa.dsp.DspPipe;
import static org.llmnpu.hdl.Hw.bool;
import static org.llmnpu.hdl.Hw.boolLit;
import static org.llmnpu.hdl.Hw.cat;
import static org.llmnpu.hdl.Hw.mux;
import static org.llmnpu.hdl.Hw.uint;
import static org.llmnpu.hdl.Hw.uintLit;

import java.util.function.Consumer;
import org.llmnpu.hdl.Bool;
import org.llmnpu.hdl.ClockGating;
import org.llmnpu.hdl.Mem;
import org.llmnpu.hdl.Switch;
import org.llmnpu.hdl.UInt;
import org.llmnpu.hdl.Vec;
import org.llmnpu.rtl.vector.Fp16Alu;
import org.llmnpu.rtl.vector.Fp16Convert;
import org.llmnpu.rtl.vector.Fp16Fma;
import org.llmnpu.rtl.vector.Fp32Alu;
import org.llmnpu.rtl.vector.PrefixAdder;

/**
 * One lane of the {@link VectorDsp}: 32 registers of 32 bits, the lane's slice of the local
 * buffer ({@code rows} FP16 words), and the execution units — {@link Fp16Alu} (add, sub, mul,
 * min, max, lt, eq), {@link Fp16Fma} (fused multiply-add), {@link Fp32Alu} (add, sub, mul), {@link Fp16Convert} (widen, narrow, scalb, to/from
 * integer) and the integer, exponent, table, special-case and select logic of {@link DspOp}.
 *
 * <p><b>Stages.</b> Issue: the sources {@code ra, rb, rc} are read from the register file, or
 * forwarded when a younger instruction writes the same register in this lane (from execute 1 for
 * the ops that complete there, else from the result of the last execute stage), and registered.
 * Execute 1 (next cycle; {@code op, rd, aux, imm, row, masked, elementValid, execute} are already
 * this stage's): the units compute from the registered operands; a store writes the buffer. With
 * one execute stage ({@code split} false) every result is selected and written at the end of this
 * cycle. With N = {@code stages} of 2..4 the FP units have N − 1 internal registers (exact value;
 * with 3 also the decoded operands and products; with 4 also the rounder's split) and every other op
 * completes in execute 1 and is carried along; execute N selects and writes back, in issue order.
 * Sources are forwarded from every stage, youngest first (an FP result only from execute N); the
 * {@link VectorDsp} holds an instruction at issue while an FP op in execute 1..N−1 writes a register
 * it reads ({@code org.llmnpu.isa.dsp.DspPipeline}).
 */
final class DspLane extends DspLaneUnits {
  final Bool execute = in(bool());
  final UInt op = in(uint(6));
  final UInt rd = in(uint(5));
  final UInt ra = in(uint(5));
  final UInt rb = in(uint(5));
  final UInt rc = in(uint(5));
  final Bool masked = in(bool());
  final UInt aux = in(uint(2));
  final UInt imm = in(uint(32));
  final Bool elementValid = in(bool());
  final UInt row;
  final UInt shiftIn = in(uint(32));
  final UInt broadcastIn = in(uint(32));
  final Vec<UInt> starts;
  final Vec<UInt> coefficients;
  final Bool hostWrite = in(bool());
  final UInt hostRow;
  final UInt hostData = in(uint(16));
  final UInt hostRead = out(uint(16));
  final UInt sourceA = out(uint(32));
  /** The issuing instruction is BCAST (wired to lane 0 only; the other lanes' inputs are 0). */
  final Bool broadcastIssue = in(bool());
  /**
   * Operand a of a BCAST in execute 1, else 0: a register of its own beside {@code a}, so that the other lanes'
   * broadcast inputs do not load lane 0's operand register (in the 16-lane DSP that fan-out was its worst path).
   */
  final UInt broadcastSource = out(uint(32));
  private final int rows;
  private final int segments;
  private final int stages;
  private final boolean split;
  private final boolean fma32;
  private final boolean permute;
  /** With {@code permute}: the lane-rotated operand a (ROT). */
  final UInt rotateIn;
  /** How the pipelined units' clock gates are built (OFF: none, and no {@link #pipeEnable}). */
  private final ClockGating pipeGating;
  /**
   * With gated pipelined units: bit i is the clock enable of {@link DspPipe} i among {@link #pipes} (an operation
   * of the unit in execute 1..N − 1, from the {@link VectorDsp}); else null.
   */
  final UInt pipeEnable;
  /**
   * With gated pipelined units: an instruction issues this cycle (execute 1 is valid in the next), the clock enable of
   * the operand registers' gate {@value #OPERAND_GATE} (read only by an instruction in execute 1); else null.
   */
  final Bool issue;
  /** The clock gate of the lane's operand registers ({@code a, b, c} and the broadcast source). */
  static final String OPERAND_GATE = "laneOperands";

  DspLane(int rows, int rowBits, int segments, int stages, boolean fma32, boolean permute) {
    this(rows, rowBits, segments, stages, fma32, permute, ClockGating.OFF);
  }

  /**
   * A lane whose pipelined units ({@link DspPipe}: the FP units with N − 1 internal registers) are each on a clock
   * gate of their own ({@code pipeGating} ON or CHECKED, with N = {@code stages} of 2..4), enabled by
   * {@link #pipeEnable}: their registers are clocked only while an operation of theirs is in flight.
   */
  DspLane(int rows, int rowBits, int segments, int stages, boolean fma32, boolean permute, ClockGating pipeGating) {
    this.pipeGating = stages > 1 ? pipeGating : ClockGating.OFF;
    this.pipeEnable = this.pipeGating == ClockGating.OFF ? null : in("pipeEnable", uint(pipes(fma32).size()));
    this.issue = this.pipeGating == ClockGating.OFF ? null : in("issue", bool());
    this.rows = rows;
    this.segments = segments;
    this.stages = stages;
    this.split = stages > 1;
    this.fma32 = fma32;
    this.permute = permute;
    rotateIn = permute ? in("rotateIn", uint(32)) : null;
    starts = in(Vec.of(segments, () -> uint(16)));
    coefficients = in(Vec.of(segments, () -> uint(16)));
    row = in(uint(rowBits));
    hostRow = in(uint(rowBits));

    if (split) {
      pipelinedExecute();
    } else {
      oneStageExecute();
    }
  }

  /** The issue stage's operand registers and the lane's buffer with its load port. */
  private record Operands(UInt a, UInt b, UInt c, Mem<UInt> buffer, UInt loaded) {
  }

  /**
   * Operands a, b, c registered at issue from {@code read} (a register read with the execute stages' forwarding),
   * the broadcast source, and the buffer with its host read and the row an {@code LD}/{@code LDG} reads.
   */
  private Operands operands(java.util.function.Function<UInt, UInt> read) {
    UInt forwardA = read.apply(ra);
    UInt[] abc = new UInt[3];
    Runnable registers = () -> {
      abc[0] = regNext("a", forwardA);
      broadcastSource.set(regNext("broadcastA", mux(broadcastIssue, forwardA, uintLit(0, 32))));
      abc[1] = regNext("b", read.apply(rb));
      // rc is read as FP16 only (FMA16 addend, SELNEG sign), or in full with the FP32 FMA
      abc[2] = regNext("c", read.apply(rc).lsbs(cWidth()));
    };
    if (issue == null) {
      registers.run();
    } else {
      clockGatedPipeline(OPERAND_GATE, issue, pipeGating, registers);
    }
    UInt a = abc[0];
    UInt b = abc[1];
    UInt c = abc[2];
    sourceA.set(a);

    Mem<UInt> buffer = mem("buffer", uint(16), rows);
    buffer.init(new long[rows]);
    hostRead.set(buffer.readAsync(hostRow));
    UInt loaded = wire("loaded", buffer.readAsync(permute ? mux(op.eq(DspOp.LDG.code()), row.add(a.lsbs(row.width())), row)
        : row));
    return new Operands(a, b, c, buffer, loaded);
  }

  /** One execute stage: every result computed, selected and written in the cycle after issue. */
  private void oneStageExecute() {
    Mem<UInt> registers = mem("registers", uint(32), DspInstruction.REGISTERS);
    registers.init(new long[DspInstruction.REGISTERS]);
    UInt result = wire("result", uint(32));
    Bool writes = writesRegister(op, fma32, permute);
    Bool enabled = wire("enabled", execute.and(masked.not().or(elementValid)));
    Bool writeBack = wire("writeBack", enabled.and(writes));
    Operands o = operands(r -> mux(writeBack.and(rd.eq(r)), result, registers.readAsync(r)));
    UInt a = o.a();
    UInt b = o.b();
    UInt c = o.c();
    Mem<UInt> buffer = o.buffer();
    UInt loaded = o.loaded();

    Fp16Alu half = instance("fp16", new Fp16Alu(new Fp16Alu.Config(1, 0)));
    half.op.set(mux(op.eq(DspOp.LT16.code()), uintLit(Fp16Alu.LT, 3),
        mux(op.eq(DspOp.EQ16.code()), uintLit(Fp16Alu.EQ, 3), op.sub(DspOp.ADD16.code()).lsbs(3))));
    half.a.get(0).set(a.lsbs(16));
    half.b.get(0).set(b.lsbs(16));
    Fp16Fma fused = instance("fma16", new Fp16Fma(new Fp16Fma.Config(0)));
    fused.a.set(a.lsbs(16));
    fused.b.set(b.lsbs(16));
    fused.c.set(fma32 ? c.lsbs(16) : c);
    UInt fused32 = fma32 ? fp32Fma(instance("fma32", fp32FmaUnit(stages)), a, b, c) : null;
    Fp32Alu single = instance("fp32", new Fp32Alu());
    single.op.set(op.sub(DspOp.ADD32.code()).lsbs(2));
    single.a.set(a);
    single.b.set(b);
    Fp16Convert convert = instance("convert", new Fp16Convert());
    convert.op.set(op.sub(DspOp.WIDEN.code()).lsbs(3));
    convert.format.set(aux);
    convert.a.set(a);
    convert.b.set(b);

    UInt h16 = half.result.get(0).resize(32);
    executeOneOps(result, a, b, c, loaded, s -> {
      s.is(new long[] {DspOp.ADD16.code(), DspOp.SUB16.code(), DspOp.MUL16.code(), DspOp.MIN16.code(),
          DspOp.MAX16.code(), DspOp.LT16.code(), DspOp.EQ16.code()}, () -> result.set(h16));
      s.is(new long[] {DspOp.ADD32.code(), DspOp.SUB32.code(), DspOp.MUL32.code()}, () -> result.set(single.result));
      s.is(new long[] {DspOp.WIDEN.code(), DspOp.NARROW.code(), DspOp.SCALB16.code(), DspOp.TOINT.code(),
          DspOp.FROMINT.code()}, () -> result.set(convert.result));
      s.is(DspOp.FMA16.code(), () -> result.set(fused.result.resize(32)));
      if (fma32) {
        s.is(DspOp.FMA32.code(), () -> result.set(fused32));
      }
    });

    when(writeBack, () -> registers.write(rd, result));

    Bool store = wire("store", enabled.and(storeOp(op, permute)));
    UInt storeRow = permute ? mux(op.eq(DspOp.STG.code()), row.add(b.lsbs(row.width())), row) : row;
    UInt writeRow = wire("writeRow", mux(store, storeRow, hostRow));
    UInt writeData = wire("writeData", mux(store, a.lsbs(16), hostData));
    when(store.or(hostWrite), () -> buffer.write(writeRow, writeData));
  }

  /**
   * N = {@code stages} (2..4) execute stages: FP units pipelined over all of them, every other op
   * complete in execute 1 and carried along; write-back in execute N; forwarding from every stage
   * (an FP result only from execute N: the DSP's interlock holds its readers until then).
   */
  private void pipelinedExecute() {
    int n = stages;
    Mem<UInt> registers = mem("registers", uint(32), DspInstruction.REGISTERS);
    registers.init(new long[DspInstruction.REGISTERS]);
    // execute N: the instruction's write-back (result below)
    UInt result = wire("result", uint(32));
    Bool writes = writesRegister(op, fma32, permute);
    Bool enabled = wire("enabled", execute.and(masked.not().or(elementValid)));
    UInt simple = wire("simple", uint(32));
    Bool late1 = lateOp(op, fma32);
    // the instruction in execute j (2..N): write-back enable, destination, op completed early, its value
    Bool[] writeBack = new Bool[n + 1];
    UInt[] rdAt = new UInt[n + 1];
    Bool[] lateAt = new Bool[n + 1];
    UInt[] simpleAt = new UInt[n + 1];
    writeBack[1] = enabled.and(writes);
    rdAt[1] = rd;
    lateAt[1] = late1;
    simpleAt[1] = simple;
    for (int j = 2; j <= n; j++) {
      Bool wb = regInit("writeBack" + j, bool(), 0);
      wb.set(writeBack[j - 1]);
      writeBack[j] = wb;
      rdAt[j] = regNext("rd" + j, rdAt[j - 1]);
      if (j < n) {
        lateAt[j] = regNext("late" + j, lateAt[j - 1]);
      }
      simpleAt[j] = regNext("simple" + j, simpleAt[j - 1]);
    }
    // issue: register read with forwarding, youngest first: execute 1 (ops that complete there),
    // execute 2..N−1 (the same, carried), execute N (every result)
    // (execute 1's and execute N's values, the latest to arrive, enter one AND-OR selection)
    java.util.function.Function<UInt, UInt> forward = r -> {
      UInt v = registers.readAsync(r);
      Bool older = boolLit(false);
      for (int j = n - 1; j >= 2; j--) {
        Bool hit = writeBack[j].and(lateAt[j].not()).and(rdAt[j].eq(r));
        v = mux(hit, simpleAt[j], v);
        older = older.or(hit);
      }
      Bool first = writeBack[1].and(lateAt[1].not()).and(rdAt[1].eq(r));
      Bool last = writeBack[n].and(rdAt[n].eq(r)).and(older.not()).and(first.not());
      Bool rest = first.not().and(last.not());
      UInt zero = uintLit(0, 32);
      return mux(first, simpleAt[1], zero).or(mux(last, result, zero)).or(mux(rest, v, zero));
    };
    Operands o = operands(forward);
    UInt a = o.a();
    UInt b = o.b();
    UInt c = o.c();
    Mem<UInt> buffer = o.buffer();
    UInt loaded = o.loaded();

    // execute 1 → N: the FP units with N − 1 internal registers
    int internal = n - 1;
    Fp16Alu half = pipelined(DspPipe.FP16, new Fp16Alu(new Fp16Alu.Config(1, 0, internal)));
    half.op.set(mux(op.eq(DspOp.LT16.code()), uintLit(Fp16Alu.LT, 3),
        mux(op.eq(DspOp.EQ16.code()), uintLit(Fp16Alu.EQ, 3), op.sub(DspOp.ADD16.code()).lsbs(3))));
    half.a.get(0).set(a.lsbs(16));
    half.b.get(0).set(b.lsbs(16));
    Fp16Fma fused = pipelined(DspPipe.FMA16, new Fp16Fma(new Fp16Fma.Config(0, internal)));
    fused.a.set(a.lsbs(16));
    fused.b.set(b.lsbs(16));
    fused.c.set(fma32 ? c.lsbs(16) : c);
    UInt fused32 = fma32 ? fp32Fma(pipelined(DspPipe.FMA32, fp32FmaUnit(stages)), a, b, c) : null;
    Fp32Alu single = pipelined(DspPipe.FP32, new Fp32Alu(internal));
    single.op.set(op.sub(DspOp.ADD32.code()).lsbs(2));
    single.a.set(a);
    single.b.set(b);
    Fp16Convert convert = pipelined(DspPipe.CONVERT, new Fp16Convert(internal));
    convert.op.set(op.sub(DspOp.WIDEN.code()).lsbs(3));
    convert.format.set(aux);
    convert.a.set(a);
    convert.b.set(b);

    // execute 1: every other operation, carried to execute N
    simple.set(simpleResult(a, b, c, loaded));
    // which unit's rounded result execute N takes (one-hot, decided in execute 1)
    Bool fromHalf = delay("fromHalf", stages, inRange(op, DspOp.ADD16, DspOp.MAX16).or(op.eq(DspOp.LT16.code()))
        .or(op.eq(DspOp.EQ16.code())));
    Bool fromSingle = delay("fromSingle", stages, inRange(op, DspOp.ADD32, DspOp.MUL32));
    Bool fromConvert = delay("fromConvert", stages, inRange(op, DspOp.WIDEN, DspOp.FROMINT));
    Bool fromFused = delay("fromFused", stages, op.eq(DspOp.FMA16.code()));
    UInt late = mux(fromFused, fused.result.resize(32), simpleAt[n]);
    if (fma32) {
      late = mux(delay("fromFused32", stages, op.eq(DspOp.FMA32.code())), fused32, late);
    }

    // execute N: select and write back
    result.set(mux(fromHalf, half.result.get(0).resize(32), mux(fromSingle, single.result,
        mux(fromConvert, convert.result, late))));
    when(writeBack[n], () -> registers.write(rdAt[n], result));

    Bool store = wire("store", enabled.and(storeOp(op, permute)));
    UInt storeRow = permute ? mux(op.eq(DspOp.STG.code()), row.add(b.lsbs(row.width())), row) : row;
    UInt writeRow = wire("writeRow", mux(store, storeRow, hostRow));
    UInt writeData = wire("writeData", mux(store, a.lsbs(16), hostData));
    when(store.or(hostWrite), () -> buffer.write(writeRow, writeData));
  }

  /**
   * {@code unit} instanced as {@code pipe}'s unit (instance name: the pipe's name in lower case), on a clock gate
   * {@code <name>Pipe} enabled by its bit of {@link #pipeEnable} when the pipelined units are gated.
   */
  private <T extends org.llmnpu.hdl.HwModule> T pipelined(DspPipe pipe, T unit) {
    String name = pipe.name().toLowerCase(java.util.Locale.ROOT);
    if (pipeGating == ClockGating.OFF) {
      return instance(name, unit);
    }
    int bit = pipes(fma32).indexOf(pipe);
    clockGatedPipeline(name + "Pipe", pipeEnable.bit(bit), pipeGating, () -> instance(name, unit));
    return unit;
  }

  /** The result of the ops that complete in execute 1 (integer, table, select, cross-lane, load); 0 for the others. */
  private UInt simpleResult(UInt a, UInt b, UInt c, UInt loaded) {
    UInt simple = wire("simpleResult", uint(32));
    executeOneOps(simple, a, b, c, loaded, s -> { });
    return simple;
  }

  /**
   * Sets {@code target} by a case on {@code op}: the ops that complete in execute 1 (loads, lane
   * rotation, integer, exponent, table, fix, select, sign, cross-lane) from the registered operands
   * and the buffer word {@code loaded}, with {@code fpArms} (the FP units' results, with one execute
   * stage) between the loads and the integer ops; 0 for any other op.
   */
  private void executeOneOps(UInt target, UInt a, UInt b, UInt c, UInt loaded, Consumer<Switch> fpArms) {
    UInt exponent = mux(aux.bit(0), exponentOf(a, 8, 23, "exponent32"), exponentOf(a, 5, 10, "exponent16"));
    UInt segment = segment(a.lsbs(16), starts, segments).resize(32);
    UInt fixed = fix(a.lsbs(16), b.lsbs(16), aux).resize(32);
    // segments past the table capacity read as unused (start NaN, coefficient 0)
    Bool inTable = a.lsbs(4).lt(segments);
    UInt start = mux(inTable, starts.read(a.lsbs(4)), uintLit(0x7E00, 16)).resize(32);
    UInt coefficient = mux(inTable, coefficients.read(a.lsbs(4)), uintLit(0, 16)).resize(32);
    switchOn(op, s -> {
      s.is(DspOp.LI.code(), () -> target.set(imm));
      s.is(DspOp.LD.code(), () -> target.set(loaded.resize(32)));
      if (permute) {
        s.is(new long[] {DspOp.LDS.code(), DspOp.LDG.code()}, () -> target.set(loaded.resize(32)));
        s.is(DspOp.ROT.code(), () -> target.set(rotateIn));
      }
      fpArms.accept(s);
      s.is(DspOp.IADD.code(), () -> target.set(PrefixAdder.add(a, b)));
      s.is(DspOp.ISUB.code(), () -> target.set(PrefixAdder.subtract(a, b)));
      s.is(DspOp.IHALF.code(), () -> target.set(cat(a.bit(31), a.msbs(31)).asUInt()));
      s.is(DspOp.EXPO.code(), () -> target.set(exponent));
      s.is(DspOp.TSEG.code(), () -> target.set(segment));
      s.is(DspOp.TSTART.code(), () -> target.set(start));
      s.is(DspOp.TCOEF.code(), () -> target.set(coefficient));
      s.is(DspOp.FIX.code(), () -> target.set(fixed));
      s.is(DspOp.SELNEG.code(), () -> target.set(mux(c.bit(15), a, b)));
      s.is(DspOp.NEGABS.code(), () -> target.set(cat(boolLit(true), a.lsbs(15)).asUInt().resize(32)));
      s.is(DspOp.ABS.code(), () -> target.set(a.lsbs(15).resize(32)));
      s.is(DspOp.LSHIFT.code(), () -> target.set(shiftIn));
      s.is(DspOp.BCAST.code(), () -> target.set(broadcastIn));
      s.otherwise(() -> target.set(uintLit(0, 32)));
    });
  }

  /** Bits of the registered rc operand: 16 (FP16 addend, sign), 32 with the FP32 FMA. */
  private int cWidth() {
    return fma32 ? 32 : 16;
  }


  @Override
  public String moduleName() {
    return "DspLane_r" + rows + "_t" + segments + (split ? "_x" + stages : "") + (fma32 ? "_f32" : "") + (permute ? "_p" : "")
        + (pipeGating == ClockGating.OFF ? "" : "_g");
  }
}
