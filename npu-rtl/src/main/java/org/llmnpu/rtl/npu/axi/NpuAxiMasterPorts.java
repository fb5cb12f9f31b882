package org.llmnpu.rtl.npu.axi;

import static org.llmnpu.hdl.Hw.bits;
import static org.llmnpu.hdl.Hw.bool;
import static org.llmnpu.hdl.Hw.uint;
import static org.llmnpu.rtl.npu.axi.NpuAxiMaster.ADDR;
import static org.llmnpu.rtl.npu.axi.NpuAxiMaster.ID_BITS;

import org.llmnpu.hdl.Bits;
import org.llmnpu.hdl.Bool;
import org.llmnpu.hdl.HwModule;
import org.llmnpu.hdl.UInt;

/**
 * The ports of the {@link NpuAxiMaster}: the NPU's native memory port ({@code req*}, {@code resp*}; one line of
 * {@code line} bytes per request), its control ({@code flush}, {@code clearErrors}) and status ({@code idle},
 * {@code readError}, {@code writeError}), and the AXI4 master's five channels ({@code m_axi_*}, data of the line's
 * width). What they carry and when: {@link NpuAxiMaster}.
 */
abstract class NpuAxiMasterPorts extends HwModule {
  public final Bool reqValid = in(bool());
  public final Bool reqReady = out(bool());
  public final Bool reqWrite = in(bool());
  public final UInt reqAddr = in(uint(ADDR));
  public final UInt reqWdata;
  public final Bits reqWstrb;
  public final UInt reqRun = in(uint(16));
  /** The request is the fetcher's (a command read: ID {@link NpuAxiMaster#FETCH_ID}); else the DMA's (ID 0). */
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
  /** Bytes of a line (of a native request's data and of an AXI beat). */
  final int line;
  /**
   * The largest spacing an NPU requester keeps between its reads, {@code max(2, line/2)} cycles (load4 and the INT4
   * weight stream: 2; the PPM's PPU-table load: {@code line/2} entries a beat): longer gaps count as this, so a
   * delay of the bus is not carried on from beat to beat.
   */
  final int maxGap;

  /** The ports for lines (and AXI data) of {@code lineBytes} bytes, a power of two in 4..64. */
  NpuAxiMasterPorts(int lineBytes) {
    if (lineBytes < 4 || lineBytes > 64 || Integer.bitCount(lineBytes) != 1) {
      throw new IllegalArgumentException("lineBytes must be a power of two in 4..64 (the NPU's rows), got "
          + lineBytes);
    }
    line = lineBytes;
    maxGap = Math.max(2, lineBytes / 2);
    reqWdata = in(uint(8 * line));
    reqWstrb = in(bits(line));
    respData = out(uint(8 * line));
    wdata = out("m_axi_wdata", uint(8 * line));
    wstrb = out("m_axi_wstrb", bits(line));
    rdata = in("m_axi_rdata", uint(8 * line));
  }
}
