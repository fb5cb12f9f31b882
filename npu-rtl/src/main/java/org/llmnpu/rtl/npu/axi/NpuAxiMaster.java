package org.llmnpu.rtl.npu.axi;

import static org.llmnpu.hdl.Hw.bits;
import static org.llmnpu.hdl.Hw.bitsLit;
import static org.llmnpu.hdl.Hw.bool;
import static org.llmnpu.hdl.Hw.mux;
import static org.llmnpu.hdl.Hw.uint;
import static org.llmnpu.hdl.Hw.uintLit;

import org.llmnpu.hdl.Bits;
import org.llmnpu.hdl.Bool;
import org.llmnpu.hdl.HwModule;
import org.llmnpu.hdl.UInt;

/**
 * The AXI4 master of the {@link NpuAxi} top (instance {@code mem}, block {@code npu-axi-master}): it turns the NPU's
 * native memory port (one line per request, in-order read responses, {@code mem_req_run} = beats of the contiguous
 * run a request starts) into INCR bursts on an AXI4 bus of the line's width ({@code rows} bytes, AxSIZE =
 * log2(line)).
 *
 * <p><b>Request buffer.</b> The native requests go through a two-entry {@link NpuAxiRequestBuffer} (instance
 * {@code req}): {@code reqReady} is its register ({@code !full}), and the burst logic below works on its head, one
 * cycle after the NPU's handshake. (With the burst logic's address compare on {@code reqReady} the AXI NPU reached
 * 125.9 MHz: the fetcher's program counter → compare → the fetcher's outstanding count.)
 *
 * <p><b>Bursts.</b> A request that no open burst expects opens one of {@code n = min(run, 256, beats to the next
 * 4 KiB boundary)} beats (AR or AW register, one cycle later on the bus; a new burst may open in the cycle the
 * previous address leaves, so one-beat bursts go one a cycle) and is taken at once; the next {@code n − 1}
 * requests at the consecutive line addresses are taken into it (reads: nothing more on the bus, their data come with
 * the burst; writes: each becomes its W beat, {@code WLAST} on the n-th). A request elsewhere, or {@code flush} (the
 * NPU's start or end), cuts an open burst: a read burst's untaken beats are received and dropped, a write burst's are
 * sent with {@code WSTRB} 0 (null beats). So no burst crosses 4 KiB and every burst sends the length it announced.
 *
 * <p><b>Reads.</b> The DMA's on ID 0, the fetcher's ({@code reqFetch}) on ID {@link #FETCH_ID}, so the slave may
 * return a command read before an older DMA burst; up to {@link #READ_BURSTS} bursts outstanding, answered to the NPU
 * in request order: ID 0 beats straight from R (taken when their request has been taken, else {@code RREADY} waits),
 * ID 1 beats through a FIFO of one fetch burst ({@link NpuAxiBeatFifo}). Deadlock-free by two opening rules: a fetch
 * burst opens when no other fetch burst or no DMA burst is outstanding, a DMA burst when no fetch burst is still on
 * the bus. A beat is registered and given to the NPU one cycle later, no sooner than its request's pacing gap after
 * the previous one (below). <b>Writes</b>: ID 0, up to {@link #WRITE_BURSTS} responses outstanding, one
 * W register ({@code WVALID} from a register). <b>Order</b>: a read burst opens only when every write burst has its B
 * response (a read after a write sees it, as in the native memory's order); writes do not wait for reads (the NPU
 * finishes a load before it stores, and a program does not store into its own next commands).
 *
 * <p><b>Errors.</b> {@code readError}: an R beat delivered with RRESP ≠ OKAY, or an RID other than 0 and 1;
 * {@code writeError}: a B with
 * BRESP ≠ OKAY or BID ≠ 0; sticky until {@code clearErrors}. {@code idle}: nothing open, outstanding or buffered.
 *
 * <p><b>Cycles</b> against the native memory of latency L: a read burst's AR leaves one cycle after its first
 * request reaches the burst logic (one cycle after the NPU's handshake: the request buffer), and each R beat reaches
 * the NPU one cycle after its R handshake; so a read answers in {@code 3 + readLatency} cycles at the earliest (the
 * native model: L). A write is taken when the W register is free; the NPU's run ends ({@link NpuAxiStatus}) after the
 * last B response.
 */
public final class NpuAxiMaster extends HwModule {
  /** Longest burst, beats (AXI4 INCR). */
  public static final int MAX_BURST = 256;
  /** Read bursts outstanding at most. */
  public static final int READ_BURSTS = 4;
  /** Write responses outstanding at most. */
  public static final int WRITE_BURSTS = 15;
  /** AXI ID width (writes and the DMA's reads use ID 0, the fetcher's reads {@link #FETCH_ID}). */
  public static final int ID_BITS = 4;
  /** The ID of the fetcher's reads. */
  public static final int FETCH_ID = 1;
  static final int ADDR = 32;
  /** Bits of a request's pacing gap (cycles to the previous request, saturated at {@link #maxGap}). */
  static final int GAP_BITS = 6;

  public final Bool reqValid = in(bool());
  public final Bool reqReady = out(bool());
  public final Bool reqWrite = in(bool());
  public final UInt reqAddr = in(uint(ADDR));
  public final UInt reqWdata;
  public final Bits reqWstrb;
  public final UInt reqRun = in(uint(16));
  /** The request is the fetcher's (a command read: ID {@link #FETCH_ID}); else the DMA's (ID 0). */
  public final Bool reqFetch = in(bool());
  public final Bool respValid = out(bool());
  public final UInt respData;
  /** Cut open bursts (the NPU's start, or its end). */
  public final Bool flush = in(bool());
  public final Bool clearErrors = in(bool());
  public final Bool idle = out(bool());
  public final Bool readError = out(bool());
  public final Bool writeError = out(bool());

  public final Bool awvalid = out("m_axi_awvalid", bool());
  public final Bool awready = in("m_axi_awready", bool());
  public final UInt awid = out("m_axi_awid", uint(ID_BITS));
  public final UInt awaddr = out("m_axi_awaddr", uint(ADDR));
  public final UInt awlen = out("m_axi_awlen", uint(8));
  public final UInt awsize = out("m_axi_awsize", uint(3));
  public final UInt awburst = out("m_axi_awburst", uint(2));
  public final Bool wvalid = out("m_axi_wvalid", bool());
  public final Bool wready = in("m_axi_wready", bool());
  public final UInt wdata;
  public final Bits wstrb;
  public final Bool wlast = out("m_axi_wlast", bool());
  public final Bool bvalid = in("m_axi_bvalid", bool());
  public final Bool bready = out("m_axi_bready", bool());
  public final UInt bid = in("m_axi_bid", uint(ID_BITS));
  public final UInt bresp = in("m_axi_bresp", uint(2));
  public final Bool arvalid = out("m_axi_arvalid", bool());
  public final Bool arready = in("m_axi_arready", bool());
  public final UInt arid = out("m_axi_arid", uint(ID_BITS));
  public final UInt araddr = out("m_axi_araddr", uint(ADDR));
  public final UInt arlen = out("m_axi_arlen", uint(8));
  public final UInt arsize = out("m_axi_arsize", uint(3));
  public final UInt arburst = out("m_axi_arburst", uint(2));
  public final Bool rvalid = in("m_axi_rvalid", bool());
  public final Bool rready = out("m_axi_rready", bool());
  public final UInt rid = in("m_axi_rid", uint(ID_BITS));
  public final UInt rdata;
  public final UInt rresp = in("m_axi_rresp", uint(2));
  public final Bool rlast = in("m_axi_rlast", bool());
  private final int line;
  /**
   * The largest spacing an NPU requester keeps between its reads, {@code max(2, line/2)} cycles (load4 and the INT4
   * weight stream: 2; the PPM's PPU-table load: {@code line/2} entries a beat): longer gaps count as this, so a
   * delay of the bus is not carried on from beat to beat.
   */
  private final int maxGap;

  /** The master for lines (and AXI data) of {@code lineBytes} bytes, a power of two in 4..64. */
  public NpuAxiMaster(int lineBytes) {
    if (lineBytes < 4 || lineBytes > 64 || Integer.bitCount(lineBytes) != 1) {
      throw new IllegalArgumentException("lineBytes must be a power of two in 4..64 (the NPU's rows), got "
          + lineBytes);
    }
    line = lineBytes;
    maxGap = Math.max(2, lineBytes / 2);
    int size = Integer.numberOfTrailingZeros(lineBytes);
    reqWdata = in(uint(8 * line));
    reqWstrb = in(bits(line));
    respData = out(uint(8 * line));
    wdata = out("m_axi_wdata", uint(8 * line));
    wstrb = out("m_axi_wstrb", bits(line));
    rdata = in("m_axi_rdata", uint(8 * line));

    // the request buffer: reqReady from its registers; the burst logic takes requests from its head
    NpuAxiRequestBuffer req = instance("req", new NpuAxiRequestBuffer(line));
    req.inValid.set(reqValid);
    reqReady.set(req.inReady);
    req.inWrite.set(reqWrite);
    req.inAddr.set(reqAddr);
    req.inWdata.set(reqWdata);
    req.inWstrb.set(reqWstrb);
    req.inRun.set(reqRun);
    req.inGap.set(requestGap());
    req.inFetch.set(reqFetch);
    Bool hValid = req.outValid;
    Bool hWrite = req.outWrite;
    UInt hAddr = req.outAddr;
    UInt hWdata = req.outWdata;
    Bits hWstrb = req.outWstrb;
    UInt hRun = req.outRun;
    UInt hGap = req.outGap;
    Bool hFetch = req.outFetch;

    // the burst a request would open: min(run, 256, beats to the 4 KiB boundary)
    int pageBeats = 4096 / line;
    int pageBits = 13 - size;
    UInt run = wire("run", mux(hRun.eq(0), uintLit(1, 16), hRun));
    UInt toPage = wire("toPage", uintLit(pageBeats, pageBits).sub(hAddr.slice(11, size).resize(pageBits)));
    UInt beats = wire("burstBeats", run.min(toPage.resize(16)).min(uintLit(MAX_BURST, 16)).resize(9));
    UInt nextAddr = wire("nextAddr", hAddr.add(line));

    // ---- state
    Bool rdOpen = regInit("rdOpen", bool(), 0);
    UInt rdNext = regInit("rdNext", uint(ADDR), 0);
    UInt rdLeft = regInit("rdLeft", uint(9), 0);
    UInt rdSlot = regInit("rdSlot", uint(2), 0);
    Bool arValid = regInit("arValid", bool(), 0);
    UInt arAddr = regInit("arAddr", uint(ADDR), 0);
    UInt arLen = regInit("arLen", uint(8), 0);
    Bool arFetch = regInit("arFetch", bool(), 0);
    Bool rdFetch = regInit("rdFetch", bool(), 0);
    UInt[] absorbed = new UInt[READ_BURSTS];
    Bool[] closed = new Bool[READ_BURSTS];
    Bool[] fetchSlot = new Bool[READ_BURSTS];
    UInt[] firstGap = new UInt[READ_BURSTS];
    UInt[] restGap = new UInt[READ_BURSTS];
    for (int i = 0; i < READ_BURSTS; i++) {
      absorbed[i] = regInit("slot" + i + "_taken", uint(9), 0);
      closed[i] = regInit("slot" + i + "_closed", bool(), 0);
      fetchSlot[i] = regInit("slot" + i + "_fetch", bool(), 0);
      firstGap[i] = regInit("slot" + i + "_firstGap", uint(GAP_BITS), 1);
      restGap[i] = regInit("slot" + i + "_restGap", uint(GAP_BITS), 1);
    }
    UInt tail = regInit("tail", uint(2), 0);
    UInt head = regInit("head", uint(2), 0);
    UInt bursts = regInit("bursts", uint(3), 0);
    // fetch bursts outstanding (opened, not yet handed over) and still on the bus (their RLAST not yet received)
    UInt fetchBursts = regInit("fetchBursts", uint(3), 0);
    UInt fetchOnBus = regInit("fetchOnBus", uint(3), 0);
    UInt rBeat = regInit("rBeat", uint(9), 0);
    Bool respV = regInit("respV", bool(), 0);
    UInt respD = reg("respD", uint(8 * line));
    Bool rdErr = regInit("rdErr", bool(), 0);

    Bool wOpen = regInit("wOpen", bool(), 0);
    UInt wNext = regInit("wNext", uint(ADDR), 0);
    UInt wLeft = regInit("wLeft", uint(9), 0);
    UInt padLeft = regInit("padLeft", uint(9), 0);
    Bool awValid = regInit("awValid", bool(), 0);
    UInt awAddr = regInit("awAddr", uint(ADDR), 0);
    UInt awLen = regInit("awLen", uint(8), 0);
    Bool wBufValid = regInit("wBufValid", bool(), 0);
    UInt wBufData = reg("wBufData", uint(8 * line));
    Bits wBufStrb = reg("wBufStrb", bits(line));
    Bool wBufLast = reg("wBufLast", bool());
    UInt bPending = regInit("bPending", uint(4), 0);
    Bool wrErr = regInit("wrErr", bool(), 0);

    // ---- which request is taken
    Bool wFire = wire("wFire", wBufValid.and(wready));
    Bool wBufFree = wire("wBufFree", wBufValid.not().or(wready));
    Bool writesQuiet = wire("writesQuiet", wOpen.not().and(padLeft.eq(0)).and(wBufValid.not()).and(awValid.not())
        .and(bPending.eq(0)));
    Bool readMatch = wire("readMatch", rdOpen.and(hWrite.not()).and(hAddr.eq(rdNext)).and(hFetch.eq(rdFetch)));
    Bool writeMatch = wire("writeMatch", wOpen.and(hWrite).and(hAddr.eq(wNext)));
    Bool arFree = wire("arFree", arValid.not().or(arready));
    Bool awFree = wire("awFree", awValid.not().or(awready));
    // two IDs without deadlock: a fetch burst opens when no other fetch burst or no DMA burst is outstanding (so
    // while a DMA burst is, one fetch burst at most, which the FIFO holds whole), a DMA burst when no fetch burst is
    // still on the bus (so an ID-0 beat never waits for an ID-1 beat the slave has not sent)
    Bool idOrderOk = wire("idOrderOk", mux(hFetch, fetchBursts.eq(0).or(bursts.eq(fetchBursts)),
        fetchOnBus.eq(0)));
    Bool readOpens = wire("readOpens", hWrite.not().and(rdOpen.not()).and(arFree)
        .and(bursts.lt(READ_BURSTS)).and(writesQuiet).and(idOrderOk));
    Bool writeOpens = wire("writeOpens", hWrite.and(wOpen.not()).and(rdOpen.not()).and(padLeft.eq(0))
        .and(awFree).and(bPending.lt(WRITE_BURSTS)).and(wBufFree));
    Bool takeRead = wire("takeRead", hValid.and(readMatch.or(readOpens)));
    Bool takeWrite = wire("takeWrite", hValid.and(writeMatch.and(wBufFree).or(writeOpens)));
    req.outTake.set(takeRead.or(takeWrite));
    Bool cutRead = wire("cutRead", rdOpen.and(takeRead.not()).and(flush.or(hValid.and(readMatch.not()))));
    Bool cutWrite = wire("cutWrite", wOpen.and(takeWrite.not()).and(flush.or(hValid.and(writeMatch.not()))));

    // ---- read bursts
    Bool arFire = wire("arFire", arValid.and(arready));
    when(arFire, () -> arValid.set(false));  // an opening burst in the same cycle sets it again
    Bool opensRead = wire("opensRead", takeRead.and(readMatch.not()));
    when(opensRead, () -> {
      arValid.set(true);
      arAddr.set(hAddr);
      arLen.set(beats.sub(1).resize(8));
      arFetch.set(hFetch);
      rdFetch.set(hFetch);
      rdOpen.set(beats.gt(1));
      rdNext.set(nextAddr);
      rdLeft.set(beats.sub(1));
      rdSlot.set(tail);
      tail.set(tail.add(1));
    });
    when(takeRead.and(readMatch), () -> {
      rdNext.set(rdNext.add(line));
      rdLeft.set(rdLeft.sub(1));
      when(rdLeft.eq(1), () -> rdOpen.set(false));
    });
    when(cutRead, () -> rdOpen.set(false));
    for (int i = 0; i < READ_BURSTS; i++) {
      int slot = i;
      when(opensRead.and(tail.eq(slot)), () -> {
        absorbed[slot].set(uintLit(1, 9));
        closed[slot].set(beats.eq(1));
        fetchSlot[slot].set(hFetch);
        firstGap[slot].set(hGap);
        restGap[slot].set(uintLit(1, GAP_BITS));
      });
      when(takeRead.and(readMatch).and(rdSlot.eq(slot)), () -> {
        absorbed[slot].set(absorbed[slot].add(1));
        restGap[slot].set(restGap[slot].max(hGap));
        when(rdLeft.eq(1), () -> closed[slot].set(true));
      });
      when(cutRead.and(rdSlot.eq(slot)), () -> closed[slot].set(true));
    }
    UInt headTaken = absorbed[0];
    Bool headClosed = closed[0];
    UInt headFirstGap = firstGap[0];
    UInt headRestGap = restGap[0];
    Bool headFetch = fetchSlot[0];
    for (int i = 1; i < READ_BURSTS; i++) {
      headFetch = mux(head.eq(i), fetchSlot[i], headFetch);
      headTaken = mux(head.eq(i), absorbed[i], headTaken);
      headClosed = mux(head.eq(i), closed[i], headClosed);
      headFirstGap = mux(head.eq(i), firstGap[i], headFirstGap);
      headRestGap = mux(head.eq(i), restGap[i], headRestGap);
    }
    // pacing: a beat reaches the NPU at least its request's gap after the previous beat (as on the native port,
    // where responses keep their requests' spacing; load4 and the PPM's loads need it)
    UInt sinceDelivery = regInit("sinceDelivery", uint(GAP_BITS), maxGap);
    UInt beatGap = wire("beatGap", mux(rBeat.eq(0), headFirstGap, headRestGap));
    // the fetcher's R beats go into the FIFO; the head burst's beats come from it (a fetch burst) or from R (ID 0)
    NpuAxiBeatFifo fifo = instance("fetchBeats", new NpuAxiBeatFifo(line, Math.max(1, 32 / line)));
    Bool fetchBeat = wire("rFetchBeat", rvalid.and(rid.eq(FETCH_ID)));
    Bool dmaBeat = wire("rDmaBeat", rvalid.and(rid.ne(FETCH_ID)));
    fifo.inValid.set(fetchBeat);
    fifo.inData.set(rdata);
    fifo.inLast.set(rlast);
    fifo.inError.set(rresp.ne(0));
    Bool beatHere = wire("beatHere", mux(headFetch, fifo.outValid, dmaBeat).and(bursts.ne(0)));
    Bool beatLast = wire("beatLast", mux(headFetch, fifo.outLast, rlast));
    Bool requested = wire("beatRequested", beatHere.and(rBeat.lt(headTaken)));
    Bool deliver = wire("deliver", requested.and(sinceDelivery.ge(beatGap)));
    Bool drop = wire("drop", beatHere.and(rBeat.ge(headTaken)).and(headClosed));
    when(deliver, () -> sinceDelivery.set(uintLit(1, GAP_BITS)))
        .elseWhen(sinceDelivery.ne(maxGap), () -> sinceDelivery.set(sinceDelivery.add(1)));
    Bool consumed = wire("beatConsumed", deliver.or(drop));
    fifo.outTake.set(consumed.and(headFetch));
    rready.set(mux(rid.eq(FETCH_ID), fifo.inReady, consumed.and(headFetch.not())));
    Bool burstEnds = wire("burstEnds", consumed.and(beatLast));
    when(consumed, () -> rBeat.set(mux(beatLast, uintLit(0, 9), rBeat.add(1))));
    when(burstEnds, () -> head.set(head.add(1)));
    when(opensRead.and(burstEnds.not()), () -> bursts.set(bursts.add(1)))
        .elseWhen(opensRead.not().and(burstEnds), () -> bursts.set(bursts.sub(1)));
    Bool opensFetch = wire("opensFetch", opensRead.and(hFetch));
    Bool fetchEnds = wire("fetchEnds", burstEnds.and(headFetch));
    when(opensFetch.and(fetchEnds.not()), () -> fetchBursts.set(fetchBursts.add(1)))
        .elseWhen(opensFetch.not().and(fetchEnds), () -> fetchBursts.set(fetchBursts.sub(1)));
    Bool fetchReceived = wire("fetchReceived", fetchBeat.and(fifo.inReady).and(rlast));
    when(opensFetch.and(fetchReceived.not()), () -> fetchOnBus.set(fetchOnBus.add(1)))
        .elseWhen(opensFetch.not().and(fetchReceived), () -> fetchOnBus.set(fetchOnBus.sub(1)));
    respV.set(deliver);
    respD.set(mux(headFetch, fifo.outData, rdata));
    Bool beatError = wire("beatError", mux(headFetch, fifo.outError, rresp.ne(0)));
    when(clearErrors, () -> rdErr.set(false))
        .elseWhen(deliver.and(beatError).or(rvalid.and(rid.gt(FETCH_ID))), () -> rdErr.set(true));

    // ---- write bursts
    Bool awFire = wire("awFire", awValid.and(awready));
    when(awFire, () -> awValid.set(false));
    when(wFire, () -> wBufValid.set(false));
    Bool opensWrite = wire("opensWrite", takeWrite.and(writeMatch.not()));
    when(opensWrite, () -> {
      awValid.set(true);
      awAddr.set(hAddr);
      awLen.set(beats.sub(1).resize(8));
      wOpen.set(beats.gt(1));
      wNext.set(nextAddr);
      wLeft.set(beats.sub(1));
    });
    when(takeWrite, () -> {
      wBufValid.set(true);
      wBufData.set(hWdata);
      wBufStrb.set(hWstrb);
      wBufLast.set(mux(writeMatch, wLeft.eq(1), beats.eq(1)));
    });
    when(takeWrite.and(writeMatch), () -> {
      wNext.set(wNext.add(line));
      wLeft.set(wLeft.sub(1));
      when(wLeft.eq(1), () -> wOpen.set(false));
    });
    when(cutWrite, () -> {
      wOpen.set(false);
      padLeft.set(wLeft);
    });
    // null beats of a cut burst
    when(wOpen.not().and(padLeft.ne(0)).and(wBufFree), () -> {
      wBufValid.set(true);
      wBufData.set(uintLit(0, 8 * line));
      wBufStrb.set(bitsLit(0, line));
      wBufLast.set(padLeft.eq(1));
      padLeft.set(padLeft.sub(1));
    });
    bready.set(true);
    when(opensWrite.and(bvalid.not()), () -> bPending.set(bPending.add(1)))
        .elseWhen(opensWrite.not().and(bvalid), () -> bPending.set(bPending.sub(1)));
    when(clearErrors, () -> wrErr.set(false))
        .elseWhen(bvalid.and(bresp.ne(0).or(bid.ne(0))), () -> wrErr.set(true));

    // ---- ports
    arvalid.set(arValid);
    arid.set(mux(arFetch, uintLit(FETCH_ID, ID_BITS), uintLit(0, ID_BITS)));
    araddr.set(arAddr);
    arlen.set(arLen);
    arsize.set(uintLit(size, 3));
    arburst.set(uintLit(1, 2));
    awvalid.set(awValid);
    awid.set(uintLit(0, ID_BITS));
    awaddr.set(awAddr);
    awlen.set(awLen);
    awsize.set(uintLit(size, 3));
    awburst.set(uintLit(1, 2));
    wvalid.set(wBufValid);
    wdata.set(wBufData);
    wstrb.set(wBufStrb);
    wlast.set(wBufLast);
    respValid.set(respV);
    respData.set(respD);
    readError.set(rdErr);
    writeError.set(wrErr);
    idle.set(req.empty.and(bursts.eq(0)).and(rdOpen.not()).and(arValid.not()).and(writesQuiet).and(respV.not()));
  }

  /**
   * The pacing gap of the request offered now: the cycles since the previous accepted request (at most
   * {@link #maxGap}) when the NPU offered nothing in the cycle after that one (it paces itself, as {@code load4}
   * and the PPM's loads do), else 1.
   */
  private UInt requestGap() {
    Bool handshake = wire("reqHandshake", reqValid.and(reqReady));
    UInt since = regInit("sinceRequest", uint(GAP_BITS), maxGap);
    Bool afterHandshake = regInit("afterRequest", bool(), 0);
    Bool paced = regInit("requesterPaced", bool(), 0);
    afterHandshake.set(handshake);
    when(handshake, () -> since.set(uintLit(1, GAP_BITS)))
        .elseWhen(since.ne(maxGap), () -> since.set(since.add(1)));
    when(afterHandshake, () -> paced.set(reqValid.not()));
    return wire("reqGap", mux(afterHandshake.not().and(paced), since, uintLit(1, GAP_BITS)));
  }

  @Override
  public String moduleName() {
    return "NpuAxiMaster_l" + line;
  }

  /** Synthesized inside the NPU's AXI top: its request paths continue into the NPU's DMA. */
  @Override
  public boolean flattenInSynthesis() {
    return true;
  }
}
