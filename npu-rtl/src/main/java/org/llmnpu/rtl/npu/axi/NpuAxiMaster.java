package org.llmnpu.rtl.npu.axi;

import static org.llmnpu.hdl.Hw.bool;
import static org.llmnpu.hdl.Hw.mux;
import static org.llmnpu.hdl.Hw.uint;
import static org.llmnpu.hdl.Hw.uintLit;

import org.llmnpu.hdl.Bool;
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
 *
 * <p>Ports: {@link NpuAxiMasterPorts}; the read and write burst paths: {@link NpuAxiBurstPaths}. This class takes
 * the requests (which burst takes the head request, or opens, or is cut) and drives the AXI address and W ports.
 */
public final class NpuAxiMaster extends NpuAxiBurstPaths {
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

  /** The master for lines (and AXI data) of {@code lineBytes} bytes, a power of two in 4..64. */
  public NpuAxiMaster(int lineBytes) {
    super(lineBytes);
    int size = Integer.numberOfTrailingZeros(lineBytes);

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
    UInt hRun = req.outRun;
    Bool hFetch = req.outFetch;

    // the burst a request would open: min(run, 256, beats to the 4 KiB boundary)
    int pageBeats = 4096 / line;
    int pageBits = 13 - size;
    UInt run = wire("run", mux(hRun.eq(0), uintLit(1, 16), hRun));
    UInt toPage = wire("toPage", uintLit(pageBeats, pageBits).sub(hAddr.slice(11, size).resize(pageBits)));
    UInt beats = wire("burstBeats", run.min(toPage.resize(16)).min(uintLit(MAX_BURST, 16)).resize(9));
    UInt nextAddr = wire("nextAddr", hAddr.add(line));
    Opening open = new Opening(beats, nextAddr);

    // ---- state
    ReadBursts rd = readRegisters();
    WriteBursts wr = writeRegisters();

    // ---- which request is taken
    Bool wFire = wire("wFire", wr.wBufValid.and(wready));
    Bool wBufFree = wire("wBufFree", wr.wBufValid.not().or(wready));
    Bool writesQuiet = wire("writesQuiet", wr.wOpen.not().and(wr.padLeft.eq(0)).and(wr.wBufValid.not())
        .and(wr.awValid.not()).and(wr.bPending.eq(0)));
    Bool readMatch = wire("readMatch", rd.rdOpen.and(hWrite.not()).and(hAddr.eq(rd.rdNext))
        .and(hFetch.eq(rd.rdFetch)));
    Bool writeMatch = wire("writeMatch", wr.wOpen.and(hWrite).and(hAddr.eq(wr.wNext)));
    Bool arFree = wire("arFree", rd.arValid.not().or(arready));
    Bool awFree = wire("awFree", wr.awValid.not().or(awready));
    // two IDs without deadlock: a fetch burst opens when no other fetch burst or no DMA burst is outstanding (so
    // while a DMA burst is, one fetch burst at most, which the FIFO holds whole), a DMA burst when no fetch burst is
    // still on the bus (so an ID-0 beat never waits for an ID-1 beat the slave has not sent)
    Bool idOrderOk = wire("idOrderOk", mux(hFetch, rd.fetchBursts.eq(0).or(rd.bursts.eq(rd.fetchBursts)),
        rd.fetchOnBus.eq(0)));
    Bool readOpens = wire("readOpens", hWrite.not().and(rd.rdOpen.not()).and(arFree)
        .and(rd.bursts.lt(READ_BURSTS)).and(writesQuiet).and(idOrderOk));
    Bool writeOpens = wire("writeOpens", hWrite.and(wr.wOpen.not()).and(rd.rdOpen.not()).and(wr.padLeft.eq(0))
        .and(awFree).and(wr.bPending.lt(WRITE_BURSTS)).and(wBufFree));
    Bool takeRead = wire("takeRead", hValid.and(readMatch.or(readOpens)));
    Bool takeWrite = wire("takeWrite", hValid.and(writeMatch.and(wBufFree).or(writeOpens)));
    req.outTake.set(takeRead.or(takeWrite));
    Bool cutRead = wire("cutRead", rd.rdOpen.and(takeRead.not()).and(flush.or(hValid.and(readMatch.not()))));
    Bool cutWrite = wire("cutWrite", wr.wOpen.and(takeWrite.not()).and(flush.or(hValid.and(writeMatch.not()))));

    // ---- read bursts, write bursts
    readBursts(rd, req, open, takeRead, readMatch, cutRead);
    writeBursts(wr, req, open, takeWrite, writeMatch, cutWrite, wFire, wBufFree);

    // ---- ports
    arvalid.set(rd.arValid);
    arid.set(mux(rd.arFetch, uintLit(FETCH_ID, ID_BITS), uintLit(0, ID_BITS)));
    araddr.set(rd.arAddr);
    arlen.set(rd.arLen);
    arsize.set(uintLit(size, 3));
    arburst.set(uintLit(1, 2));
    awvalid.set(wr.awValid);
    awid.set(uintLit(0, ID_BITS));
    awaddr.set(wr.awAddr);
    awlen.set(wr.awLen);
    awsize.set(uintLit(size, 3));
    awburst.set(uintLit(1, 2));
    wvalid.set(wr.wBufValid);
    wdata.set(wr.wBufData);
    wstrb.set(wr.wBufStrb);
    wlast.set(wr.wBufLast);
    respValid.set(rd.respV);
    respData.set(rd.respD);
    readError.set(rd.rdErr);
    writeError.set(wr.wrErr);
    idle.set(req.empty.and(rd.bursts.eq(0)).and(rd.rdOpen.not()).and(rd.arValid.not()).and(writesQuiet)
        .and(rd.respV.not()));
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
