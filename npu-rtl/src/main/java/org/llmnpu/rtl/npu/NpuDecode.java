package org.llmnpu.rtl.npu;

import static org.llmnpu.hdl.Hw.mux;
import static org.llmnpu.hdl.Hw.uint;
import static org.llmnpu.hdl.Hw.uintLit;

import java.util.List;
import org.llmnpu.hdl.Bool;
import org.llmnpu.hdl.UInt;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.isa.MxLoad;
import org.llmnpu.isa.Opcode;

/**
 * The DECODE cycle of the {@link Npu}: operand fields of the command register and the checks of
 * {@code IsaSimulator} (shape, scratchpad range and alignment, memory range and alignment), as
 * combinational logic on 52-bit sums and 16×32-bit products.
 */
final class NpuDecode {
  private static final int WIDE = 52;
  final Bool undefined;
  final Bool isDma;
  final Bool isLoad4;
  final Bool isLoadMx;
  /** A {@code loadmx} on an NPU built without MX decoding. */
  final Bool mxUnsupported;
  final Bool isDspTab;
  final Bool isDspIn;
  final Bool isDspOut;
  final Bool isDspRun;
  final Bool isSnapshot;
  final Bool badDsp;
  /** DSP copies: rows, elements per row, bytes per element (1, 2, 4), first buffer element, INT8 or INT32 scale (FP16). */
  final UInt copyRows;
  final UInt copyElems;
  final UInt elementBytes;
  final UInt bufferStart;
  final UInt scale;
  /** Beats of a {@code dsprun}'s program. */
  final UInt programBeats;
  final Bool badShape;
  final Bool badSpad;
  final Bool badExt;
  final UInt dmaBeats;
  final UInt m;
  final UInt k;
  final UInt n;
  final UInt xStride;
  final UInt wStride;
  final UInt kTiles;
  final UInt nTiles;
  /** The K of the GEMM's MAC count ({@code M·macsK·N}, {@link NpuGemm#macsRegister}): K, or the value rows of an N:M GEMM. */
  final UInt macsK;
  /** A GEMM's accumulate-into flag (word 2 bit 16). */
  final Bool accumulate;
  /** A GEMM in the array's N:M mode (always false on a dense array). */
  final Bool sparseGemm;
  /** Scratchpad rows of the GEMM's W: K, or {@code 2·E·ceil(K/G)} value and metadata rows (16 bits). */
  final UInt wRows;
  /** End (exclusive) of the scratchpad bytes a DMA touches, 52 bits. */
  final UInt dmaSpadEnd;
  /** End (exclusive) of a GEMM's result bytes, 52 bits. */
  final UInt resultEnd;
  private final Npu npu;
  private final int lineShift;
  private final int line;

  NpuDecode(Npu npu, MachineParams p, List<UInt> w, int snapshotBytes) {
    this.npu = npu;
    line = p.lineBytes();
    lineShift = Integer.numberOfTrailingZeros(line);
    UInt op = w.get(0).lsbs(8);
    Bool isLoad = op.eq(Opcode.LOAD.code());
    Bool isStore = op.eq(Opcode.STORE.code());
    Bool isGemm = op.eq(Opcode.GEMM.code());
    isLoad4 = npu.wireOf("decode_isLoad4", op.eq(Opcode.LOAD4.code()));
    isDspTab = npu.wireOf("decode_isDspTab", op.eq(Opcode.DSPTAB.code()));
    isDspIn = npu.wireOf("decode_isDspIn", op.eq(Opcode.DSPIN.code()));
    isDspOut = npu.wireOf("decode_isDspOut", op.eq(Opcode.DSPOUT.code()));
    isDspRun = npu.wireOf("decode_isDspRun", op.eq(Opcode.DSPRUN.code()));
    isSnapshot = npu.wireOf("decode_isSnapshot", op.eq(Opcode.SNAPSHOT.code()));
    isLoadMx = npu.wireOf("decode_isLoadMx", op.eq(Opcode.LOADMX.code()));
    mxUnsupported = npu.wireOf("decode_mxUnsupported", isLoadMx.and(p.mxLoad() ? isLoadMx.not() : isLoadMx));
    isDma = npu.wireOf("decode_isDma", isLoad.or(isStore).or(isLoad4).or(isLoadMx));
    undefined = npu.wireOf("decode_undefined", isDma.or(isGemm).or(op.eq(Opcode.FENCE.code()))
        .or(op.eq(Opcode.HALT.code())).or(isDspTab).or(isDspIn).or(isDspOut).or(isDspRun).or(isSnapshot).not()
        .or(w.get(0).slice(31, 8).ne(0)));

    // DMA fields: ext, extStride, spad, spadStride, rowBytes, rows.
    UInt rows = w.get(6);
    UInt rowBytes = w.get(5);
    Bool dmaShape = rows.eq(0).or(rows.slice(31, 16).ne(0)).or(rowBytes.eq(0)).or(rowBytes.slice(31, 16).ne(0));
    UInt rowsLess1 = npu.wireOf("decode_rowsLess1", rows.lsbs(16).sub(1));
    dmaSpadEnd = npu.wireOf("decode_dmaSpadEnd", end(w.get(3), rowsLess1, w.get(4), rowBytes.lsbs(16)));
    // load4: the scratchpad rows are twice the source rows
    UInt load4SpadEnd = npu.wireOf("decode_load4SpadEnd", end(w.get(3), rowsLess1, w.get(4),
        rowBytes.lsbs(16).resize(17).shiftLeft(1).resize(17)));
    Bool dmaSpad = misaligned(w.get(3)).or(misaligned(w.get(4))).or(dmaSpadEnd.gt(uintLit(p.spadBytes(), WIDE)))
        .or(isLoad4.and(load4SpadEnd.gt(uintLit(p.spadBytes(), WIDE))));
    Bool dmaExt = misaligned(w.get(1)).or(misaligned(w.get(2)))
        .or(end(w.get(1), rowsLess1, w.get(2), rowBytes.lsbs(16)).gt(uintLit(p.extMemBytes(), WIDE)));
    dmaBeats = npu.wireOf("decode_dmaBeats", rowBytes.lsbs(16).resize(17).add(line - 1).shiftRight(lineShift)
        .resize(16));

    // GEMM fields.
    m = npu.wireOf("decode_m", w.get(1).lsbs(16));
    k = npu.wireOf("decode_k", w.get(1).slice(31, 16));
    n = npu.wireOf("decode_n", w.get(2).lsbs(16));
    accumulate = npu.wireOf("decode_accumulate", w.get(2).slice(16, 16).eq(1));
    xStride = npu.wireOf("decode_xStride", w.get(6).lsbs(16).resize(32));
    wStride = npu.wireOf("decode_wStride", w.get(6).slice(31, 16).resize(32));
    Bool gemmShape = m.eq(0).or(m.gt(p.maxM())).or(k.eq(0)).or(k.gt(p.maxK())).or(n.eq(0)).or(n.gt(p.maxN()));
    kTiles = npu.wireOf("decode_kTiles", roundUpLines(k));
    nTiles = npu.wireOf("decode_nTiles", roundUpLines(n));
    UInt kBytes = kTiles.resize(16 + lineShift).shiftLeft(lineShift).resize(16 + lineShift);
    UInt nBytes = nTiles.resize(16 + lineShift).shiftLeft(lineShift).resize(16 + lineShift);
    UInt yBytes = n.resize(18).shiftLeft(2).resize(18);
    UInt mLess1 = npu.wireOf("decode_mLess1", m.sub(1));
    int mode = p.sparsity();
    sparseGemm = mode == org.llmnpu.isa.Command.DENSE ? org.llmnpu.hdl.Hw.boolLit(false)
        : npu.wireOf("decode_sparseGemm", w.get(2).slice(18, 17).eq(mode));
    // N:M: E·ceil(K/G) value rows (G = 2E = 4 or 8), as many metadata rows
    int groupShift = mode == org.llmnpu.isa.Command.S2_4 ? 2 : 3;
    UInt valueRows = k.resize(17).add((1 << groupShift) - 1).shiftRight(groupShift)
        .shiftLeft(groupShift - 1).resize(16);
    wRows = mode == org.llmnpu.isa.Command.DENSE ? k
        : npu.wireOf("decode_wRows", mux(sparseGemm, valueRows.shiftLeft(1).resize(16), k));
    UInt kLess1 = npu.wireOf("decode_kLess1", wRows.sub(1));
    UInt spadLimit = uintLit(p.spadBytes(), WIDE);
    Bool gemmSpad = misaligned(w.get(3)).or(misaligned(w.get(4))).or(misaligned(w.get(5))).or(misaligned(xStride))
        .or(misaligned(wStride)).or(misaligned(w.get(7)))
        .or(end(w.get(3), mLess1, xStride, kBytes).gt(spadLimit))
        .or(end(w.get(4), kLess1, wStride, nBytes).gt(spadLimit))
        .or(resultEndOf(npu, w.get(5), mLess1, w.get(7), yBytes).gt(spadLimit));
    resultEnd = resultEndValue;
    macsK = mode == org.llmnpu.isa.Command.DENSE ? k : npu.wireOf("decode_macsK", mux(sparseGemm, valueRows, k));

    // DSP copies: spad, spadStride, rowElems | rows, buffer row, format | shift
    Bool isCopy = isDspIn.or(isDspOut);
    copyElems = npu.wireOf("decode_copyElems", w.get(3).lsbs(16));
    copyRows = npu.wireOf("decode_copyRows", w.get(3).slice(31, 16));
    UInt format = w.get(5).lsbs(8);
    UInt shift = w.get(5).slice(15, 8);
    // shift is a signed byte; −24..15 is 0xE8..0xFF or 0x00..0x0F
    Bool shiftOk = shift.le(15).or(shift.ge(0xE8));
    Bool formatOk = mux(isDspIn, format.le(2).and(shiftOk), format.le(1));
    Bool copyShape = formatOk.not().or(copyRows.eq(0)).or(copyElems.eq(0));
    elementBytes = npu.wireOf("decode_elementBytes", mux(format.eq(2), uintLit(4, 3),
        mux(format.eq(1), uintLit(1, 3), uintLit(2, 3))));
    UInt copyRowBytes = copyElems.resize(19).shiftLeft(2).resize(19);
    copyRowBytes = mux(format.eq(2), copyRowBytes, mux(format.eq(1), copyElems.resize(19),
        copyElems.resize(19).shiftLeft(1).resize(19)));
    UInt copyRowsLess1 = npu.wireOf("decode_copyRowsLess1", copyRows.sub(1));
    Bool copySpad = misaligned(w.get(1)).or(misaligned(w.get(2)))
        .or(end(w.get(1), copyRowsLess1, w.get(2), copyRowBytes).gt(uintLit(p.spadBytes(), WIDE)));
    int laneShift = Integer.numberOfTrailingZeros(p.dsp().lanes());
    UInt firstElement = w.get(4).resize(WIDE).shiftLeft(laneShift).resize(WIDE);
    bufferStart = npu.wireOf("decode_bufferStart", firstElement.resize(32));
    Bool copyDsp = firstElement.add(copyRows.mul(copyElems).resize(WIDE)).gt(uintLit(p.dsp().elements(), WIDE));
    // 2^shift as FP16: normal for shift ≥ −14, else the subnormal 2^(shift + 24)
    UInt exponentField = shift.add(15).lsbs(5).resize(16).shiftLeft(10).resize(16);
    UInt subnormal = uintLit(1, 16).shiftLeft(shift.add(24).lsbs(4)).resize(16);
    Bool normalScale = shift.le(15).or(shift.ge(0xF2));
    scale = npu.wireOf("decode_scale", mux(format.eq(2), mux(normalScale, exponentField, subnormal),
        uintLit(0x3C00, 16)));

    // dsptab ext; dsprun prog, words; snapshot ext
    UInt extLimit = uintLit(p.extMemBytes(), WIDE);
    Bool tabExt = misaligned(w.get(1)).or(w.get(1).resize(WIDE).add(uintLit(768, WIDE)).gt(extLimit));
    UInt words = w.get(2);
    Bool runExt = misaligned(w.get(1)).or(w.get(1).resize(WIDE).add(words.resize(WIDE).shiftLeft(3).resize(WIDE))
        .gt(extLimit));
    Bool snapExt = misaligned(w.get(1)).or(w.get(1).resize(WIDE).add(uintLit(snapshotBytes, WIDE)).gt(extLimit));
    int depthBits = Integer.numberOfTrailingZeros(p.dsp().programDepth());
    programBeats = npu.wireOf("decode_programBeats", words.lsbs(depthBits + 1).resize(depthBits + 4).shiftLeft(3)
        .resize(depthBits + 4).add(line - 1).shiftRight(lineShift).resize(16));

    badShape = npu.wireOf("decode_badShape", isDma.and(dmaShape).or(isLoadMx.and(w.get(7).gt(MxLoad.LAST))).or(isGemm.and(gemmShape))
        .or(isCopy.and(copyShape)).or(isDspRun.and(words.eq(0))));
    badSpad = npu.wireOf("decode_badSpad", isDma.and(dmaSpad).or(isGemm.and(gemmSpad)).or(isCopy.and(copySpad)));
    badDsp = npu.wireOf("decode_badDsp", isCopy.and(copyDsp).or(isDspRun.and(words.gt(p.dsp().programDepth()))));
    badExt = npu.wireOf("decode_badExt", isDma.and(dmaExt).or(isDspTab.and(tabExt)).or(isDspRun.and(runExt))
        .or(isSnapshot.and(snapExt)));
  }

  private UInt resultEndValue;

  private UInt resultEndOf(Npu npu, UInt base, UInt count, UInt stride, UInt tail) {
    resultEndValue = npu.wireOf("decode_resultEnd", end(base, count, stride, tail));
    return resultEndValue;
  }

  private Bool misaligned(UInt v) {
    return v.lsbs(lineShift).ne(0);
  }

  /** {@code base + count·stride + tail} in 52 bits. */
  private static UInt end(UInt base, UInt count, UInt stride, UInt tail) {
    return base.resize(WIDE).add(count.mul(stride).resize(WIDE)).add(tail.resize(WIDE));
  }

  /** {@code ceil(v / line)} for a 16-bit v. */
  private UInt roundUpLines(UInt v) {
    return v.resize(17).add(line - 1).shiftRight(lineShift).resize(16);
  }

  /** Lines of one result row of N INT32 outputs: {@code ceil(4N / line)}. */
  UInt drainLines(UInt nValue) {
    return nValue.resize(19).shiftLeft(2).resize(19).add(line - 1).shiftRight(lineShift).resize(16);
  }
}
