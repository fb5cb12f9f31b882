package org.llmnpu.rtl.dsp;

import org.llmnpu.isa.dsp.DspTable;
import org.llmnpu.isa.dsp.DspProgram;
import org.llmnpu.isa.dsp.DspOp;
import org.llmnpu.isa.dsp.DspKernels;
import org.llmnpu.isa.dsp.DspCycleFormula;
import org.llmnpu.isa.dsp.DspPipeline;
import org.llmnpu.isa.dsp.DspPipe;
import org.llmnpu.isa.dsp.DspRunParameters;
import static org.llmnpu.hdl.Hw.bool;
import static org.llmnpu.hdl.Hw.boolLit;
import static org.llmnpu.hdl.Hw.cat;
import static org.llmnpu.hdl.Hw.log2Ceil;
import static org.llmnpu.hdl.Hw.mux;
import static org.llmnpu.hdl.Hw.uint;
import static org.llmnpu.hdl.Hw.uintLit;

import java.util.ArrayList;
import java.util.List;
import org.llmnpu.hdl.Bool;
import org.llmnpu.hdl.ClockGating;
import org.llmnpu.hdl.UInt;
import org.llmnpu.hdl.Vec;

/**
 * The Vector DSP: {@code lanes} SIMD lanes of FP16/FP32 ({@link DspLane}) executing a program of
 * {@link DspOp} instructions from a program memory, on a local buffer of {@code rows} rows of
 * {@code lanes} FP16 elements, with three run-time-loaded polynomial tables of
 * {@code tableSegments} segments and degree {@code tableDegree} ({@link DspTable}; slot 0 exp,
 * 1 reciprocal, 2 rsqrt; slot 3 reads as empty). {@link DspKernels} compiles
 * SoftMax, RMSNorm, LayerNorm, SiLU, GeLU, SwiGLU, residual add, RoPE, exp, reciprocal, rsqrt and
 * the max/sum reductions to programs whose results equal the numerics golden kernels bit for bit.
 *
 * <p><b>Numerics.</b> FP16 add/sub/mul and FP32 add/sub/mul are correctly rounded (RNE,
 * subnormals, canonical NaN); conversions round once; exp/reciprocal/rsqrt are the
 * {@code Fp16Math} sequences (range reduction, table polynomial, Newton step), every step one
 * correctly rounded FP16 operation.
 *
 * <p><b>Host interface.</b> {@code prog_we/prog_addr/prog_data} write 64-bit instruction words;
 * {@code table_we/table_addr/table_data} write a table entry (address {@code slot·128 +
 * segment·8 + field}, field 0 the start, 1.. the coefficients c0, c1, …; starts reset to NaN,
 * i.e. unused; writes beyond the capacity are ignored); {@code buf_we/buf_addr/buf_wdata} write the buffer element {@code buf_addr} (row
 * {@code buf_addr / lanes}, lane {@code buf_addr mod lanes}) and {@code buf_rdata} reads it
 * combinationally. A write by the running program wins over a host write to the same lane.
 *
 * <p><b>Timing.</b> A {@code start} pulse while idle starts the program at address {@code entry}; one
 * instruction issues per cycle (loops have no per-iteration overhead) into a pipeline of issue
 * (fetch, decode, register read with forwarding) and {@code executeStages} execute stages
 * ({@link DspLane}, {@link DspPipeline}). With one execute stage (default) every result is
 * forwarded to the next instruction and nothing stalls. With two, the FP units round in execute 2;
 * results are forwarded from execute 1 (ops that complete there) and execute 2, and an instruction
 * that reads an FP result of the instruction just before it is held one cycle (a bubble enters
 * execute 1). With three or four the FP units run over all N stages (decode and products | sum |
 * normalize and round, the rounder split once more with four), every result is written back in
 * execute N in issue order, and an instruction waits while an FP op in execute j &lt; N writes a
 * register it reads (N − j cycles; {@link org.llmnpu.isa.dsp.DspIssueWindow}). {@code HALT} ends the run: {@code busy} falls, {@code done} rises and stays high
 * until the next start (every store has reached the buffer by then), and {@code cycles} holds the
 * cycles from start to done, issues plus stalls (= {@link DspProgram#cycles(DspPipeline)} =
 * {@link DspCycleFormula} for a compiled kernel). Latency from start to done: cycles + 1.
 * {@code stop} ends a run at the next clock edge without raising {@code done} (the NPU's run
 * limit); registers and buffer keep their contents.
 *
 * <p><b>Run parameters</b> ({@link DspRunParameters}): {@code run_bases} and {@code run_length} are sampled with
 * {@code start}; a row instruction with {@code rc[4]} set adds row base {@code rc[1:0]} to its immediate, a
 * {@code SETLEN} with {@code rc[4]} adds the length. They cost no cycle: one resident program serves every run. Whether
 * and which parameter an instruction reads is predecoded when the program is written (3 bits beside each program
 * word), so the issue path selects it without loading the {@code rc} field that addresses the lanes' register files.
 *
 * <p><b>Wide host ports</b> ({@link #VectorDsp(Config, int, int)}, for a bus of several words): with
 * {@code progWords} = W, a program write stores W consecutive words (row {@code prog_addr} of W
 * words, word j at {@code prog_addr·W + j}, from bits {@code 64j..}; {@code prog_mask} bit j enables
 * word j); with {@code tableEntries} = E, a table write stores the E entries at addresses
 * {@code table_addr·E + j} from bits {@code 16j..} of {@code table_data}. W = E = 1 is the
 * one-word interface above.
 */
public final class VectorDsp extends VectorDspPaths {
  /** Table slots with registers: 0 exp, 1 reciprocal, 2 rsqrt (slot 3 reads as an empty table). */
  public static final int TABLE_SLOTS = 3;
  /**
   * @param lanes SIMD lanes, a power of two in 1..64 (64: one FP16 result a column of a 64-wide MAC array)
   * @param rows buffer rows (elements per lane), a power of two in 16..65536
   * @param programDepth instruction words, a power of two in 16..4096
   * @param tableSegments segments per polynomial table, 1..16 [12: the rsqrt table needs 12]
   * @param tableDegree polynomial degree the tables hold, 0..3 [2]
   * @param executeStages 1 [default]: one execute stage, no stalls; 2: the FP units round in a second
   *                      execute stage, with a one-cycle interlock; 3 or 4: the FP units pipelined over
   *                      3 or 4 stages, an interlock of up to 2 or 3 cycles ({@link DspPipeline})
   * @param fma32 false [default]: no FP32 FMA (opcode {@code FMA32} is undefined, a NOP); true: every lane
   *              has an {@code Fp32Fma} and executes {@link DspOp#FMA32} (an FP unit, rounded in the last
   *              execute stage)
   * @param permute false [default]: no buffer permutations (their opcodes are undefined, NOPs); true: the
   *                skewed load/store, lane rotation and row gather/scatter ({@link DspOp#LDS}, {@link DspOp#STS},
   *                {@link DspOp#ROT}, {@link DspOp#LDG}, {@link DspOp#STG}) for transposes and row gathers
   * @param pipeGating OFF [default]: the pipelined units' registers run on the DSP's clock; ON or CHECKED (with 2..4
   *                execute stages): each lane's pipelined units ({@link DspPipe}) on a clock gate of their own,
   *                open while an operation of the unit is in execute 1..N − 1 (the cycles its internal registers
   *                advance; {@code HwModule#clockGatedPipeline}); results, cycles and ports other than the lanes'
   *                enables are the same
   */
  public record Config(int lanes, int rows, int programDepth, int tableSegments, int tableDegree,
                       int executeStages, boolean fma32, boolean permute, ClockGating pipeGating) {
    /** Without clock gates on the pipelined units. */
    public Config(int lanes, int rows, int programDepth, int tableSegments, int tableDegree, int executeStages,
        boolean fma32, boolean permute) {
      this(lanes, rows, programDepth, tableSegments, tableDegree, executeStages, fma32, permute, ClockGating.OFF);
    }

    /** The same DSP with the pipelined units' clock gates built as {@code gating}. */
    public Config withPipeGating(ClockGating gating) {
      return new Config(lanes, rows, programDepth, tableSegments, tableDegree, executeStages, fma32, permute, gating);
    }

    /** Without the FP32 FMA and the permutations. */
    public Config(int lanes, int rows, int programDepth, int tableSegments, int tableDegree, int executeStages) {
      this(lanes, rows, programDepth, tableSegments, tableDegree, executeStages, false, false);
    }

    /** Without the permutations. */
    public Config(int lanes, int rows, int programDepth, int tableSegments, int tableDegree, int executeStages,
        boolean fma32) {
      this(lanes, rows, programDepth, tableSegments, tableDegree, executeStages, fma32, false);
    }

    /** One execute stage. */
    public Config(int lanes, int rows, int programDepth, int tableSegments, int tableDegree) {
      this(lanes, rows, programDepth, tableSegments, tableDegree, 1);
    }

    public Config {
      checkConfig(lanes, rows, programDepth, tableSegments, tableDegree, executeStages, pipeGating);
    }

    /** Tables of 12 segments of degree 2, the size of the numerics tables. */
    public Config(int lanes, int rows, int programDepth) {
      this(lanes, rows, programDepth, 12, 2);
    }

    /** The pipeline organisation the cycle counts follow. */
    public DspPipeline pipeline() {
      return DspPipeline.ofExecuteStages(executeStages);
    }
  }

  public final Bool start = in(bool());
  /** The run's row bases ({@link DspRunParameters}: base k mod rows at bits {@code k·log2(rows)..}), sampled at start. */
  public final UInt runBases;
  public final UInt runLength = in("run_length", uint(32));
  /** The program address a {@code start} runs from. */
  public final UInt entry;
  public final Bool busy = out(bool());
  public final Bool done = out(bool());
  public final UInt cycles = out(uint(32));
  /** The issuing instruction is held by the interlock this cycle (never with one execute stage): busy and not stalled = an issue. */
  public final Bool stalled = out(bool());
  public final Bool stop = in("stop", bool());
  public final Bool progWe = in("prog_we", bool());
  public final UInt progAddr;
  public final UInt progData;
  public final UInt progMask;
  public final Bool tableWe = in("table_we", bool());
  public final UInt tableAddr;
  public final UInt tableData;
  public final Bool bufWe = in("buf_we", bool());
  public final UInt bufAddr;
  public final UInt bufWdata;
  public final UInt bufRdata;
  /** With a buffer window of W &gt; 1 elements: bit i enables the write of window element i (else null). */
  public final UInt bufMask;
  private final Config config;
  private final int progWords;
  private final int tableEntries;
  private final int bufWindow;
  private final int wideReads;

  /** The DSP with one-word program and table ports. */
  public VectorDsp(Config c) {
    this(c, 1, 1);
  }

  /**
   * The DSP with host ports of {@code progWords} program words and {@code tableEntries} table
   * entries per write (powers of two, at most {@code programDepth} and 128).
   */
  public VectorDsp(Config c, int progWords, int tableEntries) {
    this(c, progWords, tableEntries, 1);
  }

  /**
   * The DSP with wide program and table ports and a buffer window of {@code bufWindow} consecutive elements (a
   * power of two, at most {@code lanes}): {@code buf_addr} names the window's first element x, window element i is
   * buffer element x + i (lane (x + i) mod lanes, row (x + i) / lanes: every lane holds at most one of them, so
   * each lane's buffer is written or read once with its own row), at bits {@code 16i..} of {@code buf_wdata} and
   * {@code buf_rdata}; {@code buf_mask} bit i enables its write.
   */
  public VectorDsp(Config c, int progWords, int tableEntries, int bufWindow) {
    this(c, progWords, tableEntries, bufWindow, bufWindow);
  }

  /**
   * As {@link #VectorDsp(Config, int, int, int)}, with only the first {@code wideReads} window elements read whole:
   * {@code buf_rdata} holds them at bits {@code 16i..}, then the low byte of each of the others (a host that reads
   * those only as bytes, like the NPU's INT8 {@code dspout} beyond a line's FP16 elements, needs no more).
   */
  public VectorDsp(Config c, int progWords, int tableEntries, int bufWindow, int wideReads) {
    checkPorts(c, progWords, tableEntries, bufWindow, wideReads);
    this.bufWindow = bufWindow;
    this.wideReads = wideReads;
    bufWdata = in("buf_wdata", uint(16 * bufWindow));
    bufRdata = out("buf_rdata", uint(16 * wideReads + 8 * (bufWindow - wideReads)));
    bufMask = bufWindow == 1 ? null : in("buf_mask", uint(bufWindow));
    config = c;
    this.progWords = progWords;
    this.tableEntries = tableEntries;
    int pcBits = log2Ceil(c.programDepth());
    int rowBits = log2Ceil(c.rows());
    int laneBits = log2Ceil(c.lanes());
    int wordBits = log2Ceil(progWords);
    entry = in("entry", uint(pcBits));
    runBases = in("run_bases", uint(DspRunParameters.BASES * rowBits));
    progAddr = in("prog_addr", uint(Math.max(1, pcBits - wordBits)));
    progData = in("prog_data", uint(64 * progWords));
    progMask = progWords == 1 ? null : in("prog_mask", uint(progWords));
    int entryBits = log2Ceil(tableEntries);
    tableAddr = in("table_addr", uint(9 - entryBits));
    tableData = in("table_data", uint(16 * tableEntries));
    bufAddr = in("buf_addr", uint(rowBits + laneBits));

    UInt pcWire = wire("pcNext", uint(pcBits));
    UInt pcSelectN = wordSelectCopy(wordBits);
    UInt word = programWord(c.programDepth(), progWords, progWe, progAddr, progData, progMask, pcWire, pcSelectN);
    UInt runFlags = wire("runFlags",
        runParameterFlags(c.programDepth(), progWords, progWe, progAddr, progData, progMask, pcWire));

    // control
    Bool running = regInit("running", bool(), 0);
    Bool doneQ = regInit("doneQ", bool(), 0);
    UInt pc = regInit("pc", uint(pcBits), 0);
    // every jump sets the pc and its inverted word-select copy (programWord)
    java.util.function.Consumer<UInt> jump = to -> {
      pc.set(to);
      if (pcSelectN != null) {
        pcSelectN.set(to.lsbs(wordBits).not());
      }
    };
    Bool looping = regInit("looping", bool(), 0);
    UInt loopStart = regInit("loopStart", uint(pcBits), 0);
    UInt loopEnd = regInit("loopEnd", uint(pcBits), 0);
    UInt loopCount = regInit("loopCount", uint(16), 0);
    UInt idx = regInit("idx", uint(16), 0);
    UInt len = regInit("len", uint(32), 0);
    UInt cycleCount = regInit("cycleCount", uint(32), 0);
    busy.set(running);
    done.set(doneQ);
    cycles.set(cycleCount);
    pcWire.set(pc);
    UInt op = wire("op", word.slice(63, 58));
    UInt imm = wire("imm", word.lsbs(32));
    Bool isHalt = op.eq(DspOp.HALT.code());
    Bool isLoop = op.eq(DspOp.LOOP.code());
    Bool atLoopEnd = wire("atLoopEnd", looping.and(pc.eq(loopEnd)));
    // interlock (DspPipeline): hold the issuing instruction while an FP op in execute 1..N−1 writes a
    // register it reads (an FP result exists only in execute N)
    Bool exValid = regInit("exValid", bool(), 0);
    UInt exOp = wire("exOp", uint(6));
    UInt exRd = wire("exRd", uint(5));
    java.util.function.Predicate<DspOp> built = o -> (o != DspOp.FMA32 || c.fma32()) && (!o.permutes() || c.permute());
    Bool exWrites = exValid.and(opIn(exOp, op2 -> built.test(op2) && op2.writesRegister() && op2.roundsLate()));
    int stages = c.executeStages();
    boolean split = stages >= 2;
    Bool hazard = wire("hazard", split ? running.and(pendingRead(op, word, exWrites, exRd, stages, built))
        : boolLit(false));
    stalled.set(hazard);
    Bool again = wire("again", idx.addExpand(uintLit(1, 16)).lt(loopCount.resize(17)));
    UInt next = pc.add(uintLit(1, pcBits));

    UInt[] run = sampleRunParameters(running.not().and(start), runBases, runLength, rowBits);
    when(running.not(), () -> when(start, () -> {
      running.set(boolLit(true));
      doneQ.set(boolLit(false));
      jump.accept(entry);
      looping.set(boolLit(false));
      idx.set(uintLit(0, 16));
      len.set(uintLit(0, 32));
      cycleCount.set(uintLit(0, 32));
    })).otherwise(() -> {
      cycleCount.set(cycleCount.add(uintLit(1, 32)));
      when(stop, () -> running.set(boolLit(false))).elseWhen(hazard, () -> { }).elseWhen(isHalt, () -> {
        running.set(boolLit(false));
        doneQ.set(boolLit(true));
      }).elseWhen(isLoop, () -> {
        looping.set(boolLit(true));
        loopStart.set(next);
        loopEnd.set(pc.add(imm.slice(31, 16).resize(pcBits)));
        loopCount.set(imm.lsbs(16));
        idx.set(uintLit(0, 16));
        jump.accept(next);
      }).elseWhen(atLoopEnd.and(again), () -> {
        idx.set(idx.add(uintLit(1, 16)));
        jump.accept(loopStart);
      }).elseWhen(atLoopEnd, () -> {
        looping.set(boolLit(false));
        idx.set(uintLit(0, 16));
        jump.accept(next);
      }).otherwise(() -> jump.accept(next));
      when(op.eq(DspOp.SETLEN.code()).and(hazard.not()), () -> len.set(imm.add(mux(runFlags.bit(0), run[4], uintLit(0, 32)))));
    });

    // tables: slots 0..2 × tableSegments × (start, c0..c{tableDegree}) registers
    int segments = c.tableSegments();
    // (slot 3 and everything beyond the capacity read as an unused segment: start NaN, coefficient 0)
    UInt[][][] tables = tableRegisters(tableWe, tableAddr, tableData, segments, c.tableDegree(), tableEntries,
        c.pipeGating());
    // execute stage 1: the fields of the instruction issued in the previous cycle (a bubble after a stall
    // or a stop)
    Bool issues = wire("issues", running.and(stop.not()).and(hazard.not()));
    exValid.set(issues);
    exOp.set(regNext("exOpQ", op));
    exRd.set(regNext("exRdQ", word.slice(57, 53)));
    Bool exMasked = regNext("exMasked", word.bit(37));
    UInt exImm = regNext("exImm", imm);
    UInt aux = wire("aux", regNext("exAux", word.slice(34, 33)));
    // the table's segment starts and coefficients of the issuing instruction's slot and degree, selected at issue
    // and registered: the lanes' segment search then starts from flip-flops, not from the selection's fan-out
    UInt issueAux = word.slice(36, 33);
    Vec<UInt> starts = wire("starts", Vec.of(segments, () -> uint(16)));
    Vec<UInt> coefficients = wire("coefficients", Vec.of(segments, () -> uint(16)));
    selectTable(tables, issueAux, c.tableDegree(), starts, coefficients);

    // lanes
    // a row instruction's immediate plus the run's row base rc[1:0] when rc[4] is set (DspRunParameters), plus idx
    UInt rowImm = c.permute() ? wire("rowImm", imm.lsbs(rowBits).add(rowOffset(runFlags, run, rowBits, null))) : null;
    UInt row = c.permute() ? null
        : wire("row", regNext("exRow", imm.lsbs(rowBits).add(rowOffset(runFlags, run, rowBits, idx.resize(rowBits)))));
    UInt hostRow = bufAddr.msbs(rowBits);
    UInt pipeOn = split && c.pipeGating() != ClockGating.OFF ? pipeEnables(exValid, exOp, stages, built) : null;
    List<DspLane> lanes = new ArrayList<>();
    for (int l = 0; l < c.lanes(); l++) {
      DspLane lane = instance("lane_" + l, new DspLane(c.rows(), rowBits, segments, stages, c.fma32(), c.permute(),
          pipeOn == null ? ClockGating.OFF : c.pipeGating()));
      lane.execute.set(exValid);
      if (pipeOn != null) {
        lane.pipeEnable.set(pipeOn);
        lane.issue.set(issues);
      }
      lane.op.set(exOp);
      lane.rd.set(exRd);
      lane.ra.set(word.slice(52, 48));
      lane.rb.set(word.slice(47, 43));
      lane.rc.set(word.slice(42, 38));
      lane.broadcastIssue.set(l == 0 ? op.eq(DspOp.BCAST.code()) : boolLit(false));
      lane.masked.set(exMasked);
      lane.aux.set(aux);
      lane.imm.set(exImm);
      UInt element = laneBits == 0 ? idx.resize(32) : cat(idx, uintLit(l, laneBits)).asUInt().resize(32);
      lane.elementValid.set(regNext("exElementValid_" + l, element.lt(len)));
      lane.row.set(c.permute() ? regNext("exRow_" + l, permutedRow(op, rowImm, idx, word.slice(36, 33), l, rowBits, config.lanes())) : row);
      for (int s = 0; s < segments; s++) {
        lane.starts.get(s).set(starts.get(s));
        lane.coefficients.get(s).set(coefficients.get(s));
      }
      if (bufWindow == 1) {
        lane.hostWrite.set(laneBits == 0 ? bufWe : bufWe.and(bufAddr.lsbs(laneBits).eq(l)));
        lane.hostRow.set(hostRow);
        lane.hostData.set(bufWdata);
      } else {
        DspBufferWindow.connect(lane, l, bufAddr, bufMask, bufWdata, bufWe, hostRow, laneBits, bufWindow);
      }
      lanes.add(lane);
    }
    connectNeighbours(lanes, exImm);
    if (c.permute()) {
      rotate(lanes, laneBits == 0 ? null : regNext("exRotate", imm.add(idx.resize(32)).lsbs(laneBits)));
    }
    bufRdata.set(windowRead(lanes, bufAddr, laneBits, bufWindow, wideReads));
  }

  /** The configuration. */
  public Config config() {
    return config;
  }

  @Override
  public String moduleName() {
    String wide = (progWords == 1 && tableEntries == 1 ? "" : "_w" + progWords + "e" + tableEntries)
        + (bufWindow == 1 ? "" : "b" + bufWindow + (wideReads == bufWindow ? "" : "r" + wideReads));
    return "VectorDsp_l" + config.lanes() + "_r" + config.rows() + "_p" + config.programDepth() + "_t"
        + config.tableSegments() + "d" + config.tableDegree() + (config.executeStages() > 1 ? "_x" + config.executeStages() : "") + (config.fma32() ? "_f32" : "") + (config.permute() ? "_p" : "") + wide;
  }
}
