package org.llmnpu.rtl.npu;

import static org.llmnpu.hdl.Hw.bool;
import static org.llmnpu.hdl.Hw.boolLit;
import static org.llmnpu.hdl.Hw.catLsbFirst;
import static org.llmnpu.hdl.Hw.mux;
import static org.llmnpu.hdl.Hw.uint;
import static org.llmnpu.hdl.Hw.uintLit;

import java.util.ArrayList;
import java.util.List;
import org.llmnpu.hdl.Bool;
import org.llmnpu.hdl.HwValue;
import org.llmnpu.hdl.UInt;
import org.llmnpu.rtl.mac.GemmEngine;
import org.llmnpu.rtl.mac.GemmEngineConfig;

/**
 * The streamed weights of a {@code gemm wStream=1} on an {@link Npu} built for them ({@code NpuConfig.weightStream}):
 * from the X copy's first cycle (beside it, through GEMM_START, then beside the controller's next commands: a
 * back-end phase over the DMA's walks and the memory port) it reads W from the memory
 * column by column — beat {@code
 * c·K + k} is W row k's line c at {@code w + k·wStride + c·line}, one request a cycle as the memory takes it (INT4:
 * on an N:M array at most every other cycle) — and writes each response straight into the engine's W buffer at
 * {@code (N tile c, row k)}: an INT8 line as it arrives; an INT4 line unpacked (signed nibbles, low first), its low
 * half into N tile {@code 2c} and its high half into {@code 2c + 1} in the same cycle on the dense array (the W
 * buffer's two banks by N-tile parity, {@link GemmEngine#wPairWrite}), one cycle later on an N:M array (not past
 * the last N tile). A scoreboard tells the engine which tiles are in ({@link GemmEngine#wFullTiles},
 * {@code wPartialEnd}, {@code wKTiles}), updated with each row's last write, so a pass starts in the cycle after
 * its last W row was written. The controller takes the next command after GEMM_START; until the last write only a
 * {@code dspin} or {@code dspout} goes ({@link NpuControl}). W never touches the
 * scratchpad. N:M (on an N:M array): a column's beats are its {@code ceil(S/P)} packed metadata rows, each writing
 * the indices of P entry rows at once ({@link GemmEngine#wMetaWrite}), then its S value rows, written as entry rows
 * without their index ({@link GemmEngine#wValuesOnly}); the scoreboard counts {@code rows} value rows a K tile, so a
 * pass starts once its K tile's values are in. Group-scaled INT4 ({@code wInt4=2},
 * {@code org.llmnpu.isa.StreamedWeights}): a column's beats are, per group of 32 W rows, two multiplier beats (even
 * columns' then odd columns' unsigned multipliers, latched in {@code wStream_mult0/1}, no W write) and the group's
 * INT4 beats, each entry widened to {@code (q·u + 8) >> 4} by its column's multiplier (one 4×9-bit product an
 * entry, 2·line of them) as it is unpacked; the W buffer row is then a K-row counter, not the beat index. Cycles:
 * {@code org.llmnpu.isa.CycleModel#streamedGemm}.
 */
final class NpuWeightStream {
  /** The running GEMM streams its W / its W entries are INT4 (set at every GEMM's dispatch). */
  final Bool streaming;
  final Bool int4;
  /** The running GEMM streams an N:M W (values, then packed metadata; only on an N:M array). */
  final Bool nm;
  /** N:M: the packed metadata rows a column begins with, {@code ceil(S/P)}. */
  private final UInt metaRows;
  /** Index fields a packed metadata byte holds on this NPU's N:M array (4 with 2:4, 2 with 4:8; 1 dense). */
  private final int fields;
  /**
   * The engine's W buffer takes an INT4 beat's two lines in one cycle (the dense engine: two banks by N-tile parity,
   * {@link GemmEngine#wPairWrite}); on an N:M array the high half is written one cycle after the low half.
   */
  private final boolean pairWrites;
  /** The INT4 high half's write, the cycle after its beat arrived (N:M arrays only; false with pair writes). */
  private final Bool second;
  private final UInt heldHigh;
  private final UInt nTiles;
  private final UInt fullTiles;
  private final UInt partialEnd;
  private final UInt kTilesIn;
  private final NpuController npu;
  private final Bool inStream;
  /** Group-scaled INT4: the mode, the beat's place in its group (0, 1 multipliers; 2.. W rows), the K row, multipliers. */
  private final Bool groupScaled;
  private final UInt groupRow;
  private final UInt kRow;
  private final UInt mult0;
  private final UInt mult1;
  /** The beat (and its INT4 high half) carries multipliers, not W entries. */
  private final Bool multiplierBeat;
  /** An INT4 or INT8 beat arrives for the W buffer / a W row's line is completely written. */
  final Bool beat;
  final Bool written;

  /** The stream has W rows left to write (set at a streamed GEMM's dispatch, cleared with its last write). */
  private final Bool running;

  /**
   * {@code inStream}: the stream's beats may go this cycle ({@code running}: from the dispatch to the last write).
   */
  NpuWeightStream(NpuController npu, Bool inStream, Bool running) {
    this.npu = npu;
    this.inStream = inStream;
    this.running = running;
    GemmEngineConfig gc = npu.config().gemm();
    int line = npu.line;
    streaming = npu.reg0("wStream_active", bool());
    int4 = npu.reg0("wStream_int4", bool());
    boolean sparseArray = npu.config().weightSparsity().sparse();
    nm = sparseArray ? npu.reg0("wStream_nm", bool()) : boolLit(false);
    metaRows = sparseArray ? npu.reg0("wStream_metaRows", uint(16)) : null;
    fields = !sparseArray ? 1 : npu.config().weightSparsity().group() == 4 ? 4 : 2;
    // N:M arrays only: the INT4 high half's delayed write is skipped past the last N tile
    nTiles = sparseArray ? npu.reg0("wStream_nTiles", uint(16)) : null;
    fullTiles = npu.reg0("wStream_fullTiles", uint(gc.nTileBits() + 1));
    partialEnd = npu.reg0("wStream_partialEnd", uint(gc.nTileBits() + 1));
    kTilesIn = npu.reg0("wStream_kTiles", uint(gc.kTileBits() + 1));
    beat = npu.wireOf("wStream_beat", inStream.and(npu.resp));
    pairWrites = !sparseArray;
    second = pairWrites ? boolLit(false) : npu.reg0Next("wStream_second", beat.and(int4));
    heldHigh = pairWrites ? null : npu.reg0("wStream_heldHigh", uint(8 * line));
    written = pairWrites ? beat : npu.wireOf("wStream_written", mux(int4, second, beat));
    groupScaled = npu.reg0("wStream_groupScaled", bool());
    groupRow = npu.reg0("wStream_groupRow", uint(6));
    kRow = npu.reg0("wStream_kRow", uint(16));
    mult0 = npu.reg0("wStream_mult0", uint(8 * line));
    mult1 = npu.reg0("wStream_mult1", uint(8 * line));
    multiplierBeat = npu.wireOf("wStream_multiplierBeat", groupScaled.and(groupRow.lt(2)));
  }

  /** This cycle's W entries line (INT8, or an INT4 half unpacked) and whether it writes values / packed indices. */
  UInt line;
  /** With pair writes: an INT4 beat's high half unpacked, written into N tile {@code 2c + 1} beside {@link #line}. */
  UInt highLine;
  Bool pairWrite;
  Bool valueWrite;
  Bool metaWrite;
  /** The N tile and the entry row the stream writes this cycle (the scratchpad copy's N tile when no stream runs). */
  UInt tile;
  UInt entryRow;
  /** The W row (K row; N:M: value row) a W-entry beat writes, the scoreboard's K-tile count. */
  private UInt valueRow;

  /** The stream's W buffer writes ({@link #line}, {@link #valueWrite}, …), built before the engine's ports. */
  void writes() {
    Walker sp = npu.dma.sp;
    int lineBytes = npu.line;
    UInt lineData = npu.mem_resp_data;
    npu.whenDo(beat.and(multiplierBeat).and(groupRow.eq(0)), () -> mult0.set(lineData));
    npu.whenDo(beat.and(multiplierBeat).and(groupRow.eq(1)), () -> mult1.set(lineData));
    java.util.function.Supplier<UInt> highHalf = () -> mux(groupScaled, unpackScaled(lineData, lineBytes / 2,
        lineBytes), unpack(lineData, lineBytes / 2, lineBytes));
    UInt lowHalf = mux(groupScaled, unpackScaled(lineData, 0, lineBytes), unpack(lineData, 0, lineBytes));
    UInt int4Data;
    if (pairWrites) {
      // one N tile (maxN ≤ cols): a beat's high half is past N and never written
      highLine = npu.config().gemm().nTileBits() == 0 ? null : npu.wireOf("wStream_highLine", highHalf.get());
      int4Data = lowHalf;
    } else {
      npu.whenDo(beat.and(int4), () -> heldHigh.set(highHalf.get()));
      int4Data = npu.wireOf("wStream_int4Line", mux(second, heldHigh, lowHalf));
    }
    line = npu.wireOf("wStream_line", mux(int4, int4Data, lineData));
    UInt tileBits = sp.row.resize(17).shiftLeft(1).resize(17);
    UInt int4Tile = pairWrites ? tileBits
        : npu.wireOf("wStream_int4Tile", mux(second, tileBits.add(1).resize(17), tileBits));
    int nb = npu.config().gemm().nTileBits();
    tile = npu.wireOf("wStream_tile", mux(inStream.and(int4), int4Tile.resize(nb), sp.row.resize(nb)));
    if (pairWrites) {
      // the high half of a column's last N tile past N goes into the buffer too: rows past N are never read
      valueWrite = npu.wireOf("wStream_write", beat.and(multiplierBeat.not()));
      pairWrite = highLine == null ? null : npu.wireOf("wStream_pairWrite", valueWrite.and(int4));
      return;
    }
    Bool highInN = int4Tile.lt(nTiles.resize(17));
    UInt rowInColumn = mux(groupScaled, kRow, sp.beat.resize(16));
    Bool meta = npu.wireOf("wStream_meta", nm.and(rowInColumn.lt(metaRows)));
    int shift = Integer.numberOfTrailingZeros(fields);
    int entryBits = npu.config().gemm().kTileBits() + npu.config().gemm().rowBits();
    valueRow = npu.wireOf("wStream_valueRow", mux(nm, rowInColumn.sub(metaRows).resize(16), rowInColumn)
        .resize(entryBits));
    entryRow = npu.wireOf("wStream_entryRow", mux(meta, rowInColumn.shiftLeft(shift).resize(entryBits), valueRow));
    valueWrite = npu.wireOf("wStream_write", inStream.and(multiplierBeat.not()).and(mux(int4,
        beat.or(second.and(highInN)), beat.and(meta.not()))));
    metaWrite = npu.wireOf("wStream_metaWrite", inStream.and(beat).and(meta));
  }

  /** The W buffer's write port of the dense engine (the stream's, else the scratchpad copy's) and the scoreboard. */
  void connect(GemmEngine engine, Bool copyWrite, UInt copyData) {
    GemmEngineConfig gc = npu.config().gemm();
    npu.io(engine.load.wWrite).set(copyWrite.or(valueWrite));
    int rowBits = gc.kTileBits() + gc.rowBits();
    UInt row = npu.wireOf("wStream_wRow", mux(groupScaled, kRow, npu.dma.sp.beat.resize(16)).resize(rowBits));
    npu.io(engine.load.wAddress).set(NpuGemm.join(tile, gc.nTileBits(), row, gc.kTileBits() + gc.rowBits()));
    npu.io(engine.load.wData).set(mux(inStream, line, copyData));
    if (engine.wPairWrite != null) {
      npu.io(engine.wPairWrite).set(pairWrite);
      npu.io(engine.wDataHigh).set(highLine);
    }
    scoreboard(engine);
  }

  /**
   * The engine's view of which W tiles are in, and its pass order: an INT4 stream's beat column holds N tiles
   * {@code 2c} and {@code 2c + 1}, so its passes go in N-tile pairs ({@link GemmEngine#wPairOrder}).
   */
  void scoreboard(GemmEngine engine) {
    npu.io(engine.wPairOrder).set(int4);
    npu.io(engine.wFullTiles).set(fullTiles);
    npu.io(engine.wPartialEnd).set(partialEnd);
    npu.io(engine.wKTiles).set(kTilesIn);
  }

  /** Statements at a GEMM's dispatch: its mode, and a scoreboard with nothing in (streamed) or everything. */
  void dispatch() {
    NpuDecode dec = npu.dec;
    streaming.set(dec.wStream);
    int4.set(dec.wStream.and(dec.wInt4));
    groupScaled.set(dec.wStream.and(dec.wGroupScaled));
    groupRow.set(uintLit(0, groupRow.width()));
    kRow.set(uintLit(0, kRow.width()));
    if (fields > 1) {
      nm.set(dec.wStream.and(dec.sparseGemm));
    }
    if (metaRows != null) {
      int shift = Integer.numberOfTrailingZeros(fields);
      metaRows.set(dec.wRows.shiftRight(1).resize(16).add(fields - 1).resize(16).shiftRight(shift).resize(16));
    }
    if (nTiles != null) {
      nTiles.set(dec.nTiles);
    }
    int bits = fullTiles.width();
    fullTiles.set(mux(dec.wStream, uintLit(0, bits), uintLit((1L << bits) - 1, bits)));
    partialEnd.set(mux(dec.wInt4, uintLit(2, bits), uintLit(1, bits)));
    kTilesIn.set(uintLit(0, kTilesIn.width()));
    running.set(dec.wStream);
  }

  /** Statements at a streamed GEMM's dispatch: the walks over W's beats (memory) and their writes. */
  void walks() {
    NpuDma dma = npu.dma;
    NpuDecode dec = npu.dec;
    UInt w = npu.fetch.words.get(4);
    dma.ext.begin(w);
    dma.sp.begin(w);
    dma.extStride.set(dma.lineConst);
    dma.extStep.set(dec.wStride);
    dma.spadStride.set(dma.lineConst);
    dma.spadStep.set(dma.lineConst);
    dma.rows.set(dec.wColumns);
    dma.beats.set(dec.streamRows);
    dma.remainder.set(dec.wRemainder);
  }

  /**
   * Statements of every cycle of a streamed GEMM's W stream (from the X copy's first cycle, beside the controller
   * once the engine started): a request per accepted beat; per written row line the scoreboard; the last write
   * ends the stream.
   */
  void step() {
    NpuDma dma = npu.dma;
    Walker sp = dma.sp;
    int rowBits = npu.config().gemm().rowBits();
    int rows = npu.config().rows();
    npu.whenDo(inStream.and(npu.fire), dma.ext::advance);
    npu.whenDo(inStream.and(written), () -> {
      UInt step = mux(int4, uintLit(2, fullTiles.width()), uintLit(1, fullTiles.width()));
      UInt wRow = valueRow != null ? valueRow : mux(groupScaled, kRow, sp.beat.resize(16));
      npu.whenElse(sp.lastInRow(), () -> {
        fullTiles.set(fullTiles.add(step));
        partialEnd.set(partialEnd.add(step));
        kTilesIn.set(uintLit(0, kTilesIn.width()));
        groupRow.set(uintLit(0, groupRow.width()));
        kRow.set(uintLit(0, kRow.width()));
      }, () -> {
        Bool metaBeat = metaRows == null ? boolLit(false) : nm.and(sp.beat.resize(16).lt(metaRows));
        npu.whenDo(wRow.lsbs(rowBits).eq(rows - 1).and(metaBeat.not()).and(multiplierBeat.not()),
            () -> kTilesIn.set(kTilesIn.add(1)));
        npu.whenDo(groupScaled, () -> {
          groupRow.set(mux(groupRow.eq(33), uintLit(0, 6), groupRow.add(1)));
          npu.whenDo(multiplierBeat.not(), () -> kRow.set(kRow.add(1)));
        });
      });
      sp.advance();
      npu.whenDo(sp.last(), () -> running.set(boolLit(false)));
    });
  }

  /**
   * The stream wants to issue a request this cycle (every cycle with pair writes; INT4 on an N:M array: not in the
   * cycle after one was accepted).
   */
  Bool requests(Bool justFired) {
    return pairWrites ? inStream : inStream.and(int4.not().or(justFired.not()));
  }

  /** The beat of a streamed row's last line column is short (W row bytes not a multiple of the line). */
  Bool lastColumn() {
    return npu.dma.sp.row.eq(npu.dma.rowsNow().sub(1));
  }

  /**
   * INT8 entries of the group-scaled INT4 nibbles of bytes {@code from .. from + line/2 − 1}: entry {@code 2i} (low
   * nibble of byte i) times multiplier byte i of {@code mult0}, entry {@code 2i + 1} times byte i of {@code mult1},
   * plus 8, shifted right by 4 (arithmetic).
   */
  private UInt unpackScaled(UInt data, int from, int line) {
    List<HwValue> out = new ArrayList<>();
    for (int i = from; i < from + line / 2; i++) {
      out.add(widen(data.slice(8 * i + 3, 8 * i), mult0.slice(8 * i + 7, 8 * i)));
      out.add(widen(data.slice(8 * i + 7, 8 * i + 4), mult1.slice(8 * i + 7, 8 * i)));
    }
    return catLsbFirst(out).asUInt();
  }

  /** {@code (q·u + 8) >> 4} of a signed INT4 {@code q} and an unsigned byte {@code u}: −127..112 in 8 bits. */
  private static HwValue widen(UInt q, UInt u) {
    return q.asSInt().mul(u.resize(9).asSInt()).add(8).shiftRight(4).resize(8);
  }

  /** INT8 bytes of the signed INT4 nibbles (low nibble first) of bytes {@code from .. from + line/2 − 1}. */
  private static UInt unpack(UInt data, int from, int line) {
    List<HwValue> out = new ArrayList<>();
    for (int i = from; i < from + line / 2; i++) {
      out.add(data.slice(8 * i + 3, 8 * i).asSInt().resize(8));
      out.add(data.slice(8 * i + 7, 8 * i + 4).asSInt().resize(8));
    }
    return catLsbFirst(out).asUInt();
  }
}
