package org.llmnpu.rtl.npu;

import static org.llmnpu.hdl.Hw.uint;
import static org.llmnpu.hdl.Hw.uintLit;

import java.util.List;
import org.llmnpu.hdl.Bool;
import org.llmnpu.hdl.UInt;
import org.llmnpu.isa.MachineParams;
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
  final UInt macs;
  /** End (exclusive) of the scratchpad bytes a DMA touches, 52 bits. */
  final UInt dmaSpadEnd;
  /** End (exclusive) of a GEMM's result bytes, 52 bits. */
  final UInt resultEnd;
  private final Npu npu;
  private final int lineShift;
  private final int line;

  NpuDecode(Npu npu, MachineParams p, List<UInt> w) {
    this.npu = npu;
    line = p.lineBytes();
    lineShift = Integer.numberOfTrailingZeros(line);
    UInt op = w.get(0).lsbs(8);
    Bool isLoad = op.eq(Opcode.LOAD.code());
    Bool isStore = op.eq(Opcode.STORE.code());
    Bool isGemm = op.eq(Opcode.GEMM.code());
    isDma = npu.wireOf("decode_isDma", isLoad.or(isStore));
    undefined = npu.wireOf("decode_undefined", isDma.or(isGemm).or(op.eq(Opcode.FENCE.code()))
        .or(op.eq(Opcode.HALT.code())).not().or(w.get(0).slice(31, 8).ne(0)));

    // DMA fields: ext, extStride, spad, spadStride, rowBytes, rows.
    UInt rows = w.get(6);
    UInt rowBytes = w.get(5);
    Bool dmaShape = rows.eq(0).or(rows.slice(31, 16).ne(0)).or(rowBytes.eq(0)).or(rowBytes.slice(31, 16).ne(0));
    UInt rowsLess1 = npu.wireOf("decode_rowsLess1", rows.lsbs(16).sub(1));
    dmaSpadEnd = npu.wireOf("decode_dmaSpadEnd", end(w.get(3), rowsLess1, w.get(4), rowBytes.lsbs(16)));
    Bool dmaSpad = misaligned(w.get(3)).or(misaligned(w.get(4))).or(dmaSpadEnd.gt(uintLit(p.spadBytes(), WIDE)));
    Bool dmaExt = misaligned(w.get(1)).or(misaligned(w.get(2)))
        .or(end(w.get(1), rowsLess1, w.get(2), rowBytes.lsbs(16)).gt(uintLit(p.extMemBytes(), WIDE)));
    dmaBeats = npu.wireOf("decode_dmaBeats", rowBytes.lsbs(16).resize(17).add(line - 1).shiftRight(lineShift)
        .resize(16));

    // GEMM fields.
    m = npu.wireOf("decode_m", w.get(1).lsbs(16));
    k = npu.wireOf("decode_k", w.get(1).slice(31, 16));
    n = npu.wireOf("decode_n", w.get(2).lsbs(16));
    xStride = npu.wireOf("decode_xStride", w.get(6).lsbs(16).resize(32));
    wStride = npu.wireOf("decode_wStride", w.get(6).slice(31, 16).resize(32));
    Bool gemmShape = m.eq(0).or(m.gt(p.maxM())).or(k.eq(0)).or(k.gt(p.maxK())).or(n.eq(0)).or(n.gt(p.maxN()));
    kTiles = npu.wireOf("decode_kTiles", roundUpLines(k));
    nTiles = npu.wireOf("decode_nTiles", roundUpLines(n));
    UInt kBytes = kTiles.resize(16 + lineShift).shiftLeft(lineShift).resize(16 + lineShift);
    UInt nBytes = nTiles.resize(16 + lineShift).shiftLeft(lineShift).resize(16 + lineShift);
    UInt yBytes = n.resize(18).shiftLeft(2).resize(18);
    UInt mLess1 = npu.wireOf("decode_mLess1", m.sub(1));
    UInt kLess1 = npu.wireOf("decode_kLess1", k.sub(1));
    UInt spadLimit = uintLit(p.spadBytes(), WIDE);
    Bool gemmSpad = misaligned(w.get(3)).or(misaligned(w.get(4))).or(misaligned(w.get(5))).or(misaligned(xStride))
        .or(misaligned(wStride)).or(misaligned(w.get(7)))
        .or(end(w.get(3), mLess1, xStride, kBytes).gt(spadLimit))
        .or(end(w.get(4), kLess1, wStride, nBytes).gt(spadLimit))
        .or(resultEndOf(npu, w.get(5), mLess1, w.get(7), yBytes).gt(spadLimit));
    resultEnd = resultEndValue;
    macs = npu.wireOf("decode_macs", m.mul(k).mul(n).resize(48));

    badShape = npu.wireOf("decode_badShape", isDma.and(dmaShape).or(isGemm.and(gemmShape)));
    badSpad = npu.wireOf("decode_badSpad", isDma.and(dmaSpad).or(isGemm.and(gemmSpad)));
    badExt = npu.wireOf("decode_badExt", isDma.and(dmaExt));
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
