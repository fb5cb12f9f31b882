package org.llmnpu.rtl.npu;

import static org.llmnpu.hdl.Hw.bitsToHold;
import static org.llmnpu.hdl.Hw.bool;
import static org.llmnpu.hdl.Hw.cat;
import static org.llmnpu.hdl.Hw.catLsbFirst;
import static org.llmnpu.hdl.Hw.mux;
import static org.llmnpu.hdl.Hw.uint;
import static org.llmnpu.hdl.Hw.uintLit;

import java.util.ArrayList;
import java.util.List;
import org.llmnpu.hdl.Bits;
import org.llmnpu.hdl.Bool;
import org.llmnpu.hdl.Data;
import org.llmnpu.hdl.HwModule;
import org.llmnpu.hdl.HwValue;
import org.llmnpu.hdl.UInt;
import org.llmnpu.rtl.mac.GemmEngineConfig;

/**
 * The drain stage of the {@link NpuBackEnd} (its generator part; the logic is built into the back-end, whose Verilog
 * it is): the drain's walks (the result lines {@code y + m·yStride + q·line}, the PPM's codes at
 * {@code y + m·yStride + q·line/4}, gated the gate lines in step with the drain), the line's results from the engine
 * ({@code yAddress}, a row's line q = the sign-extended INT32 outputs {@code q·line/4 ..} of N tile {@code q/4}; a
 * wide PPM's whole N tile), the accumulate-into sum with the old line, the write port's line, data and byte mask (raw,
 * accumulated or the PPM's codes), the gate codes to the PPM, the feed to the PPM and its codes-in-flight counter, and
 * the RUN → DRAIN step's start of the walks ({@link #begin}). The back-end keeps the
 * dispatched GEMM's registers (Y, its stride, the flags), the state register and its IDLE/RUN steps, and the result
 * scoreboard. Latency and cycle formula: {@link NpuBackEnd}'s (one line a cycle from the cycle after the drain
 * starts, {@code M·ceil(4N / line)} lines, {@code + L} through the PPM; a line waits while a DSP copy has the port).
 */
final class NpuDrainStage {
  /** The module the stage builds into: its DSL's wires, sections and conditionals. */
  interface Host extends Walker.Host {
    /** A named wire driven by {@code value}. */
    <T extends Data> T named(String name, T value);

    /** A named section. */
    void inSection(String name, Runnable body);

    /** {@code if (cond) then}, chainable. */
    HwModule.When whenThen(Bool cond, Runnable then);
  }

  /** The walk over the result lines (and the engine's result memory). */
  final Walker drain;
  /** The walk over the PPM's code writes. */
  final Walker codes;
  /** Gated only (else null): the walk over the gate lines. */
  final Walker gateWalk;
  final UInt rows;
  final UInt beats;
  final UInt remainder;
  final UInt codeRemainder;
  /** Gated only (else null): the drain multiplies by the gate codes at Y. */
  final Bool gated;
  /** The back-end is in DRAIN, in TAIL. */
  final Bool inDrain;
  final Bool inTail;
  /** The drain moves a line this cycle (in DRAIN and no DSP copy has the port). */
  final Bool drainMoves;
  /** The PPM's codes of a fed line are written this cycle. */
  final Bool codeWrite;
  private final Bool throughPpm;
  private final boolean gate;
  private final boolean wide;
  private final int line;
  private final int lineShift;
  private final int laneShift;

  /**
   * The drain stage of back-end {@code b} (configuration {@code c}), reading the dispatched GEMM's {@code yStride},
   * {@code accumulate} and {@code throughPpm} registers and the back-end's {@code state}.
   */
  NpuDrainStage(NpuBackEnd b, NpuConfig c, UInt yStride, UInt state, Bool accumulate, Bool throughPpm) {
    Host host = b;
    this.throughPpm = throughPpm;
    GemmEngineConfig gc = c.gemm();
    line = c.machine().lineBytes();
    lineShift = Integer.numberOfTrailingZeros(line);
    int lineAddrBits = Integer.numberOfTrailingZeros(c.machine().spadBytes() / line);
    int lanes = NpuPpm.lanes(c.machine());
    wide = c.ppmWide();
    laneShift = Integer.numberOfTrailingZeros(lanes);
    gate = c.ppmGate();
    Bits yData = b.yData;
    UInt oldLine = b.oldLine;
    SpadWrite write = b.write;
    Bool loadBusy = b.loadBusy;
    Bool holdFeed = b.holdFeed;
    Bool ppmOutValid = b.ppmOutValid;
    UInt ppmCodes = b.ppmCodes;
    Walker[] walk = new Walker[1];
    host.inSection("drainWalk", () -> walk[0] = new Walker(host, Npu.ADDR, 16, false));
    drain = walk[0];
    rows = host.reg0("drain_rows", uint(16));
    beats = host.reg0("drain_beats", uint(16));
    remainder = host.reg0("drain_remainder", uint(lineShift + 1));
    drain.shape(yStride, uintLit(line, Npu.ADDR), rows, beats);
    // the PPM's codes: line q of a row lands at y + m·yStride + q·line/4
    Walker[] outWalk = new Walker[1];
    host.inSection("codeWalk", () -> outWalk[0] = new Walker(host, Npu.ADDR, 16, false));
    codes = outWalk[0];
    codes.shape(yStride, uintLit(lanes, Npu.ADDR), rows, beats);
    codeRemainder = host.reg0("code_remainder", uint(laneShift + 1));
    // gated: the gate codes of drain line q of row m at y + m·yStride + q·line/4, walked in step with the drain
    Walker gw0 = null;
    gated = gate ? host.reg0("gated", bool()) : null;
    if (gate) {
      Walker[] gw = new Walker[1];
      host.inSection("gateWalk", () -> gw[0] = new Walker(host, Npu.ADDR, 16, false));
      gw0 = gw[0];
      gw0.shape(yStride, uintLit(lanes, Npu.ADDR), rows, beats);
    }

    gateWalk = gw0;

    // Drain: line q of a result row holds outputs q·rows/4 .. of N tile q/4.
    int nTileBits = gc.nTileBits();
    UInt quarter = host.named("drain_quarter", drain.beat.lsbs(2));
    UInt drainTile = nTileBits == 0 ? drain.beat : host.named("drain_tile", drain.beat.slice(nTileBits + 1, 2));
    if (wide && nTileBits > 0) {
      // a wide PPM's drain reads one N tile of a row a cycle: its beat is the tile
      drainTile = host.named("drain_ppmTile", mux(throughPpm, drain.beat.resize(nTileBits), drainTile));
    }
    b.yAddress.set(NpuGemm.join(drain.row, gc.mBits(), drainTile, nTileBits));
    int acc = c.accWidth();
    int per = line / 4;
    List<UInt> quarters = new ArrayList<>();
    for (int q = 0; q < 4; q++) {
      List<HwValue> outs = new ArrayList<>();
      for (int j = 0; j < per; j++) {
        int col = q * per + j;
        outs.add(yData.slice(acc * col + acc - 1, acc * col).asSInt().resize(32));
      }
      quarters.add(host.named("drain_line" + q, catLsbFirst(outs).asUInt()));
    }
    // a wide PPM's input: the tile's line results, each sign-extended to INT32
    UInt tileResults = null;
    if (wide) {
      List<HwValue> all = new ArrayList<>();
      for (int col = 0; col < lanes; col++) {
        all.add(yData.slice(acc * col + acc - 1, acc * col).asSInt().resize(32));
      }
      tileResults = host.named("drain_tileResults", catLsbFirst(all).asUInt());
    }
    UInt results = host.named("drain_results", mux(quarter.eq(0), quarters.get(0), mux(quarter.eq(1), quarters.get(1),
        mux(quarter.eq(2), quarters.get(2), quarters.get(3)))));
    // accumulate-into: old Y (this line, read now) + results, lane by lane, wrapping at 32 bits; a carry-select
    // sum (both upper halves formed while the lower half's carry ripples), since the old line comes from the
    // scratchpad's read in the same cycle (its bank selected by the drain's line itself, not the read address mux)
    List<HwValue> sums = new ArrayList<>();
    for (int j = 0; j < per; j++) {
      UInt old = oldLine.slice(32 * j + 31, 32 * j).asUInt();
      UInt add = results.slice(32 * j + 31, 32 * j).asUInt();
      UInt low = old.lsbs(16).addExpand(add.lsbs(16));
      UInt high = old.msbs(16).add(add.msbs(16));
      UInt highCarried = old.msbs(16).add(add.msbs(16).add(1));
      sums.add(cat(mux(low.bit(16), highCarried, high), low.lsbs(16)).asUInt());
    }
    UInt accumulated = host.named("drain_accumulated", catLsbFirst(sums).asUInt());
    Bits ones = NpuScratchpad.allBytes(line);
    UInt drainShortBy = host.named("drain_shortBy", uintLit(line, lineShift + 1).sub(remainder));
    Bits drainEndMask = host.named("drain_endMask", mux(remainder.eq(0), ones, ones.shiftRight(drainShortBy)));

    inDrain = host.named("inDrain", state.eq(NpuBackEnd.st(NpuBackEnd.State.DRAIN)));
    // a DSP copy has the scratchpad's port (loadBusy: a DSPOUT writes it, or a DSPIN reads it beside a drain that
    // reads): the drain pauses, its walks and line count hold; no LOAD runs beside a drain (loadMayStart), and a
    // DSPOUT beside a drain through the PPM waits for the back-end's codes (NpuControl), so in DRAIN loadBusy is a
    // DSP copy the drain may pause for
    drainMoves = host.named("drainMoves", inDrain.and(loadBusy.not()).and(holdFeed.not()));
    inTail = host.named("inTail", state.eq(NpuBackEnd.st(NpuBackEnd.State.TAIL)));
    // the fused drain's writes: the PPM's codes, lanes bytes at the code walk's offset in its line
    codeWrite = host.named("codeWrite", ppmOutValid.and(throughPpm).and(inDrain.or(inTail)));
    Bits laneBytes = NpuScratchpad.allBytes(lanes).asUInt().resize(line).asBits();
    Bits partialLanes = NpuScratchpad.allBytes(lanes).shiftRight(uintLit(lanes, laneShift + 1).sub(codeRemainder))
        .asUInt().resize(line).asBits();
    Bits codeLanes = host.named("code_lanes", mux(codes.lastInRow().and(codeRemainder.ne(0)), partialLanes, laneBytes));
    UInt codeOffset = lineShift == 0 || wide ? uintLit(0, 1) : codes.address.lsbs(lineShift);
    Bits codeMask = host.named("code_mask", codeLanes.shiftLeft(codeOffset));
    write.valid.set(mux(throughPpm, codeWrite, drainMoves));
    write.line.set(mux(throughPpm, codes.address.slice(lineShift + lineAddrBits - 1, lineShift),
        drain.address.slice(lineShift + lineAddrBits - 1, lineShift)));
    write.data.set(mux(throughPpm, ppmCodes, mux(accumulate, accumulated, results)));
    write.mask.set(mux(throughPpm, codeMask, mux(drain.lastInRow(), drainEndMask, ones)));
    if (gate) {
      // the gate line's quarter (lanes bytes at a multiple of lanes: y and yStride are line-aligned)
      // (wide: the whole gate line, one a drain line)
      UInt gateQuarter = wide ? null : host.named("gate_quarter", gateWalk.address.slice(lineShift - 1, lineShift - 2));
      UInt gateCodes;
      if (wide) {
        gateCodes = oldLine;
      } else {
        List<UInt> gateParts = new ArrayList<>();
        for (int q = 0; q < 4; q++) {
          gateParts.add(oldLine.slice(8 * lanes * (q + 1) - 1, 8 * lanes * q));
        }
        gateCodes = host.named("gate_codes", mux(gateQuarter.eq(0), gateParts.get(0), mux(gateQuarter.eq(1),
            gateParts.get(1), mux(gateQuarter.eq(2), gateParts.get(2), gateParts.get(3)))));
      }
      Bool gatedFeed = host.named("gate_feed", drainMoves.and(gated));
      b.drainReads.set(drainMoves.and(accumulate.or(gated)));
      b.drainReadLine.set(mux(gated, gateWalk.address.slice(lineShift + lineAddrBits - 1, lineShift),
          drain.address.slice(lineShift + lineAddrBits - 1, lineShift)));
      b.ppmGated.set(gatedFeed);
      b.ppmGates.set(mux(gatedFeed, gateCodes, uintLit(0, 8 * lanes)));
      b.drainReadCounted.set(wide ? drainMoves.and(accumulate.or(gated))
          : drainMoves.and(accumulate.or(gated.and(gateQuarter.eq(0)))));
    } else {
      b.drainReads.set(drainMoves.and(accumulate));
    }
    b.ppmFeed.set(drainMoves.and(throughPpm));
    // the fused drain's feeds of the last L − 1 cycles: a line fed in cycle f has its codes written in f + L, so a
    // DSPOUT that dispatches in t (writes from t + 1) needs no feed in t − L + 1 .. t − 1 (none in t: holdFeed);
    // a down-counter set to L − 1 by each feed is non-zero exactly then (ceil(log2 L) flip-flops)
    int latency = c.machine().ppmLatency();
    if (latency <= 1) {
      b.codesInFlight.set(org.llmnpu.hdl.Hw.boolLit(false));
    } else {
      UInt flight = host.reg0("codesInFlight_cycles", uint(bitsToHold(latency - 1)));
      host.whenThen(drainMoves.and(throughPpm), () -> flight.set(uintLit(latency - 1, flight.width())))
          .elseWhen(flight.ne(0), () -> flight.set(flight.sub(1)));
      b.codesInFlight.set(flight.ne(0));
    }
    b.ppmLine.set(wide ? tileResults : results);
    b.ppmGroup.set(drain.beat.resize(b.ppmGroup.width()));
    b.ppmRowFed.set(drainMoves.and(throughPpm).and(drain.lastInRow()));
  }

  /** The RUN → DRAIN step: the walks start at Y ({@code yAddr}), the shape from the GEMM's {@code m} and {@code n}. */
  void begin(UInt yAddr, UInt m, UInt n) {
    drain.begin(yAddr);
    codes.begin(yAddr);
    if (gate) {
      gateWalk.begin(yAddr);
    }
    codeRemainder.set(n.resize(laneShift + 1).lsbs(laneShift + 1).and(uintLit((1 << laneShift) - 1, laneShift + 1)));
    rows.set(m.resize(16));
    UInt lines = n.resize(19).shiftLeft(2).resize(19).add(line - 1).shiftRight(lineShift).resize(16);
    // a wide PPM's drain: ceil(N / line) N tiles a row
    beats.set(wide ? mux(throughPpm, n.resize(19).add(line - 1).shiftRight(lineShift).resize(16), lines)
        : lines);
    remainder.set(n.lsbs(lineShift).shiftLeft(2).lsbs(lineShift).resize(lineShift + 1));
  }
}
