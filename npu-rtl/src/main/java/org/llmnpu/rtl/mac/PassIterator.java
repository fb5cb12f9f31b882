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
  private final String name;

  public PassIterator(GemmEngineConfig c) {
    MacArrayConfig a = c.array();
    int kPerTile = a.kPerTile();
    name = "PassIterator_" + a.tag() + "_" + c.maxM() + "_" + c.maxK() + "_" + c.maxN();
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

    int depth = c.groupDepth();
    Runnable groupRestart;
    Runnable groupStep;
    if (depth == 0) {
      firstInGroup.set(kTileQ.eq(0));
      lastInGroup.set(lastK);
      readback.set(boolLit(false));
      finalGroup.set(boolLit(true));
      groupRestart = () -> { };
      groupStep = () -> { };
    } else if (depth == 1) {
      firstInGroup.set(boolLit(true));
      lastInGroup.set(boolLit(true));
      readback.set(kTileQ.ne(0));
      finalGroup.set(lastK);
      groupRestart = () -> { };
      groupStep = () -> { };
    } else {
      UInt inGroup = regInit("inGroup", uint(bitsToHold(depth - 1)), 0);
      Bool pastFirst = regInit("pastFirstGroup", bool(), 0);
      UInt groupEndK = regInit("groupEndK", uint(kW), 0);
      Bool first = wire("first", inGroup.eq(0));
      Bool last = wire("last", inGroup.eq(depth - 1).or(lastK));
      UInt groupEnd = wire("groupEnd", mux(first, kBase.add((long) depth * kPerTile), groupEndK));
      firstInGroup.set(first);
      lastInGroup.set(last);
      readback.set(pastFirst);
      finalGroup.set(groupEnd.ge(k.resize(kW)));
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
    when(restart, () -> {
      nTileQ.set(uintLit(0, nTileQ.width()));
      nBase.set(uintLit(0, nW));
      mBaseQ.set(uintLit(0, mW));
      restartK.run();
    }).elseWhen(advance, () -> {
      when(lastK, () -> {
        restartK.run();
        when(lastM, () -> {
          mBaseQ.set(uintLit(0, mW));
          nTileQ.set(nTileQ.add(1));
          nBase.set(nBase.add(a.cols()));
        }).otherwise(() -> mBaseQ.set(mBaseQ.add(a.mTile())));
      }).otherwise(() -> {
        kTileQ.set(kTileQ.add(1));
        kBase.set(kBase.add(kPerTile));
        groupStep.run();
      });
    });
  }

  @Override
  public String moduleName() {
    return name;
  }
}
