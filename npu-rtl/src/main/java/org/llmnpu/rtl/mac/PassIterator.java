package org.llmnpu.rtl.mac;

import static org.llmnpu.hdl.Hw.bitsToHold;
import static org.llmnpu.hdl.Hw.bool;
import static org.llmnpu.hdl.Hw.boolLit;
import static org.llmnpu.hdl.Hw.mux;
import static org.llmnpu.hdl.Hw.uint;
import static org.llmnpu.hdl.Hw.uintLit;

import org.llmnpu.hdl.Bool;
import org.llmnpu.hdl.HwModule;
import org.llmnpu.hdl.UInt;

/**
 * Walks the passes of a tiled GEMM in the engine's order: N tile (outer), M chunk of
 * {@code mTile} rows, K tile of {@code kPerTile} (inner), so the K tiles of one output are
 * consecutive and fold in groups of {@code icAccumDepth} (the golden model's order). Outputs
 * describe the current pass; {@code advance} moves to the next, {@code restart} to the first.
 * The loader and the streamer of {@link GemmEngine} each own one.
 *
 * <p>Group flags for K tile {@code t} of an output with {@code kTiles} tiles and depth {@code D}:
 * {@code firstInGroup = t mod D == 0}, {@code lastInGroup = t mod D == D−1 or t == kTiles−1},
 * {@code readback = t ≥ D}, {@code finalGroup = (t div D + 1)·D ≥ kTiles}; depth "all" is
 * {@code D = ∞}.
 *
 * <p><b>Pair order</b> ({@link #PassIterator(GemmEngineConfig, boolean)}: the engine of streamed weights): with
 * {@link #pairOrder} high (held for the whole GEMM) and more than one N tile, the N tiles go in pairs
 * {@code (2c, 2c + 1)}: pair (outer), M chunk, K tile, N tile of the pair (inner) — the order of
 * {@code org.llmnpu.isa.EngineRecurrence} with {@code pairs}, for an INT4 beat column that holds both tiles. Each
 * pass is then its own group ({@code firstInGroup = lastInGroup = 1}, {@code readback = t ≥ 1},
 * {@code finalGroup} on the last K tile): the accumulator bank holds one tile's chunk, so a pass's partial sums go
 * to the result memory at {@code (m, nTile)} and the tile's next pass reads them back.
 */
public final class PassIterator extends HwModule {
  public final Bool restart = in(bool());
  public final Bool advance = in(bool());
  public final UInt m;
  public final UInt k;
  public final UInt n;
  public final UInt nTile;
  public final UInt kTile;
  public final UInt mBase;
  public final UInt kRemain;
  public final UInt mCount;
  public final UInt colCount;
  public final Bool firstInGroup = out(bool());
  public final Bool lastInGroup = out(bool());
  public final Bool readback = out(bool());
  public final Bool finalGroup = out(bool());
  public final Bool lastPass = out(bool());
  /** With {@link #PassIterator(GemmEngineConfig, boolean)}'s {@code pairs}: the N-tile pair order; null otherwise. */
  public final Bool pairOrder;
  private final String name;

  public PassIterator(GemmEngineConfig c) {
    this(c, false);
  }

  /** {@code pairs}: with the input {@link #pairOrder}, which selects the N-tile pair order for a GEMM. */
  public PassIterator(GemmEngineConfig c, boolean pairs) {
    MacArrayConfig a = c.array();
    int kPerTile = a.kPerTile();
    name = "PassIterator_" + a.tag() + "_" + c.maxM() + "_" + c.maxK() + "_" + c.maxN() + (pairs ? "_p" : "");
    pairOrder = pairs ? in("pairOrder", bool()) : null;
    int mW = bitsToHold(Math.max(c.maxM(), a.mTile()) + a.mTile());
    int kW = bitsToHold(c.maxK() + (long) kPerTile * Math.max(1, c.groupDepth()));
    int nW = bitsToHold(Math.max(c.maxN(), a.cols()) + a.cols());
    m = in(uint(bitsToHold(c.maxM())));
    k = in(uint(bitsToHold(c.maxK())));
    n = in(uint(bitsToHold(c.maxN())));
    nTile = out(uint(c.nTileBits()));
    kTile = out(uint(c.kTileBits()));
    mBase = out(uint(c.mBits()));
    kRemain = out(uint(kW));
    mCount = out(uint(bitsToHold(a.mTile())));
    colCount = out(uint(bitsToHold(a.cols())));

    UInt nTileQ = regInit("nTileQ", uint(c.nTileBits()), 0);
    UInt nBase = regInit("nBase", uint(nW), 0);
    UInt mBaseQ = regInit("mBaseQ", uint(mW), 0);
    UInt kTileQ = regInit("kTileQ", uint(c.kTileBits()), 0);
    UInt kBase = regInit("kBase", uint(kW), 0);

    UInt mRemain = wire("mRemain", m.resize(mW).sub(mBaseQ));
    UInt kRemainNow = wire("kRemainNow", k.resize(kW).sub(kBase));
    UInt nRemain = wire("nRemain", n.resize(nW).sub(nBase));
    Bool lastM = wire("lastM", mRemain.le(a.mTile()));
    Bool lastK = wire("lastK", kRemainNow.le(kPerTile));
    Bool lastN = wire("lastN", nRemain.le(a.cols()));
    mCount.set(mux(lastM, mRemain, uintLit(a.mTile(), mW)).resize(mCount.width()));
    colCount.set(mux(lastN, nRemain, uintLit(a.cols(), nW)).resize(colCount.width()));
    nTile.set(nTileQ);
    kTile.set(kTileQ);
    mBase.set(mBaseQ.resize(c.mBits()));
    kRemain.set(kRemainNow);
    lastPass.set(lastK.and(lastM).and(lastN));

    // pair order on a GEMM of more than one N tile (nothing to pair otherwise); without it the plain flags are the
    // outputs themselves (the Verilog of an engine without streamed weights does not change)
    boolean canPair = pairs && c.nTileBits() > 0;
    Bool paired = canPair ? wire("paired", pairOrder.and(n.resize(nW).gt(uintLit(a.cols(), nW)))) : null;
    Bool plainFirst = canPair ? wire("plainFirst", bool()) : firstInGroup;
    Bool plainLast = canPair ? wire("plainLast", bool()) : lastInGroup;
    Bool plainReadback = canPair ? wire("plainReadback", bool()) : readback;
    Bool plainFinal = canPair ? wire("plainFinal", bool()) : finalGroup;
    if (canPair) {
      firstInGroup.set(paired.or(plainFirst));
      lastInGroup.set(paired.or(plainLast));
      readback.set(mux(paired, kTileQ.ne(0), plainReadback));
      finalGroup.set(mux(paired, lastK, plainFinal));
    }
    int depth = c.groupDepth();
    Runnable groupRestart;
    Runnable groupStep;
    if (depth == 0) {
      plainFirst.set(kTileQ.eq(0));
      plainLast.set(lastK);
      plainReadback.set(boolLit(false));
      plainFinal.set(boolLit(true));
      groupRestart = () -> { };
      groupStep = () -> { };
    } else if (depth == 1) {
      plainFirst.set(boolLit(true));
      plainLast.set(boolLit(true));
      plainReadback.set(kTileQ.ne(0));
      plainFinal.set(lastK);
      groupRestart = () -> { };
      groupStep = () -> { };
    } else {
      UInt inGroup = regInit("inGroup", uint(bitsToHold(depth - 1)), 0);
      Bool pastFirst = regInit("pastFirstGroup", bool(), 0);
      UInt groupEndK = regInit("groupEndK", uint(kW), 0);
      Bool first = wire("first", inGroup.eq(0));
      Bool last = wire("last", inGroup.eq(depth - 1).or(lastK));
      UInt groupEnd = wire("groupEnd", mux(first, kBase.add((long) depth * kPerTile), groupEndK));
      plainFirst.set(first);
      plainLast.set(last);
      plainReadback.set(pastFirst);
      plainFinal.set(groupEnd.ge(k.resize(kW)));
      groupRestart = () -> {
        inGroup.set(uintLit(0, inGroup.width()));
        pastFirst.set(boolLit(false));
      };
      groupStep = () -> {
        inGroup.set(mux(last, uintLit(0, inGroup.width()), inGroup.add(1)));
        pastFirst.set(pastFirst.or(last));
        groupEndK.set(groupEnd);
      };
    }

    Runnable restartK = () -> {
      kTileQ.set(uintLit(0, kTileQ.width()));
      kBase.set(uintLit(0, kW));
      groupRestart.run();
    };
    // pair order: the even tile of a pair goes on to its odd sibling (same M chunk and K tile); the odd tile
    // comes back to it unless the pair is done (last K tile of its last M chunk)
    Bool toSibling = canPair ? wire("toSibling", paired.and(nTileQ.lsbs(1).eq(0)).and(lastN.not())) : null;
    Bool fromSibling = canPair ? wire("fromSibling", paired.and(nTileQ.lsbs(1).eq(1))) : null;
    Runnable back = !canPair ? () -> { } : () -> when(fromSibling, () -> {
      nTileQ.set(nTileQ.sub(1));
      nBase.set(nBase.sub(a.cols()));
    });
    Runnable plainAdvance = () -> when(lastK, () -> {
      restartK.run();
      when(lastM, () -> {
        mBaseQ.set(uintLit(0, mW));
        nTileQ.set(nTileQ.add(1));
        nBase.set(nBase.add(a.cols()));
      }).otherwise(() -> {
        mBaseQ.set(mBaseQ.add(a.mTile()));
        back.run();
      });
    }).otherwise(() -> {
      kTileQ.set(kTileQ.add(1));
      kBase.set(kBase.add(kPerTile));
      groupStep.run();
      back.run();
    });
    when(restart, () -> {
      nTileQ.set(uintLit(0, nTileQ.width()));
      nBase.set(uintLit(0, nW));
      mBaseQ.set(uintLit(0, mW));
      restartK.run();
    }).elseWhen(advance, !canPair ? plainAdvance : () -> when(toSibling, () -> {
      nTileQ.set(nTileQ.add(1));
      nBase.set(nBase.add(a.cols()));
    }).otherwise(plainAdvance));
  }

  @Override
  public String moduleName() {
    return name;
  }
}
