package org.llmnpu.rtl.mac;

import static org.llmnpu.hdl.Hw.bits;
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
import org.llmnpu.hdl.Mem;
import org.llmnpu.hdl.HwModule;
import org.llmnpu.hdl.SInt;
import org.llmnpu.hdl.UInt;
import org.llmnpu.rtl.ppm.Ppm;
import org.llmnpu.rtl.ppm.PpmConfig;

/**
 * {@code Y = PPM(X·W + b)}: a {@link GemmEngine} followed by a post-processing pass of its INT32
 * results through the PPM ({@link Ppm}: saturating bias add, gemmlowp requantization, activation),
 * bit for bit {@code org.llmnpu.numerics.ppu.Ppm.process(TiledGemm y, bias, params, table)}.
 *
 * <p>Ports: those of {@link GemmEngine} (buffers, shape, {@code start}; {@code yAddress/yData}
 * still read the INT32 results when idle), a per-output-channel parameter memory
 * ({@code chWrite}, {@code chAddress} = n, {@code chBias}, {@code chMultiplier}, {@code chShift},
 * {@code chZeroPoint}, {@code chSixCode} with RELU6), the PPM's C-LUT port with PPU, and the
 * requantized results {@code qAddress} = (m, N tile) → {@code qData} ({@code cols} codes of
 * {@code outBits}, column 0 in the least significant bits). {@code done} rises after the PPM pass.
 *
 * <p>Sequence after the GEMM, per N tile: {@code cols} cycles writing the PPM's lane registers from
 * the parameter memory, {@code M} cycles streaming result rows (one per cycle), {@code L} cycles
 * draining the PPM pipeline ({@link PpmConfig#latency()}) before the lanes are rewritten.
 * <b>Cycles</b> from start to {@code done}: {@code gemmCycles + 1 + nTiles·(cols + M + L)} (the
 * PPM pass does not overlap the GEMM; {@code gemmCycles} = {@link GemmCycleModel#cycles}).
 */
public final class GemmPpmEngine extends HwModule {
  public final Bool start = in(bool());
  /** Shape and buffer write ports, passed to the GEMM engine (the same ports as {@link GemmEngine#load}). */
  public final GemmLoadPorts load;
  public final UInt yAddress;
  public final Bits yData;
  public final Bool chWrite = in(bool());
  public final UInt chAddress;
  public final SInt chBias = in(sint(32));
  public final UInt chMultiplier = in(uint(PpmConfig.MULTIPLIER_BITS));
  public final SInt chShift = in(sint(PpmConfig.CHANNEL_SHIFT_BITS));
  public final SInt chZeroPoint;
  public final SInt chSixCode;
  public final Bool lutWrite;
  public final UInt lutAddress;
  public final SInt lutData;
  public final UInt qAddress;
  public final Bits qData;
  public final Bool busy = out(bool());
  public final Bool done = out(bool());
  public final Bool overflow = out(bool());
  public final UInt psumWritebacks = out(uint(32));
  public final UInt psumReadbacks = out(uint(32));
  public final UInt gemmCycles = out(uint(32));
  public final UInt cycles = out(uint(32));
  private final String name;

  public GemmPpmEngine(GemmEngineConfig c, PpmConfig p) {
    MacArrayConfig a = c.array();
    int cols = a.cols();
    if (p.cols() != cols) {
      throw new IllegalArgumentException("PPM lanes (" + p.cols() + ") must equal the array's cols (" + cols + ")");
    }
    name = "GemmPpm_" + a.tag() + "_M" + c.maxM() + "_K" + c.maxK() + "_N" + c.maxN() + "_" + p.moduleName();
    boolean relu6 = p.activation() == PpmConfig.Activation.RELU6;
    int latency = p.latency();
    GemmEngine gemm = instance("gemm", new GemmEngine(c));
    load = slave("", new GemmLoadPorts(c));
    gemm.load.connectFrom(load);
    UInt m = load.m;
    UInt n = load.n;
    yAddress = in(uint(gemm.yAddress.width()));
    yData = out(bits(gemm.yData.width()));
    int channelBits = bitsToHold(c.maxN() - 1);
    chAddress = in(uint(channelBits));
    chZeroPoint = in(sint(p.outBits()));
    chSixCode = relu6 ? in(sint(p.outBits())) : null;
    lutWrite = p.hasPpu() ? in(bool()) : null;
    lutAddress = p.hasPpu() ? in(uint(p.lutAddressBits())) : null;
    lutData = p.hasPpu() ? in(sint(p.coeffBits())) : null;
    qAddress = in(uint(gemm.yAddress.width()));
    qData = out(bits(p.outBits() * cols));

    Ppm ppm = instance("ppm", new Ppm(p));
    if (p.hasPpu()) {
      ppm.lutWrite.set(lutWrite);
      ppm.lutAddress.set(lutAddress);
      ppm.lutData.set(lutData);
    }

    int chWordBits = 32 + PpmConfig.MULTIPLIER_BITS + PpmConfig.CHANNEL_SHIFT_BITS + p.outBits() * (relu6 ? 2 : 1);
    Mem<UInt> channels = mem("channels", uint(chWordBits), 1 << channelBits);
    Bits chWord = relu6 ? cat(chSixCode, chZeroPoint, chShift, chMultiplier, chBias)
        : cat(chZeroPoint, chShift, chMultiplier, chBias);
    when(chWrite, () -> channels.write(chAddress, chWord.asUInt()));

    // Post-processing sequencer: GEMM, then per N tile CONFIG (cols) -> STREAM (M) -> DRAIN (L).
    final int idle = 0;
    final int gemmRuns = 1;
    final int config = 2;
    final int stream = 3;
    final int drain = 4;
    UInt state = regInit("state", uint(3), idle);
    UInt lane = regInit("lane", uint(bitsToHold(cols - 1)), 0);
    UInt row = regInit("row", uint(bitsToHold(c.maxM())), 0);
    UInt nTile = regInit("nTile", uint(c.nTileBits()), 0);
    UInt channelBase = regInit("channelBase", uint(bitsToHold(c.maxN() + cols)), 0);
    UInt wait = regInit("wait", uint(bitsToHold(latency)), 0);
    Bool doneQ = regInit("doneQ", bool(), 0);
    UInt count = regInit("count", uint(32), 0);
    Bool launch = wire("launch", start.and(state.eq(idle)));
    Bool streaming = wire("streaming", state.eq(stream));
    Bool lastTile = wire("lastTile", channelBase.addExpand(uintLit(cols, channelBase.width())).ge(n.resize(channelBase.width() + 1)));
    gemm.start.set(launch);

    UInt chIndex = wire("chIndex", channelBase.add(lane.resize(channelBase.width())).resize(channelBits));
    UInt chRead = wire("chRead", channels.readAsync(chIndex));
    ppm.cfgWrite.set(state.eq(config));
    ppm.cfgLane.set(lane.resize(p.laneBits()));
    ppm.cfgBias.set(chRead.slice(31, 0).asSInt());
    ppm.cfgMultiplier.set(chRead.slice(31 + PpmConfig.MULTIPLIER_BITS, 32));
    int shiftLow = 32 + PpmConfig.MULTIPLIER_BITS;
    ppm.cfgShift.set(chRead.slice(shiftLow + PpmConfig.CHANNEL_SHIFT_BITS - 1, shiftLow).asSInt());
    int zpLow = shiftLow + PpmConfig.CHANNEL_SHIFT_BITS;
    ppm.cfgZeroPoint.set(chRead.slice(zpLow + p.outBits() - 1, zpLow).asSInt());
    if (relu6) {
      ppm.cfgSixCode.set(chRead.slice(zpLow + 2 * p.outBits() - 1, zpLow + p.outBits()).asSInt());
    }

    UInt resultRow = wire("resultRow", cat(row.resize(c.mBits()), nTile).asUInt());
    gemm.yAddress.set(mux(streaming, resultRow, yAddress));
    yData.set(gemm.yData);
    ppm.inValid.set(streaming);
    for (int col = 0; col < cols; col++) {
      ppm.inAcc.get(col).set(gemm.yData.slice(a.accWidth() * (col + 1) - 1, a.accWidth() * col).asSInt().resize(32));
    }
    UInt outRow = resultRow;
    for (int s = 0; s < latency; s++) {
      outRow = regNext("outRow_q" + s, outRow);
    }
    Mem<UInt> results = mem("results", uint(p.outBits() * cols), 1 << qAddress.width());
    List<SInt> codes = new ArrayList<>(ppm.outData.asList());
    UInt resultWord = wire("resultWord", catLsbFirst(codes).asUInt());
    UInt outAddress = outRow;
    when(ppm.outValid, () -> results.write(outAddress, resultWord));
    qData.set(results.readAsync(qAddress).asBits());

    Bool lastRow = wire("lastRow", row.resize(m.width() + 1).eq(m.resize(m.width() + 1).sub(1)));
    switchOn(state, s -> {
      s.is(idle, () -> when(launch, () -> {
        state.set(uintLit(gemmRuns, 3));
        doneQ.set(boolLit(false));
      }));
      s.is(gemmRuns, () -> when(gemm.done, () -> {
        state.set(uintLit(config, 3));
        lane.set(uintLit(0, lane.width()));
        nTile.set(uintLit(0, nTile.width()));
        channelBase.set(uintLit(0, channelBase.width()));
      }));
      s.is(config, () -> {
        lane.set(lane.add(1));
        when(lane.eq(cols - 1), () -> {
          state.set(uintLit(stream, 3));
          row.set(uintLit(0, row.width()));
        });
      });
      s.is(stream, () -> {
        row.set(row.add(1));
        when(lastRow, () -> {
          state.set(uintLit(drain, 3));
          wait.set(uintLit(1, wait.width()));
        });
      });
      s.is(drain, () -> {
        wait.set(wait.add(1));
        when(wait.eq(latency), () -> {
          lane.set(uintLit(0, lane.width()));
          nTile.set(nTile.add(1));
          channelBase.set(channelBase.add(cols));
          when(lastTile, () -> {
            state.set(uintLit(idle, 3));
            doneQ.set(boolLit(true));
          }).otherwise(() -> state.set(uintLit(config, 3)));
        });
      });
      s.otherwise(() -> state.set(uintLit(idle, 3)));
    });
    when(launch, () -> count.set(uintLit(0, 32))).elseWhen(state.ne(idle), () -> count.set(count.add(1)));

    busy.set(state.ne(idle));
    done.set(doneQ);
    overflow.set(gemm.overflow);
    psumWritebacks.set(gemm.psumWritebacks);
    psumReadbacks.set(gemm.psumReadbacks);
    gemmCycles.set(gemm.cycles);
    cycles.set(count);
  }

  @Override
  public String moduleName() {
    return name;
  }
}
