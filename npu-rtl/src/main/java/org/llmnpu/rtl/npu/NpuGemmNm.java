package org.llmnpu.rtl.npu;

import static org.llmnpu.hdl.Hw.catLsbFirst;
import static org.llmnpu.hdl.Hw.mux;
import static org.llmnpu.hdl.Hw.uint;
import static org.llmnpu.hdl.Hw.uintLit;

import java.util.ArrayList;
import java.util.List;
import org.llmnpu.hdl.Bool;
import org.llmnpu.hdl.UInt;
import org.llmnpu.rtl.mac.GemmEngine;
import org.llmnpu.rtl.mac.GemmEngineConfig;
import org.llmnpu.rtl.mac.WeightSparsity;

/**
 * The GEMM operand copies of an {@link Npu} whose MAC array is built for an N:M mode ({@code E} of
 * {@code G = 2E}: 2:4 or 4:8), into {@link GemmEngine#withDenseMode}. Same cycles as the dense array's copies
 * (one scratchpad line a cycle, {@code M·ceil(K/rows)} X lines, {@code ceil(N/rows)·wRows} W lines); the engine
 * then runs {@code GemmCycleModel} cycles.
 *
 * <p><b>N:M GEMM</b> (the array's mode). The X copy goes line by line of K, as a dense GEMM's ({@link
 * NpuGemm#dispatch}: line t of every X row, then line t + 1): X row m's line t (K elements {@code t·rows..}) fills half
 * {@code t mod 2} of engine word {@code (m, t/2)} (a K tile of {@code 2·rows}; the engine's X buffer is two half
 * memories, {@code GemmEngine.xHalves}), an even line with a zero upper half when it is the last. W: the walk covers the
 * {@code S = E·ceil(K/G)} value rows and then the S metadata rows; value row r writes W entry row r (value, and
 * an index overwritten later), metadata row {@code S + r} writes only the indices of row r (the low
 * {@code log2 G} bits of each byte). The engine gets {@code k = K}.
 *
 * <p><b>Dense GEMM on the N:M array</b> (exact, no extra cycles): it runs as an N:M GEMM of {@code 2K} in which
 * each group of G holds E dense K elements and {@code G − E} zeros. X line t (one dense K tile of {@code rows})
 * is written zero-interleaved into engine word {@code (m, t)} (lane {@code g·G + j} = element {@code g·E + j}
 * for {@code j < E}, else 0); dense W row k goes to PE row {@code k mod rows} of K tile {@code k / rows} with index
 * {@code k mod E}, and the engine zeroes the PE rows past K ({@code denseWeights}). The engine's K tiles of
 * {@code 2·rows} are then exactly the dense array's tiles of {@code rows}: same products, same partial-sum
 * write-backs, same cycles ({@code CycleFormulas.engineCycles} with {@code ceil(K/rows)} K tiles).
 *
 * <p><b>Past K.</b> In both modes the X bytes of the last line at K positions {@code ≥ K} are written as zero,
 * so W entries whose position falls past K (N:M's last group; stale rows) add nothing, as in the golden model.
 */
final class NpuGemmNm {
  private final NpuController npu;
  private final NpuGemm gemm;
  private final WeightSparsity sp;

  NpuGemmNm(NpuController npu, NpuGemm gemm, WeightSparsity sp) {
    this.npu = npu;
    this.gemm = gemm;
    this.sp = sp;
  }

  /** The copies into {@code engine}; with {@code stream} (null: none) also a streamed GEMM's W writes. */
  void connect(GemmEngine engine, NpuWeightStream stream) {
    NpuConfig c = npu.config();
    GemmEngineConfig gc = c.gemm();
    Walker walk = npu.dma.sp;
    NpuDecode dec = npu.dec;
    int rows = c.rows();
    int kept = sp.kept();
    int group = sp.group();
    int lineShift = Integer.numberOfTrailingZeros(rows);
    Bool sparse = gemm.sparseCommand;
    UInt kPort = npu.io(engine.load.k);
    UInt kDouble = gemm.k.resize(kPort.width() - 1).shiftLeft(1);
    npu.io(engine.load.k).set(mux(sparse, gemm.k.resize(kPort.width()), kDouble));
    npu.io(engine.denseWeights).set(sparse.not());

    // X: the line with its bytes past K zeroed (the last line of a row keeps ((K − 1) mod rows) + 1 bytes).
    Walker xWalk = gemm.xWalk;
    UInt lastByte = npu.wireOf("gemmNm_xLastByte", dec.k.sub(1).lsbs(lineShift));
    // the copy goes line by line of K (walk row t = line t of every X row), so the last line is the walk's last row
    Bool lastLine = npu.wireOf("gemmNm_xLastLine", gemm.xInLastKTile());
    List<UInt> bytes = new ArrayList<>();
    for (int b = 0; b < rows; b++) {
      UInt v = npu.io(npu.spad.readData).slice(8 * b + 7, 8 * b).asUInt();
      Bool keep = lastLine.not().or(lastByte.ge(b));
      bytes.add(mux(keep, v, uintLit(0, 8)));
    }
    UInt line = npu.wireOf("gemmNm_xLine", catLsbFirst(bytes).asUInt());
    Bool odd = npu.wireOf("gemmNm_xOdd", xWalk.row.lsbs(1).eq(1));
    UInt zeros = uintLit(0, 8 * rows);
    // N:M: an even line into the low half (with a zero high half when it is the last), an odd one into the high half
    UInt pair = org.llmnpu.hdl.Hw.cat(mux(odd, line, zeros), line).asUInt();
    UInt halves = npu.wireOf("gemmNm_xHalves", mux(odd, uintLit(2, 2), mux(lastLine, uintLit(3, 2), uintLit(1, 2))));
    List<UInt> lanes = new ArrayList<>();
    for (int lane = 0; lane < 2 * rows; lane++) {
      int j = lane % group;
      lanes.add(j < kept ? bytes.get(lane / group * kept + j) : uintLit(0, 8));
    }
    UInt interleaved = npu.wireOf("gemmNm_xInterleaved", catLsbFirst(lanes).asUInt());
    npu.io(engine.load.xWrite).set(npu.inState(Npu.State.GEMM_X));
    npu.io(engine.xHalves).set(mux(sparse, halves, uintLit(3, 2)));
    int kTileBits = gc.kTileBits();
    UInt lineIndex = xWalk.row.resize(Math.max(kTileBits, 1) + 1);
    UInt tile = mux(sparse, lineIndex.shiftRight(1).resize(lineIndex.width()), lineIndex);
    npu.io(engine.load.xAddress).set(NpuGemm.join(xWalk.beat, gc.mBits(), tile, kTileBits));
    npu.io(engine.load.xData).set(mux(sparse, pair, interleaved));

    // W: value rows (wWrite), then metadata rows (wIndexWrite) of the same entry rows; dense: index k mod E.
    UInt beat = walk.beat.resize(16);
    UInt valueRows = dec.wRows.shiftRight(1).resize(16);
    Bool meta = npu.wireOf("gemmNm_wMeta", sparse.and(beat.ge(valueRows)));
    UInt entryRow = mux(meta, beat.sub(valueRows), beat);
    Bool inW = npu.inState(Npu.State.GEMM_W);
    int indexBits = sp.indexBits();
    UInt denseIndex = beat.lsbs(Integer.numberOfTrailingZeros(kept)).resize(indexBits);
    // a streamed GEMM's W line (values, or a packed metadata line read by the engine's wMetaWrite)
    Bool streaming = stream == null ? null : npu.gemm.inStream;
    UInt source = stream == null ? npu.io(npu.spad.readData) : mux(streaming, stream.line, npu.io(npu.spad.readData));
    List<UInt> entries = new ArrayList<>();
    for (int col = 0; col < rows; col++) {
      UInt v = source.slice(8 * col + 7, 8 * col).asUInt();
      UInt index = mux(sparse, v.lsbs(indexBits), denseIndex);
      entries.add(org.llmnpu.hdl.Hw.cat(index, v).asUInt());
    }
    UInt entryWord = catLsbFirst(entries).asUInt();
    if (stream == null) {
      npu.io(engine.load.wWrite).set(inW.and(meta.not()));
      npu.io(engine.wIndexWrite).set(inW.and(meta));
      npu.io(engine.load.wData).set(entryWord);
      npu.io(engine.load.wAddress).set(NpuGemm.join(walk.row, gc.nTileBits(), entryRow, kTileBits + gc.rowBits()));
      return;
    }
    npu.io(engine.load.wWrite).set(inW.and(meta.not()).or(stream.valueWrite));
    npu.io(engine.wIndexWrite).set(inW.and(meta));
    npu.io(engine.wMetaWrite).set(stream.metaWrite);
    // a streamed N:M W's metadata comes first: its value rows must not overwrite the indices
    npu.io(engine.wValuesOnly).set(streaming.and(stream.nm));
    // the packed metadata line sits in the low bytes of wData (the engine's wMetaWrite reads them there)
    npu.io(engine.load.wData).set(mux(stream.metaWrite, source.resize(entryWord.width()), entryWord));
    UInt row = mux(streaming, stream.entryRow, entryRow.resize(stream.entryRow.width()));
    npu.io(engine.load.wAddress).set(NpuGemm.join(stream.tile, gc.nTileBits(), row, kTileBits + gc.rowBits()));
    stream.scoreboard(engine);
  }
}
