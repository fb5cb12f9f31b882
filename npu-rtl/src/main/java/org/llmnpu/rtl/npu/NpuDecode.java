package org.llmnpu.rtl.npu;

import static org.llmnpu.hdl.Hw.mux;
import static org.llmnpu.hdl.Hw.uint;
import static org.llmnpu.hdl.Hw.uintLit;

import java.util.List;
import org.llmnpu.hdl.Bool;
import org.llmnpu.hdl.UInt;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.isa.Opcode;

/**
 * The DECODE cycle of the {@link Npu}: the opcode and operand fields of the command register, and the checks of
 * {@code IsaSimulator} (shape, scratchpad range and alignment, DSP range, memory range and alignment) with the
 * DMA's scratchpad end and the GEMM's result end, which {@link NpuPredecode} computed when the command arrived
 * and which are stored beside it ({@code predecoded}).
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
  /** A {@code dspld}; a resident {@code dsprun} (words 0: loads nothing). */
  final Bool isDspLd;
  final Bool residentRun;
  final Bool isSnapshot;
  final Bool badDsp;
  /** DSP copies: rows, elements per row, bytes per element (1, 2, 4), first buffer element, the INT32 shift (0 else). */
  final UInt copyRows;
  final UInt copyElems;
  final UInt bufferStart;
  final UInt shift;
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
  /**
   * A GEMM whose W streams from the memory (word 2 bit 19), its INT4 flag (bit 20, or bit 22: group-scaled INT4,
   * {@code wGroupScaled}), and a refused one.
   */
  final Bool wStream;
  final Bool wInt4;
  final Bool wGroupScaled;
  final Bool streamUnsupported;
  /** Beats of a streamed W row: {@code ceil(rowBytes / line)}, rowBytes = N or {@code ceil(N/2)} (INT4); its remainder. */
  final UInt wColumns;
  /** Rows of a streamed W (beats of one line column): K, or {@code S + ceil(S/P)} values and packed metadata (N:M). */
  final UInt streamRows;
  final UInt wRemainder;
  /** A GEMM in the array's N:M mode (always false on a dense array). */
  final Bool sparseGemm;
  /** Scratchpad rows of the GEMM's W: K, or {@code 2·E·ceil(K/G)} value and metadata rows (16 bits). */
  final UInt wRows;
  /** End (exclusive) of the scratchpad bytes a DMA touches, 52 bits (all ones of {@link NpuPredecode#endBits} past the scratchpad). */
  final UInt dmaSpadEnd;
  /** End (exclusive) of a GEMM's result bytes, 52 bits. */
  final UInt resultEnd;
  /** End (exclusive) of a DSP copy's scratchpad bytes, 52 bits. */
  final UInt copySpadEnd;
  private final NpuController npu;
  private final int lineShift;
  private final int line;

  NpuDecode(NpuController npu, MachineParams p, List<UInt> w, UInt predecoded) {
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
    isDspLd = npu.wireOf("decode_isDspLd", op.eq(Opcode.DSPLD.code()));
    residentRun = npu.wireOf("decode_residentRun", isDspRun.and(w.get(2).eq(0)));
    isSnapshot = npu.wireOf("decode_isSnapshot", op.eq(Opcode.SNAPSHOT.code()));
    isLoadMx = npu.wireOf("decode_isLoadMx", op.eq(Opcode.LOADMX.code()));
    mxUnsupported = npu.wireOf("decode_mxUnsupported", isLoadMx.and(p.mxLoad() ? isLoadMx.not() : isLoadMx));
    isDma = npu.wireOf("decode_isDma", isLoad.or(isStore).or(isLoad4).or(isLoadMx));
    undefined = npu.wireOf("decode_undefined", isDma.or(isGemm).or(op.eq(Opcode.FENCE.code()))
        .or(op.eq(Opcode.HALT.code())).or(isDspTab).or(isDspIn).or(isDspOut).or(isDspRun).or(isDspLd).or(isSnapshot).not()
        .or(w.get(0).slice(31, 8).ne(0)));

    // DMA fields: ext, extStride, spad, spadStride, rowBytes, rows.
    UInt rowBytes = w.get(5);
    dmaBeats = npu.wireOf("decode_dmaBeats", rowBytes.lsbs(16).resize(17).add(line - 1).shiftRight(lineShift)
        .resize(16));

    // GEMM fields.
    m = npu.wireOf("decode_m", w.get(1).lsbs(16));
    k = npu.wireOf("decode_k", w.get(1).slice(31, 16));
    n = npu.wireOf("decode_n", w.get(2).lsbs(16));
    accumulate = npu.wireOf("decode_accumulate", w.get(2).slice(16, 16).eq(1));
    xStride = npu.wireOf("decode_xStride", w.get(6).lsbs(16).resize(32));
    wStride = npu.wireOf("decode_wStride", w.get(6).slice(31, 16).resize(32));
    kTiles = npu.wireOf("decode_kTiles", roundUpLines(k));
    nTiles = npu.wireOf("decode_nTiles", roundUpLines(n));
    int mode = p.sparsity();
    sparseGemm = mode == org.llmnpu.isa.Command.DENSE ? org.llmnpu.hdl.Hw.boolLit(false)
        : npu.wireOf("decode_sparseGemm", w.get(2).slice(18, 17).eq(mode));
    // N:M: E·ceil(K/G) value rows (G = 2E = 4 or 8), as many metadata rows
    int groupShift = mode == org.llmnpu.isa.Command.S2_4 ? 2 : 3;
    UInt valueRows = k.resize(17).add((1 << groupShift) - 1).shiftRight(groupShift)
        .shiftLeft(groupShift - 1).resize(16);
    wRows = mode == org.llmnpu.isa.Command.DENSE ? k
        : npu.wireOf("decode_wRows", mux(sparseGemm, valueRows.shiftLeft(1).resize(16), k));
    macsK = mode == org.llmnpu.isa.Command.DENSE ? k : npu.wireOf("decode_macsK", mux(sparseGemm, valueRows, k));
    // streamed W: on an NPU built for it (NpuConfig.weightStream); N:M values INT8
    wStream = npu.wireOf("decode_wStream", w.get(2).slice(19, 19).eq(1));
    boolean streams = npu.config().weightStream();
    wGroupScaled = streams ? npu.wireOf("decode_wGroupScaled", w.get(2).slice(22, 22).eq(1)) : null;
    wInt4 = streams ? npu.wireOf("decode_wInt4", w.get(2).slice(20, 20).eq(1).or(wGroupScaled)) : null;
    Bool nm = w.get(2).slice(18, 17).ne(0);
    streamUnsupported = npu.wireOf("decode_streamUnsupported", isGemm.and(wStream)
        .and(npu.config().weightStream() ? nm.and(wInt4) : org.llmnpu.hdl.Hw.boolLit(true)));
    int fieldShift = mode == org.llmnpu.isa.Command.S2_4 ? 2 : 1;
    UInt packedRows = valueRows.resize(17).add((1 << fieldShift) - 1).shiftRight(fieldShift).resize(16);
    // group-scaled INT4: K + 2·ceil(K/32) rows (two multiplier rows a group)
    UInt groupedRows = streams ? k.resize(17).add(k.resize(17).add(31).shiftRight(5).shiftLeft(1)).resize(16) : k;
    UInt denseRows = streams ? mux(wGroupScaled, groupedRows, k) : k;
    streamRows = !streams ? k : mode == org.llmnpu.isa.Command.DENSE ? npu.wireOf("decode_streamRows", denseRows)
        : npu.wireOf("decode_streamRows", mux(sparseGemm, valueRows.add(packedRows).resize(16), denseRows));
    UInt streamRowBytes = streams ? mux(wInt4, n.resize(17).add(1).shiftRight(1).resize(17), n.resize(17)) : null;
    wColumns = streams ? npu.wireOf("decode_wColumns", streamRowBytes.add(line - 1).shiftRight(lineShift)
        .resize(16)) : null;
    wRemainder = streams ? npu.wireOf("decode_wRemainder", streamRowBytes.lsbs(lineShift).resize(lineShift + 1))
        : null;

    // DSP copies: spad, spadStride, rowElems | rows, buffer row, format | shift
    copyElems = npu.wireOf("decode_copyElems", w.get(3).lsbs(16));
    copyRows = npu.wireOf("decode_copyRows", w.get(3).slice(31, 16));
    UInt format = w.get(5).lsbs(8);
    UInt shiftField = w.get(5).slice(15, 8);
    int laneShift = Integer.numberOfTrailingZeros(p.dsp().lanes());
    bufferStart = npu.wireOf("decode_bufferStart", w.get(4).resize(32).shiftLeft(laneShift).resize(32));
    // the INT32 conversion's exponent (−24..15 in 6 bits); INT8 converts with exponent 0
    shift = npu.wireOf("decode_shift", mux(format.eq(2), shiftField.lsbs(6), uintLit(0, 6)));

    // dsprun prog, words
    UInt words = w.get(2);
    int depthBits = Integer.numberOfTrailingZeros(p.dsp().programDepth());
    programBeats = npu.wireOf("decode_programBeats", words.lsbs(depthBits + 1).resize(depthBits + 4).shiftLeft(3)
        .resize(depthBits + 4).add(line - 1).shiftRight(lineShift).resize(16));

    // the checks and sums computed when the command arrived (NpuPredecode)
    badShape = npu.wireOf("decode_badShape", predecoded.slice(NpuPredecode.SHAPE, NpuPredecode.SHAPE).eq(1));
    badSpad = npu.wireOf("decode_badSpad", predecoded.slice(NpuPredecode.SPAD, NpuPredecode.SPAD).eq(1));
    badDsp = npu.wireOf("decode_badDsp", predecoded.slice(NpuPredecode.DSP, NpuPredecode.DSP).eq(1));
    badExt = npu.wireOf("decode_badExt", predecoded.slice(NpuPredecode.EXT, NpuPredecode.EXT).eq(1));
    int endBits = NpuPredecode.endBits(p);
    dmaSpadEnd = npu.wireOf("decode_dmaSpadEnd", predecoded.slice(NpuPredecode.DMA_SPAD_END + endBits - 1,
        NpuPredecode.DMA_SPAD_END).resize(WIDE));
    int resultEnd0 = NpuPredecode.resultEnd(p);
    resultEnd = npu.wireOf("decode_resultEnd", predecoded.slice(resultEnd0 + endBits - 1, resultEnd0).resize(WIDE));
    int copyEnd0 = NpuPredecode.copySpadEnd(p);
    copySpadEnd = npu.wireOf("decode_copySpadEnd", predecoded.slice(copyEnd0 + endBits - 1, copyEnd0).resize(WIDE));
  }

  /** {@code ceil(v / line)} for a 16-bit v. */
  private UInt roundUpLines(UInt v) {
    return v.resize(17).add(line - 1).shiftRight(lineShift).resize(16);
  }
}
