package org.llmnpu.rtl.mac;

import static org.llmnpu.hdl.Hw.bitsToHold;
import static org.llmnpu.hdl.Hw.bool;
import static org.llmnpu.hdl.Hw.boolLit;
import static org.llmnpu.hdl.Hw.cat;
import static org.llmnpu.hdl.Hw.mux;
import static org.llmnpu.hdl.Hw.sintLit;
import static org.llmnpu.hdl.Hw.uint;
import static org.llmnpu.hdl.Hw.uintLit;

import java.util.List;
import org.llmnpu.hdl.Bool;
import org.llmnpu.hdl.Mem;
import org.llmnpu.hdl.SInt;
import org.llmnpu.hdl.UInt;

/**
 * The sequencer of the {@link GemmEngine} (its class comment states the cycle formula this logic makes): the
 * loader, which moves the next pass's weights into the array's shadow registers one PE row a cycle from cycle
 * {@code P_j}, and the streamer, which presents the pass's activation rows one a cycle from {@code S_j} with the
 * tag that tells the periphery what to do, then counts the drain ({@code rows + cols − 1} cycles after the last
 * beat) and raises {@code done}. Both walk the passes with a {@link PassIterator} of their own. Each method builds
 * its logic into the engine (the generated Verilog is the engine's).
 */
abstract class GemmEngineSequencer extends GemmEngineDatapath {
  GemmEngineSequencer(GemmEngineConfig c, int weightRowsPerCycle) {
    super(c, weightRowsPerCycle);
  }

  /**
   * The engine's run state and the hand-over between loader and streamer: {@code running} (from {@code launch}, a
   * start while idle, to the drain's end), {@code doneQ} (the {@code done} register), {@code pending} (a loaded
   * pass the streamer has not started), and the cycles the loader and the streamer start a pass.
   */
  record Control(Bool running, Bool doneQ, Bool launch, Bool pending, Bool loaderStarts, Bool streamStarts) {
  }

  /**
   * The streamed-weight ports ({@link GemmEngine#withWeightStream}): which W tiles ({@code wFullTiles},
   * {@code wPartialEnd}, {@code wKTiles}) and X K tiles ({@code xKTiles}) are in the buffers.
   */
  record TilesIn(UInt wFullTiles, UInt wPartialEnd, UInt wKTiles, UInt xKTiles) {
    /** The pass's W tile is in the buffer and so are its K tile's X words. */
    Bool passReady(PassIterator loadPass, GemmEngineConfig c) {
      int tileCountBits = c.nTileBits() + 1;
      UInt nTile = loadPass.nTile.resize(tileCountBits);
      UInt kTile = loadPass.kTile.resize(c.kTileBits() + 1);
      return nTile.lt(wFullTiles).or(nTile.lt(wPartialEnd).and(kTile.lt(wKTiles))).and(kTile.lt(xKTiles));
    }
  }

  /**
   * The loader (section {@code loader}): starts a pass when the previous one's weights are streaming
   * ({@code !pending}), {@code gap = max(cols − 1, 1)} cycles after the last stream start and, with {@code tilesIn},
   * once the pass's tiles are in; then one PE row a cycle, rows past the K tile's valid rows as zero (with the dense
   * mode's {@code denseWeights}: {@code kRemain / 2} rows).
   */
  final void loader(GemmEngineConfig c, Control ctl, PassIterator loadPass, MacArray array, WeightStore weights,
                    Bool denseWeights, TilesIn tilesIn) {
    MacArrayConfig a = c.array();
    int rows = a.rows();
    int cols = a.cols();
    WeightSparsity sp = a.sparsity();
    boolean sparse = sp.sparse();
    int entry = a.weightEntryBits();
    int gap = Math.max(cols - 1, 1);
    // Loader: one PE row of the next pass's weights per cycle into the shadow registers.
    section("loader", () -> {
      Bool loading = regInit("busy", bool(), 0);
      UInt row = regInit("row", uint(c.rowBits()), 0);
      Bool finished = regInit("finished", bool(), 0);
      // reset to its idle value (saturated), so an idle engine's registers do not change (its clock may be gated)
      UInt streamAge = regInit("streamAge", uint(bitsToHold(gap)), gap);
      Bool tileIn = tilesIn != null ? wire("tileIn", tilesIn.passReady(loadPass, c)) : boolLit(true);
      ctl.loaderStarts().set(ctl.running().and(loading.not()).and(finished.not()).and(ctl.pending().not())
          .and(streamAge.ge(gap)).and(tileIn));
      Bool active = wire("active", ctl.loaderStarts().or(loading));
      UInt rowNow = wire("rowNow", mux(ctl.loaderStarts(), uintLit(0, c.rowBits()), row));
      UInt kw = loadPass.kRemain;
      // N:M: the K tile's groups ceil(kRemain / M), N PE rows each.
      UInt nmRows = sparse ? kw.addExpand(uintLit(sp.group() - 1, kw.width())).shiftRight(sp.indexBits())
          .shiftLeft(Integer.numberOfTrailingZeros(sp.kept())) : kw;
      UInt validRows = wire("validRows", denseWeights != null
          ? mux(denseWeights, kw.shiftRight(1).resize(nmRows.width()), nmRows) : nmRows);
      Bool rowInK = wire("rowInK", rowNow.resize(Math.max(rowNow.width(), validRows.width()))
          .lt(validRows.resize(Math.max(rowNow.width(), validRows.width()))));
      UInt word = wire("word", weights.readRow(loadPass.nTile, loadPass.kTile, rowNow));
      for (int col = 0; col < cols; col++) {
        SInt value = word.slice(entry * col + 7, entry * col).asSInt();
        array.weightEntry.get(col).set(mux(rowInK, value, sintLit(0, 8)));
        if (sparse) {
          array.weightIndex.get(col).set(word.slice(entry * col + 7 + sp.indexBits(), entry * col + 8));
        }
      }
      array.weightLoad.set(active);
      array.weightRow.set(rowNow);
      Bool lastRow = wire("lastRow", rowNow.eq(rows - 1));
      loadPass.advance.set(active.and(lastRow));
      when(ctl.launch(), () -> {
        loading.set(boolLit(false));
        finished.set(boolLit(false));
        streamAge.set(uintLit(gap, streamAge.width()));
      }).otherwise(() -> {
        when(active, () -> {
          loading.set(lastRow.not());
          row.set(rowNow.add(1));
          when(lastRow.and(loadPass.lastPass), () -> finished.set(boolLit(true)));
        });
        when(ctl.streamStarts(), () -> streamAge.set(uintLit(1, streamAge.width())))
            .elseWhen(streamAge.lt(gap), () -> streamAge.set(streamAge.add(1)));
      });
    });
  }

  /**
   * The streamer (section {@code streamer}): starts a loaded pass ({@code pending}), presents its {@code Mc} rows
   * one a cycle with their tags, and after the last pass counts the drain and ends the run ({@code running} low,
   * {@code doneQ} high).
   */
  final void streamer(GemmEngineConfig c, Control ctl, PassIterator streamPass, MacArray array,
                      List<Mem<UInt>> xBuffer) {
    MacArrayConfig a = c.array();
    int rows = a.rows();
    int cols = a.cols();
    // Streamer: one activation row (beat) per cycle, with the tag that tells the periphery what to do.
    section("streamer", () -> {
      Bool streaming = regInit("busy", bool(), 0);
      UInt beat = regInit("beat", uint(bitsToHold(a.mTile() - 1)), 0);
      Bool finished = regInit("finished", bool(), 0);
      ctl.streamStarts().set(ctl.running().and(streaming.not()).and(finished.not()).and(ctl.pending()));
      Bool active = wire("active", ctl.streamStarts().or(streaming));
      UInt beatNow = wire("beatNow", mux(ctl.streamStarts(), uintLit(0, beat.width()), beat));
      int rowWidth = Math.max(c.mBits(), beatNow.width());
      UInt mRow = wire("mRow", streamPass.mBase.resize(rowWidth).add(beatNow.resize(rowWidth)).resize(c.mBits()));
      UInt xAt = cat(mRow, streamPass.kTile).asUInt();
      UInt word = wire("word", readActivations(xBuffer, xAt));
      for (int lane = 0; lane < a.kPerTile(); lane++) {
        array.acts.get(lane).set(word.slice(8 * lane + 7, 8 * lane).asSInt());
      }
      Bool lastBeat = wire("lastBeat", beatNow.resize(streamPass.mCount.width()).eq(streamPass.mCount.sub(1)));
      array.tileStart.set(ctl.streamStarts());
      array.tag.valid.set(active);
      array.tag.bankIndex.set(beatNow);
      array.tag.firstInGroup.set(streamPass.firstInGroup);
      array.tag.readback.set(streamPass.readback);
      array.tag.lastInGroup.set(streamPass.lastInGroup);
      array.tag.finalGroup.set(streamPass.finalGroup);
      array.tag.psumAddress.set(cat(mRow, streamPass.nTile).asUInt());
      array.colCount.set(streamPass.colCount);
      array.clear.set(ctl.launch());
      streamPass.advance.set(active.and(lastBeat));
      when(ctl.launch(), () -> {
        streaming.set(boolLit(false));
        finished.set(boolLit(false));
      }).otherwise(() -> when(active, () -> {
        streaming.set(lastBeat.not());
        beat.set(beatNow.add(1));
        when(lastBeat.and(streamPass.lastPass), () -> finished.set(boolLit(true)));
      }));
      when(ctl.launch(), () -> ctl.pending().set(boolLit(false)))
          .elseWhen(ctl.loaderStarts(), () -> ctl.pending().set(boolLit(true)))
          .elseWhen(ctl.streamStarts(), () -> ctl.pending().set(boolLit(false)));

      // Drain: the last beat reaches the last column rows + cols − 1 cycles after it was presented.
      UInt drain = regInit("drain", uint(bitsToHold(rows + cols)), 0);
      when(ctl.launch(), () -> drain.set(uintLit(0, drain.width())))
          .elseWhen(finished.and(ctl.running()), () -> drain.set(drain.add(1)));
      Bool drained = wire("drained", finished.and(drain.eq(rows + cols - 2)));
      when(ctl.launch(), () -> {
        ctl.running().set(boolLit(true));
        ctl.doneQ().set(boolLit(false));
      }).elseWhen(ctl.running().and(drained), () -> {
        ctl.running().set(boolLit(false));
        ctl.doneQ().set(boolLit(true));
      });
    });

  }
}
