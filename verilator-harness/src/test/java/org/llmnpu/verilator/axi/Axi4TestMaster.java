package org.llmnpu.verilator.axi;

import static org.llmnpu.hdl.Hw.*;

import org.llmnpu.hdl.*;

/**
 * A small AXI4 master (32-bit data) for testing the memory model; what it does is set at run time by input
 * ports, so one Verilator model serves every test. After {@code start} it writes {@code cfg_bursts} bursts of
 * {@code cfg_beats} beats (AxSIZE {@code cfg_size}, AxBURST {@code cfg_burst}) from {@code cfg_base} (beat i
 * of the whole transfer carries {@code 0x10000000 + i}, bursts {@code 4 * cfg_beats} bytes apart), waits for
 * every write response, then reads the same region back with up to {@code cfg_outstanding} reads in flight (AR
 * IDs cycle through 0..3), sums the read data ({@code readSum}, 32-bit wrapping), counts beats, RLASTs and
 * error responses, and raises {@code done}. RREADY follows an LFSR (high 3 cycles in 4 on average), so the
 * master back-pressures too. {@code cfg_fault} ({@link Fault#ordinal()}) makes it break one AXI rule on
 * purpose. AxLEN is 9 bits wide, one more than AXI4's, so that a test can ask for 257 beats.
 */
public final class Axi4TestMaster extends HwModule {
  /** A rule the master breaks on purpose, by {@code cfg_fault}. */
  public enum Fault { NONE, DROP_ARVALID, CHANGE_ARADDR, WLAST_EARLY, WLAST_MISSING }

  static final int LEN_BITS = 9;

  final Bool start = in(bool());
  final UInt cfg_base = in(uint(32));
  final UInt cfg_beats = in(uint(LEN_BITS + 1));
  final UInt cfg_bursts = in(uint(8));
  final UInt cfg_outstanding = in(uint(4));
  final UInt cfg_size = in(uint(3));
  final UInt cfg_burst = in(uint(2));
  final UInt cfg_fault = in(uint(3));
  final Bool done = out(bool());
  final UInt readSum = out(uint(32));
  final UInt readBeats = out(uint(16));
  final UInt readLasts = out(uint(16));
  final UInt errors = out(uint(8));

  final Bool awvalid = out("m_axi_awvalid", bool());
  final Bool awready = in("m_axi_awready", bool());
  final UInt awid = out("m_axi_awid", uint(2));
  final UInt awaddr = out("m_axi_awaddr", uint(32));
  final UInt awlen = out("m_axi_awlen", uint(LEN_BITS));
  final UInt awsize = out("m_axi_awsize", uint(3));
  final UInt awburst = out("m_axi_awburst", uint(2));
  final Bool wvalid = out("m_axi_wvalid", bool());
  final Bool wready = in("m_axi_wready", bool());
  final UInt wdata = out("m_axi_wdata", uint(32));
  final UInt wstrb = out("m_axi_wstrb", uint(4));
  final Bool wlast = out("m_axi_wlast", bool());
  final Bool bvalid = in("m_axi_bvalid", bool());
  final Bool bready = out("m_axi_bready", bool());
  final UInt bid = in("m_axi_bid", uint(2));
  final UInt bresp = in("m_axi_bresp", uint(2));
  final Bool arvalid = out("m_axi_arvalid", bool());
  final Bool arready = in("m_axi_arready", bool());
  final UInt arid = out("m_axi_arid", uint(2));
  final UInt araddr = out("m_axi_araddr", uint(32));
  final UInt arlen = out("m_axi_arlen", uint(LEN_BITS));
  final UInt arsize = out("m_axi_arsize", uint(3));
  final UInt arburst = out("m_axi_arburst", uint(2));
  final Bool rvalid = in("m_axi_rvalid", bool());
  final Bool rready = out("m_axi_rready", bool());
  final UInt rid = in("m_axi_rid", uint(2));
  final UInt rdata = in("m_axi_rdata", uint(32));
  final UInt rresp = in("m_axi_rresp", uint(2));
  final Bool rlast = in("m_axi_rlast", bool());
  public Axi4TestMaster() {
    UInt burstBytes = wire("burstBytes", cfg_beats.shiftLeft(2).resize(32));
    UInt len = wire("len", cfg_beats.sub(1).resize(LEN_BITS));
    UInt phase = regInit("phase", uint(3), 0);  // 0 idle, 1 write, 2 wait for B, 3 read, 4 done
    Bool writing = wire("writing", phase.eq(1));
    Bool readingPhase = wire("readingPhase", phase.eq(3));
    UInt writeAddress = regInit("writeAddress", uint(32), 0);
    UInt readAddress = regInit("readAddress", uint(32), 0);
    when(phase.eq(0).and(start), () -> {
      phase.set(1);
      writeAddress.set(cfg_base);
      readAddress.set(cfg_base);
    });

    // write: one AW and its W beats per burst, a burst after the previous one's AW and W are done
    UInt writeBurst = regInit("writeBurst", uint(8), 0);
    Bool awPending = regInit("awPending", bool(), 1);
    Bool wActive = regInit("wActive", bool(), 1);
    UInt wBeat = regInit("wBeat", uint(LEN_BITS), 0);
    UInt wCount = regInit("wCount", uint(32), 0);
    awvalid.set(writing.and(awPending));
    awid.set(writeBurst.lsbs(2));
    awaddr.set(writeAddress);
    awlen.set(len);
    awsize.set(cfg_size);
    awburst.set(cfg_burst);
    Bool lastBeat = wire("lastBeat", wBeat.eq(len));
    wvalid.set(writing.and(wActive));
    wdata.set(wCount.add(0x1000_0000L));
    wstrb.set(0xF);
    Bool wlastEarly = wire("wlastEarly", cfg_fault.eq(Fault.WLAST_EARLY.ordinal()));
    Bool wlastMissing = wire("wlastMissing", cfg_fault.eq(Fault.WLAST_MISSING.ordinal()));
    wlast.set(mux(wlastEarly, wBeat.add(1).eq(len), lastBeat.and(wlastMissing.not())));
    when(awvalid.and(awready), () -> awPending.set(false));
    when(wvalid.and(wready), () -> {
      wBeat.set(wBeat.add(1));
      wCount.set(wCount.add(1));
      when(lastBeat, () -> wActive.set(false));
    });
    when(writing.and(awPending.not()).and(wActive.not()), () -> {
      when(writeBurst.eq(cfg_bursts.sub(1)), () -> phase.set(2)).otherwise(() -> {
        writeBurst.set(writeBurst.add(1));
        writeAddress.set(writeAddress.add(burstBytes));
        awPending.set(true);
        wActive.set(true);
        wBeat.set(0);
      });
    });
    UInt responses = regInit("responses", uint(8), 0);
    UInt errorCount = regInit("errorCount", uint(8), 0);
    bready.set(true);
    when(bvalid, () -> {
      responses.set(responses.add(1));
      when(bresp.ne(0), () -> errorCount.set(errorCount.add(1)));
    });
    when(phase.eq(2).and(responses.eq(cfg_bursts)), () -> phase.set(3));

    // read: up to `outstanding` AR in flight
    UInt issued = regInit("issued", uint(8), 0);
    UInt inFlight = regInit("inFlight", uint(4), 0);
    Bool arWanted = wire("arWanted", readingPhase.and(issued.lt(cfg_bursts)).and(inFlight.lt(cfg_outstanding)));
    Bool waited = regInit("waited", bool(), 0);
    arvalid.set(arWanted.and(waited.and(cfg_fault.eq(Fault.DROP_ARVALID.ordinal())).not()));
    waited.set(arvalid.and(arready.not()));
    araddr.set(readAddress.add(mux(waited.and(cfg_fault.eq(Fault.CHANGE_ARADDR.ordinal())), uintLit(4, 32),
        uintLit(0, 32))));
    arid.set(issued.lsbs(2));
    arlen.set(len);
    arsize.set(cfg_size);
    arburst.set(cfg_burst);
    Bool arFire = wire("arFire", arvalid.and(arready));
    when(arFire, () -> {
      issued.set(issued.add(1));
      readAddress.set(readAddress.add(burstBytes));
    });

    UInt lfsr = regInit("lfsr", uint(16), 0xACE1);
    lfsr.set(cat(lfsr.lsbs(15), lfsr.bit(15).xor(lfsr.bit(13)).xor(lfsr.bit(12)).xor(lfsr.bit(10))).asUInt());
    rready.set(lfsr.bit(0).or(lfsr.bit(1)));
    Bool rFire = wire("rFire", rvalid.and(rready));
    Bool burstEnds = wire("burstEnds", rFire.and(rlast));
    UInt sum = regInit("sum", uint(32), 0);
    UInt beatsRead = regInit("beatsRead", uint(16), 0);
    UInt lastsRead = regInit("lastsRead", uint(16), 0);
    when(rFire, () -> {
      sum.set(sum.add(rdata));
      beatsRead.set(beatsRead.add(1));
      when(rresp.ne(0), () -> errorCount.set(errorCount.add(1)));
    });
    when(burstEnds, () -> lastsRead.set(lastsRead.add(1)));
    when(arFire.and(burstEnds.not()), () -> inFlight.set(inFlight.add(1)))
        .elseWhen(arFire.not().and(burstEnds), () -> inFlight.set(inFlight.sub(1)));
    when(readingPhase.and(lastsRead.eq(cfg_bursts)), () -> phase.set(4));
    done.set(phase.eq(4));
    readSum.set(sum);
    readBeats.set(beatsRead);
    readLasts.set(lastsRead);
    errors.set(errorCount);
  }
}
