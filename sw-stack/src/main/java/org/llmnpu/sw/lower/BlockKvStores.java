package org.llmnpu.sw.lower;

import java.util.ArrayList;
import java.util.List;

/**
 * A block's K/V cache rows (and its Kᵀ lines) stored to external memory after its QKV post
 * ({@link AttentionLowering}): at once, or, with {@link #defer} (two blocks in flight in the woven
 * {@link PrefillOrder.Weave#GATED} order, {@link BlockLane#staggered}), cut in {@link KvRowStores#pieces} and held until
 * {@link #emitHeld}, which the block's gated feed-forward calls after its RMSNorms ({@link GatedWeave#begin}), before
 * its lead tiles. There they follow the other block's QKV GEMM, whose N tiles stream with nothing else beside most of
 * them, so the interleaver puts a piece after each such tile ({@code StreamSchedule#storeAtStreamEnd}): it waits for
 * the tile's W stream, which the controller waited for anyway, and runs beside the tile's drain. Nothing reads this
 * layer's rows from the cache before the other block's attention (its cache rows in), which follows that QKV GEMM, and
 * the block's rows and lines stay in its scratchpad until its next layer's QKV post. The same bytes are stored; the
 * walk's twin is {@code QkvPostWalk#kvStored} / {@code #storesDeferred}.
 */
final class BlockKvStores {
  private final LoweringEmitter e;
  /** Whether the stores are held for {@link #emitHeld}, in pieces. */
  boolean defer;
  /** The held stores not yet emitted, in order. */
  private final List<Runnable> held = new ArrayList<>();

  BlockKvStores(LoweringEmitter e) {
    this.e = e;
  }

  /**
   * The block's rows {@code [pos, pos + n)} of layer {@code layer}'s K and V caches (at {@code kBase}, {@code vBase}),
   * then {@code kT}'s lines (null: none): stored now, or held with {@link #defer}.
   */
  void store(int layer, int n, int pos, long kBase, long vBase, TransposedKeys kT) {
    LoweringLayout l = e.l;
    LoweredModel m = l.m;
    CommandStream b = e.b;
    for (long[] cache : new long[][] {{kBase, l.sKC}, {vBase, l.sVC}}) {
      for (int[] run : KvRowStores.runs(l.c.kvDim(), l.line)) {
        for (int[] piece : defer ? KvRowStores.pieces(n, run[1], l.p, n) : new int[][] {{0, n}}) {
          long row = (long) (pos + piece[0]) * m.kvBytes;
          Runnable store = () -> b.store(cache[0] + row + run[0], m.kvBytes, cache[1] + row + run[0], m.kvBytes,
              run[1], piece[1]);
          hold(store);
        }
      }
    }
    if (kT != null && kT.writes(n, pos)) {
      int rows = l.c.kvDim();
      for (int[] piece : defer ? KvRowStores.pieces(rows, kT.lineBytes(n, pos), l.p, n) : new int[][] {{0, rows}}) {
        hold(() -> kT.storeLines(layer, n, pos, piece[0], piece[1]));
      }
    }
  }

  private void hold(Runnable store) {
    if (defer) {
      held.add(store);
    } else {
      store.run();
    }
  }

  /** Emits the held stores, in the lane the caller set (the block's own). */
  void emitHeld() {
    held.forEach(Runnable::run);
    held.clear();
  }
}
