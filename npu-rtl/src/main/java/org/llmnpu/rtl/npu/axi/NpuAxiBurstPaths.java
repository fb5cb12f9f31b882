package org.llmnpu.rtl.npu.axi;

import static org.llmnpu.hdl.Hw.bits;
import static org.llmnpu.hdl.Hw.bitsLit;
import static org.llmnpu.hdl.Hw.bool;
import static org.llmnpu.hdl.Hw.mux;
import static org.llmnpu.hdl.Hw.uint;
import static org.llmnpu.hdl.Hw.uintLit;
import static org.llmnpu.rtl.npu.axi.NpuAxiMaster.ADDR;
import static org.llmnpu.rtl.npu.axi.NpuAxiMaster.FETCH_ID;
import static org.llmnpu.rtl.npu.axi.NpuAxiMaster.GAP_BITS;
import static org.llmnpu.rtl.npu.axi.NpuAxiMaster.READ_BURSTS;

import org.llmnpu.hdl.Bits;
import org.llmnpu.hdl.Bool;
import org.llmnpu.hdl.UInt;

/**
 * The read and write burst paths of the {@link NpuAxiMaster} (rules, IDs, pacing and errors: its class comment):
 * each path's registers ({@link ReadBursts}, {@link WriteBursts}) and its logic once the master has decided which
 * head request it takes. Each method builds its logic into the master (the generated Verilog is the master's).
 */
abstract class NpuAxiBurstPaths extends NpuAxiMasterPorts {
  NpuAxiBurstPaths(int lineBytes) {
    super(lineBytes);
  }

  /**
   * The read path's registers: the open burst ({@code rdOpen} at {@code rdNext}, {@code rdLeft} beats to take, in
   * slot {@code rdSlot}), the AR register, per outstanding burst a slot (requests taken, closed, fetch, the first
   * and the largest later pacing gap) in a ring {@code head..tail}, the outstanding counts, the R beat within the
   * head burst, the response register and the sticky error.
   */
  static final class ReadBursts {
    Bool rdOpen;
    UInt rdNext;
    UInt rdLeft;
    UInt rdSlot;
    Bool arValid;
    UInt arAddr;
    UInt arLen;
    Bool arFetch;
    Bool rdFetch;
    final UInt[] absorbed = new UInt[READ_BURSTS];
    final Bool[] closed = new Bool[READ_BURSTS];
    final Bool[] fetchSlot = new Bool[READ_BURSTS];
    final UInt[] firstGap = new UInt[READ_BURSTS];
    final UInt[] restGap = new UInt[READ_BURSTS];
    UInt tail;
    UInt head;
    UInt bursts;
    /** Fetch bursts outstanding (opened, not yet handed over). */
    UInt fetchBursts;
    /** Fetch bursts still on the bus (their RLAST not yet received). */
    UInt fetchOnBus;
    UInt rBeat;
    Bool respV;
    UInt respD;
    Bool rdErr;
  }

  /**
   * The write path's registers: the open burst ({@code wOpen} at {@code wNext}, {@code wLeft} beats to take), the
   * null beats left of a cut burst, the AW register, the W register, the B responses pending and the sticky error.
   */
  static final class WriteBursts {
    Bool wOpen;
    UInt wNext;
    UInt wLeft;
    UInt padLeft;
    Bool awValid;
    UInt awAddr;
    UInt awLen;
    Bool wBufValid;
    UInt wBufData;
    Bits wBufStrb;
    Bool wBufLast;
    UInt bPending;
    Bool wrErr;
  }

  /** The request the head of the request buffer would open a burst with: its beats and the next line's address. */
  record Opening(UInt beats, UInt nextAddr) {
  }

  /** The read path's registers ({@link ReadBursts}). */
  ReadBursts readRegisters() {
    ReadBursts r = new ReadBursts();
    r.rdOpen = regInit("rdOpen", bool(), 0);
    r.rdNext = regInit("rdNext", uint(ADDR), 0);
    r.rdLeft = regInit("rdLeft", uint(9), 0);
    r.rdSlot = regInit("rdSlot", uint(2), 0);
    r.arValid = regInit("arValid", bool(), 0);
    r.arAddr = regInit("arAddr", uint(ADDR), 0);
    r.arLen = regInit("arLen", uint(8), 0);
    r.arFetch = regInit("arFetch", bool(), 0);
    r.rdFetch = regInit("rdFetch", bool(), 0);
    for (int i = 0; i < READ_BURSTS; i++) {
      r.absorbed[i] = regInit("slot" + i + "_taken", uint(9), 0);
      r.closed[i] = regInit("slot" + i + "_closed", bool(), 0);
      r.fetchSlot[i] = regInit("slot" + i + "_fetch", bool(), 0);
      r.firstGap[i] = regInit("slot" + i + "_firstGap", uint(GAP_BITS), 1);
      r.restGap[i] = regInit("slot" + i + "_restGap", uint(GAP_BITS), 1);
    }
    r.tail = regInit("tail", uint(2), 0);
    r.head = regInit("head", uint(2), 0);
    r.bursts = regInit("bursts", uint(3), 0);
    r.fetchBursts = regInit("fetchBursts", uint(3), 0);
    r.fetchOnBus = regInit("fetchOnBus", uint(3), 0);
    r.rBeat = regInit("rBeat", uint(9), 0);
    r.respV = regInit("respV", bool(), 0);
    r.respD = reg("respD", uint(8 * line));
    r.rdErr = regInit("rdErr", bool(), 0);
    return r;
  }

  /** The write path's registers ({@link WriteBursts}). */
  WriteBursts writeRegisters() {
    WriteBursts w = new WriteBursts();
    w.wOpen = regInit("wOpen", bool(), 0);
    w.wNext = regInit("wNext", uint(ADDR), 0);
    w.wLeft = regInit("wLeft", uint(9), 0);
    w.padLeft = regInit("padLeft", uint(9), 0);
    w.awValid = regInit("awValid", bool(), 0);
    w.awAddr = regInit("awAddr", uint(ADDR), 0);
    w.awLen = regInit("awLen", uint(8), 0);
    w.wBufValid = regInit("wBufValid", bool(), 0);
    w.wBufData = reg("wBufData", uint(8 * line));
    w.wBufStrb = reg("wBufStrb", bits(line));
    w.wBufLast = reg("wBufLast", bool());
    w.bPending = regInit("bPending", uint(4), 0);
    w.wrErr = regInit("wrErr", bool(), 0);
    return w;
  }

  /**
   * Read bursts: opening (AR register, a slot) and taking requests, cutting; the head burst's R beats (ID 0 from R,
   * ID 1 through the {@link NpuAxiBeatFifo}) delivered at their requests' pacing or dropped past the taken ones;
   * the outstanding counts and the sticky read error.
   */
  void readBursts(ReadBursts r, NpuAxiRequestBuffer req, Opening open, Bool takeRead, Bool readMatch,
                  Bool cutRead) {
    Bool arFire = wire("arFire", r.arValid.and(arready));
    when(arFire, () -> r.arValid.set(false));  // an opening burst in the same cycle sets it again
    Bool opensRead = wire("opensRead", takeRead.and(readMatch.not()));
    when(opensRead, () -> {
      r.arValid.set(true);
      r.arAddr.set(req.outAddr);
      r.arLen.set(open.beats().sub(1).resize(8));
      r.arFetch.set(req.outFetch);
      r.rdFetch.set(req.outFetch);
      r.rdOpen.set(open.beats().gt(1));
      r.rdNext.set(open.nextAddr());
      r.rdLeft.set(open.beats().sub(1));
      r.rdSlot.set(r.tail);
      r.tail.set(r.tail.add(1));
    });
    when(takeRead.and(readMatch), () -> {
      r.rdNext.set(r.rdNext.add(line));
      r.rdLeft.set(r.rdLeft.sub(1));
      when(r.rdLeft.eq(1), () -> r.rdOpen.set(false));
    });
    when(cutRead, () -> r.rdOpen.set(false));
    for (int i = 0; i < READ_BURSTS; i++) {
      int slot = i;
      when(opensRead.and(r.tail.eq(slot)), () -> {
        r.absorbed[slot].set(uintLit(1, 9));
        r.closed[slot].set(open.beats().eq(1));
        r.fetchSlot[slot].set(req.outFetch);
        r.firstGap[slot].set(req.outGap);
        r.restGap[slot].set(uintLit(1, GAP_BITS));
      });
      when(takeRead.and(readMatch).and(r.rdSlot.eq(slot)), () -> {
        r.absorbed[slot].set(r.absorbed[slot].add(1));
        r.restGap[slot].set(r.restGap[slot].max(req.outGap));
        when(r.rdLeft.eq(1), () -> r.closed[slot].set(true));
      });
      when(cutRead.and(r.rdSlot.eq(slot)), () -> r.closed[slot].set(true));
    }
    UInt headTaken = r.absorbed[0];
    Bool headClosed = r.closed[0];
    UInt headFirstGap = r.firstGap[0];
    UInt headRestGap = r.restGap[0];
    Bool headFetch = r.fetchSlot[0];
    for (int i = 1; i < READ_BURSTS; i++) {
      headFetch = mux(r.head.eq(i), r.fetchSlot[i], headFetch);
      headTaken = mux(r.head.eq(i), r.absorbed[i], headTaken);
      headClosed = mux(r.head.eq(i), r.closed[i], headClosed);
      headFirstGap = mux(r.head.eq(i), r.firstGap[i], headFirstGap);
      headRestGap = mux(r.head.eq(i), r.restGap[i], headRestGap);
    }
    Bool fetchHead = headFetch;
    // pacing: a beat reaches the NPU at least its request's gap after the previous beat (as on the native port,
    // where responses keep their requests' spacing; load4 and the PPM's loads need it)
    UInt sinceDelivery = regInit("sinceDelivery", uint(GAP_BITS), maxGap);
    UInt beatGap = wire("beatGap", mux(r.rBeat.eq(0), headFirstGap, headRestGap));
    // the fetcher's R beats go into the FIFO; the head burst's beats come from it (a fetch burst) or from R (ID 0)
    NpuAxiBeatFifo fifo = instance("fetchBeats", new NpuAxiBeatFifo(line, Math.max(1, 32 / line)));
    Bool fetchBeat = wire("rFetchBeat", rvalid.and(rid.eq(FETCH_ID)));
    Bool dmaBeat = wire("rDmaBeat", rvalid.and(rid.ne(FETCH_ID)));
    fifo.inValid.set(fetchBeat);
    fifo.inData.set(rdata);
    fifo.inLast.set(rlast);
    fifo.inError.set(rresp.ne(0));
    Bool beatHere = wire("beatHere", mux(fetchHead, fifo.outValid, dmaBeat).and(r.bursts.ne(0)));
    Bool beatLast = wire("beatLast", mux(fetchHead, fifo.outLast, rlast));
    Bool requested = wire("beatRequested", beatHere.and(r.rBeat.lt(headTaken)));
    Bool deliver = wire("deliver", requested.and(sinceDelivery.ge(beatGap)));
    Bool drop = wire("drop", beatHere.and(r.rBeat.ge(headTaken)).and(headClosed));
    when(deliver, () -> sinceDelivery.set(uintLit(1, GAP_BITS)))
        .elseWhen(sinceDelivery.ne(maxGap), () -> sinceDelivery.set(sinceDelivery.add(1)));
    Bool consumed = wire("beatConsumed", deliver.or(drop));
    fifo.outTake.set(consumed.and(fetchHead));
    rready.set(mux(rid.eq(FETCH_ID), fifo.inReady, consumed.and(fetchHead.not())));
    Bool burstEnds = wire("burstEnds", consumed.and(beatLast));
    when(consumed, () -> r.rBeat.set(mux(beatLast, uintLit(0, 9), r.rBeat.add(1))));
    when(burstEnds, () -> r.head.set(r.head.add(1)));
    when(opensRead.and(burstEnds.not()), () -> r.bursts.set(r.bursts.add(1)))
        .elseWhen(opensRead.not().and(burstEnds), () -> r.bursts.set(r.bursts.sub(1)));
    Bool opensFetch = wire("opensFetch", opensRead.and(req.outFetch));
    Bool fetchEnds = wire("fetchEnds", burstEnds.and(fetchHead));
    when(opensFetch.and(fetchEnds.not()), () -> r.fetchBursts.set(r.fetchBursts.add(1)))
        .elseWhen(opensFetch.not().and(fetchEnds), () -> r.fetchBursts.set(r.fetchBursts.sub(1)));
    Bool fetchReceived = wire("fetchReceived", fetchBeat.and(fifo.inReady).and(rlast));
    when(opensFetch.and(fetchReceived.not()), () -> r.fetchOnBus.set(r.fetchOnBus.add(1)))
        .elseWhen(opensFetch.not().and(fetchReceived), () -> r.fetchOnBus.set(r.fetchOnBus.sub(1)));
    r.respV.set(deliver);
    r.respD.set(mux(fetchHead, fifo.outData, rdata));
    Bool beatError = wire("beatError", mux(fetchHead, fifo.outError, rresp.ne(0)));
    when(clearErrors, () -> r.rdErr.set(false))
        .elseWhen(deliver.and(beatError).or(rvalid.and(rid.gt(FETCH_ID))), () -> r.rdErr.set(true));
  }

  /**
   * Write bursts: opening (AW register) and taking requests into the W register ({@code WLAST} on the burst's last
   * beat), cutting (the untaken beats then go as null beats, {@code WSTRB} 0), the B responses pending and the sticky
   * write error.
   */
  void writeBursts(WriteBursts w, NpuAxiRequestBuffer req, Opening open, Bool takeWrite, Bool writeMatch,
                   Bool cutWrite, Bool wFire, Bool wBufFree) {
    Bool awFire = wire("awFire", w.awValid.and(awready));
    when(awFire, () -> w.awValid.set(false));
    when(wFire, () -> w.wBufValid.set(false));
    Bool opensWrite = wire("opensWrite", takeWrite.and(writeMatch.not()));
    when(opensWrite, () -> {
      w.awValid.set(true);
      w.awAddr.set(req.outAddr);
      w.awLen.set(open.beats().sub(1).resize(8));
      w.wOpen.set(open.beats().gt(1));
      w.wNext.set(open.nextAddr());
      w.wLeft.set(open.beats().sub(1));
    });
    when(takeWrite, () -> {
      w.wBufValid.set(true);
      w.wBufData.set(req.outWdata);
      w.wBufStrb.set(req.outWstrb);
      w.wBufLast.set(mux(writeMatch, w.wLeft.eq(1), open.beats().eq(1)));
    });
    when(takeWrite.and(writeMatch), () -> {
      w.wNext.set(w.wNext.add(line));
      w.wLeft.set(w.wLeft.sub(1));
      when(w.wLeft.eq(1), () -> w.wOpen.set(false));
    });
    when(cutWrite, () -> {
      w.wOpen.set(false);
      w.padLeft.set(w.wLeft);
    });
    // null beats of a cut burst
    when(w.wOpen.not().and(w.padLeft.ne(0)).and(wBufFree), () -> {
      w.wBufValid.set(true);
      w.wBufData.set(uintLit(0, 8 * line));
      w.wBufStrb.set(bitsLit(0, line));
      w.wBufLast.set(w.padLeft.eq(1));
      w.padLeft.set(w.padLeft.sub(1));
    });
    bready.set(true);
    when(opensWrite.and(bvalid.not()), () -> w.bPending.set(w.bPending.add(1)))
        .elseWhen(opensWrite.not().and(bvalid), () -> w.bPending.set(w.bPending.sub(1)));
    when(clearErrors, () -> w.wrErr.set(false))
        .elseWhen(bvalid.and(bresp.ne(0).or(bid.ne(0))), () -> w.wrErr.set(true));
  }
}
