package org.llmnpu.rtl.npu;

import static org.llmnpu.hdl.Hw.bitsToHold;
import static org.llmnpu.hdl.Hw.bool;
import static org.llmnpu.hdl.Hw.boolLit;
import static org.llmnpu.hdl.Hw.cat;
import static org.llmnpu.hdl.Hw.catLsbFirst;
import static org.llmnpu.hdl.Hw.mux;
import static org.llmnpu.hdl.Hw.sint;
import static org.llmnpu.hdl.Hw.uint;
import static org.llmnpu.hdl.Hw.uintLit;

import java.util.ArrayList;
import java.util.List;
import org.llmnpu.hdl.Bits;
import org.llmnpu.hdl.Bool;
import org.llmnpu.hdl.HwValue;
import org.llmnpu.hdl.Mem;
import org.llmnpu.hdl.SInt;
import org.llmnpu.hdl.UInt;
import org.llmnpu.isa.EngineTiming;
import org.llmnpu.pim.PimMacro;
import org.llmnpu.pim.PimMacroConfig;
import org.llmnpu.pim.PimPrecision;
import org.llmnpu.rtl.mac.GemmBackend;
import org.llmnpu.rtl.mac.GemmEngine;
import org.llmnpu.rtl.mac.GemmEngineConfig;
import org.llmnpu.rtl.mac.MacArrayConfig;
import org.llmnpu.rtl.mac.PassIterator;
import org.llmnpu.rtl.mac.WeightSparsity;

/**
 * The NPU's second GEMM engine: the same ports, buffers and result memories as the systolic
 * {@link GemmEngine} ({@link GemmBackend}), with a {@code rows × cols} INT8 {@link PimMacro}
 * (digital compute-in-memory, bit-serial inputs, {@code bitsPerCycle} bits per cycle) in place of
 * the MAC array. It computes {@code Y[M×N] = X[M×K] · W[K×N]} bit for bit as
 * {@code numerics.gemm.TiledGemm} with {@code rows} K per tile: exact INT8 products and column sums,
 * one saturating addition per K tile into the {@code accWidth}-bit psum (sticky {@code overflow}),
 * K tiles folded {@code icAccumDepth} at a time in the macro's periphery-latched psum banks, the
 * rest written back to and read back from the result memories — the numerics and traffic of the
 * systolic engine, so the NPU's results do not depend on the engine.
 *
 * <p><b>Sequencing</b>: passes (N tile, M chunk of {@code mTile}, K tile) in {@link PassIterator}
 * order; per pass the weight tile is written into the bitcells one row per cycle ({@code rows}
 * cycles, rows past K as zero), the first input vector is issued in the last write cycle and the
 * others as the macro takes them (one per {@code C = ceil(8 / bitsPerCycle)} cycles); the next
 * pass's writes start when the array is free again (the cycle after the last vector's last
 * chunk). A tag pipeline of depth {@code C + 1 + S} ({@code S} =
 * {@link EngineTiming#PIM_STAGES}, the macro's column pipeline registers) carries each vector's psum address
 * and fold flags to its periphery cycle, where the macro reads back ({@code psumIn}) or writes its psums.
 *
 * <p><b>Cycle formula</b> (cycle 0 = the first cycle after {@code start}; {@code done} is high from
 * cycle {@code cycles} on; {@link EngineTiming#engineCycles}):
 * <pre>
 *   cycles = nTiles · kTiles · (mChunks · rows + M · C) + 1 + S
 * </pre>
 * with {@code nTiles = ceil(N/cols)}, {@code kTiles = ceil(K/rows)}, {@code mChunks = ceil(M/mTile)}
 * — the macro's own {@code PimCycleModel.gemmCycles}: a single bitcell bank cannot compute while it
 * is written, so every pass pays {@code rows} write cycles.
 *
 * <p>{@code overflow} is the macro's sticky flag, cleared by {@code start} as the systolic engine's.
 */
public final class PimGemmBackend extends GemmBackend {
  private final PimMacroConfig macroConfig;

  public PimGemmBackend(GemmEngineConfig c, int bitsPerCycle) {
    this(c, bitsPerCycle, 1);
  }

  /**
   * The engine with a W buffer of {@code weightRowsPerCycle} row banks (the NPU's W copy writes that many rows a
   * cycle); the macro's bitcell writes stay one row a cycle, so the engine's cycles do not change.
   */
  public PimGemmBackend(GemmEngineConfig c, int bitsPerCycle, int weightRowsPerCycle) {
    super(c, weightRowsPerCycle);
    MacArrayConfig a = c.array();
    if (a.sparsity() != WeightSparsity.NONE) {
      throw new IllegalArgumentException("the PiM GEMM engine holds dense weights; sparsity must be none, got "
          + a.sparsity());
    }
    int rows = a.rows();
    int cols = a.cols();
    int acc = a.accWidth();
    macroConfig = new PimMacroConfig(rows, cols, PimPrecision.INT8, PimMacroConfig.Alignment.NONE, 8, bitsPerCycle,
        0, acc, a.mTile(), a.icAccumDepth(), 1).withStages(EngineTiming.PIM_STAGES);
    int cpm = macroConfig.cyclesPerMvm();
    UInt xAddress = load.xAddress;
    Mem<UInt> xBuffer = mem("xBuffer", uint(8 * rows), 1 << xAddress.width());
    java.util.List<Mem<UInt>> wBuffer = weightBuffer(8);
    when(load.xWrite, () -> xBuffer.write(xAddress, load.xData));
    writeWeightBuffer(wBuffer);

    PimMacro pim = instance("pim", new PimMacro(macroConfig));
    PassIterator it = instance("pass", new PassIterator(c));
    Bool running = regInit("running", bool(), 0);
    Bool doneQ = regInit("doneQ", bool(), 0);
    Bool launch = wire("launch", start.and(running.not()));
    it.restart.set(launch);
    pim.clearFlags.set(launch);
    it.m.set(load.m);
    it.k.set(load.k);
    it.n.set(load.n);

    // ---------------------------------------------------------------- pass sequencer
    Bool streaming = regInit("streaming", bool(), 0);   // else writing the pass's weight tile
    Bool finishing = regInit("finishing", bool(), 0);   // every vector issued; waiting for the last periphery cycle
    UInt row = regInit("row", uint(c.rowBits()), 0);
    int vecBits = bitsToHold(a.mTile());
    UInt vec = regInit("vec", uint(vecBits), 0);
    Bool writing = wire("writing", running.and(streaming.not()).and(finishing.not()));
    Bool write = wire("write", writing.and(pim.wrReady));
    Bool lastRow = wire("lastRow", row.eq(rows - 1));
    Bool issue = wire("issue", write.and(lastRow).or(running.and(streaming)));
    Bool accepted = wire("accepted", issue.and(pim.inReady));
    UInt vecNow = wire("vecNow", mux(streaming, vec, uintLit(0, vecBits)));
    Bool lastVec = wire("lastVec", vecNow.resize(it.mCount.width()).eq(it.mCount.sub(1)));
    Bool passEnds = wire("passEnds", accepted.and(lastVec));
    it.advance.set(passEnds);

    UInt wWord = wire("wWord", readWeightRow(wBuffer, it.nTile, it.kTile, row));
    int kw = Math.max(row.width(), it.kRemain.width());
    Bool rowInK = wire("rowInK", row.resize(kw).lt(it.kRemain.resize(kw)));
    pim.wrEn.set(write);
    pim.wrRow.set(row.resize(pim.wrRow.width()));
    pim.wrData.set(mux(rowInK, wWord, uintLit(0, 8 * cols)).asBits());

    int mBits = c.mBits();
    int rw = Math.max(mBits, vecBits);
    UInt mRow = wire("mRow", it.mBase.resize(rw).add(vecNow.resize(rw)).resize(mBits));
    UInt xWord = wire("xWord", xBuffer.readAsync(cat(mRow, it.kTile).asUInt()));
    pim.inValid.set(issue);
    pim.inData.set(xWord.asBits());
    pim.inBank.set(vecNow.resize(pim.inBank.width()));
    pim.inFirst.set(it.firstInGroup);
    pim.inLast.set(it.lastInGroup);

    when(launch, () -> {
      running.set(boolLit(true));
      doneQ.set(boolLit(false));
      streaming.set(boolLit(false));
      finishing.set(boolLit(false));
      row.set(uintLit(0, row.width()));
      vec.set(uintLit(0, vecBits));
    }).otherwise(() -> {
      when(write, () -> row.set(mux(lastRow, uintLit(0, row.width()), row.add(1))));
      when(accepted, () -> {
        vec.set(vecNow.add(1));
        when(lastVec, () -> {
          vec.set(uintLit(0, vecBits));
          streaming.set(boolLit(false));
          when(it.lastPass, () -> finishing.set(boolLit(true)));
        }).otherwise(() -> streaming.set(boolLit(true)));
      });
    });

    // ---------------------------------------------------------------- tags to the periphery cycle
    UInt psumAddress = wire("psumAddress", cat(mRow, it.nTile).asUInt());
    Bool tagValid = accepted;
    UInt tagAddr = psumAddress;
    Bool tagReadback = it.readback;
    Bool tagFinal = it.finalGroup;
    Bool tagEnd = wire("tagEnd", passEnds.and(it.lastPass));
    UInt tagCols = it.colCount;
    for (int s = 0; s <= cpm + macroConfig.stages(); s++) {
      tagValid = regNext("tag" + s + "_valid", tagValid);
      tagAddr = regNext("tag" + s + "_address", tagAddr);
      tagReadback = regNext("tag" + s + "_readback", tagReadback);
      tagFinal = regNext("tag" + s + "_final", tagFinal);
      tagEnd = regNext("tag" + s + "_end", tagEnd);
      tagCols = regNext("tag" + s + "_cols", tagCols);
    }
    Bool periph = wire("periph", tagValid);
    UInt periphAddr = wire("periphAddress", tagAddr);
    Bool periphReadback = wire("periphReadback", tagReadback);
    Bool periphFinal = wire("periphFinal", tagFinal);
    UInt periphCols = wire("periphCols", tagCols);

    // ---------------------------------------------------------------- result memories
    List<HwValue> readbacks = new ArrayList<>();
    List<HwValue> yLanes = new ArrayList<>();
    for (int col = 0; col < cols; col++) {
      Mem<SInt> psum = mem("psum_" + col, sint(acc), 1 << yAddress.width());
      SInt value = pim.outData.bits(acc * col + acc - 1, acc * col).asSInt();
      when(pim.outLast, () -> psum.write(periphAddr, value));
      readbacks.add(psum.readAsync(periphAddr));
      yLanes.add(psum.readAsync(yAddress));
    }
    Bits readbackWord = wire("readbackWord", catLsbFirst(readbacks));
    pim.psumIn.set(mux(periphReadback, readbackWord, uintLit(0, acc * cols).asBits()));
    yData.set(catLsbFirst(yLanes));

    UInt writebacks = regInit("writebacks", uint(32), 0);
    UInt readbackCount = regInit("readbackCount", uint(32), 0);
    UInt cycleCount = regInit("cycleCount", uint(32), 0);
    when(launch, () -> {
      writebacks.set(uintLit(0, 32));
      readbackCount.set(uintLit(0, 32));
      cycleCount.set(uintLit(0, 32));
    }).otherwise(() -> {
      when(pim.outLast.and(periphFinal.not()), () -> writebacks.set(writebacks.add(periphCols.resize(32))));
      when(pim.outFirst.and(periphReadback), () -> readbackCount.set(readbackCount.add(periphCols.resize(32))));
      when(running, () -> cycleCount.set(cycleCount.add(1)));
    });
    Bool endNow = wire("endNow", periph.and(tagEnd));
    when(running.and(endNow).and(launch.not()), () -> {
      running.set(boolLit(false));
      doneQ.set(boolLit(true));
    });
    busy.set(running);
    done.set(doneQ);
    overflow.set(pim.overflow);
    psumWritebacks.set(writebacks);
    psumReadbacks.set(readbackCount);
    cycles.set(cycleCount);
  }

  /** The macro inside. */
  public PimMacroConfig macroConfig() {
    return macroConfig;
  }

  @Override
  public String moduleName() {
    GemmEngineConfig c = config();
    return "PimGemmBackend_" + macroConfig.tag() + "_M" + c.maxM() + "_K" + c.maxK() + "_N" + c.maxN()
        + (weightRowsPerCycle() == 1 ? "" : "_w" + weightRowsPerCycle());
  }
}
