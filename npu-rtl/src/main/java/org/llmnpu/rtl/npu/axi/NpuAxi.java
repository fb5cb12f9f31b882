package org.llmnpu.rtl.npu.axi;

import static org.llmnpu.hdl.Hw.bits;
import static org.llmnpu.hdl.Hw.bool;
import static org.llmnpu.hdl.Hw.uint;

import org.llmnpu.hdl.Bits;
import org.llmnpu.hdl.Bool;
import org.llmnpu.hdl.HwModule;
import org.llmnpu.hdl.ImportedVerilog;
import org.llmnpu.hdl.UInt;
import org.llmnpu.rtl.npu.Npu;
import org.llmnpu.rtl.npu.NpuConfig;
import org.llmnpu.spinal.SpinalIp;

/**
 * The NPU as SoC IP ({@code bus=axi}; {@code ./npu generate npu -p bus=axi}): the {@link Npu} with an AXI4 master
 * for its memory ({@code m_axi_*}, {@link NpuAxiMaster}), SpinalHDL's AXI4-Lite control registers
 * ({@code ctrl_*}, {@code NpuControlRegs} of module spinal-ip, imported Verilog) and an {@code irq} output. A wiring
 * list: the NPU ({@code npu}), the master ({@code mem}), the run's status and counter scan ({@code status},
 * {@link NpuAxiStatus}) and the registers ({@code regs}).
 *
 * <p>Register map (byte offsets, 32-bit registers): 0x00 ID {@code 0x4E505501}; 0x04 PROG_BASE; 0x08 PROG_LEN (kept
 * for the host; the NPU runs until its {@code halt}); 0x0C CTRL (bit 0 START, ignored while busy); 0x10 STATUS (bit 0
 * busy, bit 1 done, bit 2 error, bits 15:8 the error cause: {@code ErrorCause} 1..7, 8 a bus read error, 9 a bus
 * write error); 0x14 IRQ_ENABLE (bit 0 done, bit 1 error); 0x18 IRQ_STATUS (write 1 to clear); 0x20..0x2C the
 * counters {@link NpuAxiStatus#SHOWN} (cycles, commands, MACs, memory stall cycles; 32 bits, saturated).
 *
 * <p>Cycles: a CTRL write's START reaches the NPU one cycle after the write's handshake (the registers' start is
 * registered); the NPU's end reaches {@code irq} {@link NpuAxiStatus#SETTLE} + 2 cycles after {@code finished} and
 * the master's last write response (the status pulse, the pending bit, the registered {@code irq}).
 */
public final class NpuAxi extends HwModule {
  public final Bool irq = out("irq", bool());
  private final NpuConfig config;

  public NpuAxi(NpuConfig c) {
    config = c;
    int line = c.machine().lineBytes();
    // the imported registers first: their file's `timescale then applies to every file after it (Verilator's
    // TIMESCALEMOD wants all modules or none to have one)
    ImportedVerilog regs = instance("regs", SpinalIp.npuControlRegs());
    Npu npu = instance("npu", new Npu(c));
    NpuAxiMaster mem = instance("mem", new NpuAxiMaster(line));
    NpuAxiStatus status = instance("status", new NpuAxiStatus());

    // NPU ↔ master
    mem.reqValid.set(npu.mem_req_valid);
    npu.mem_req_ready.set(mem.reqReady);
    mem.reqWrite.set(npu.mem_req_write);
    mem.reqAddr.set(npu.mem_req_addr);
    mem.reqWdata.set(npu.mem_req_wdata);
    mem.reqWstrb.set(npu.mem_req_wstrb);
    mem.reqRun.set(npu.mem_req_run);
    mem.reqFetch.set(npu.mem_req_fetch);
    npu.mem_resp_valid.set(mem.respValid);
    npu.mem_resp_data.set(mem.respData);
    mem.flush.set(status.flush);
    mem.clearErrors.set(status.clearErrors);
    // a bus error halts the NPU at once (ERROR; the status reports the bus error's cause)
    npu.bus_abort.set(mem.readError.or(mem.writeError));

    // NPU, master ↔ status
    npu.start.set(status.npuStart);
    status.finished.set(npu.finished);
    status.npuErrorCause.set(npu.errorCause);
    status.busIdle.set(mem.idle);
    status.readError.set(mem.readError);
    status.writeError.set(mem.writeError);
    npu.counterSelect.set(status.counterSelect);
    status.counterValue.set(npu.counterValue);

    // status ↔ registers
    status.start.set(regs.boolPort("io_start"));
    npu.programAddress.set(regs.uintPort("io_progBase"));
    regs.boolPort("io_busy").set(status.busy);
    regs.boolPort("io_done").set(status.done);
    regs.boolPort("io_error").set(status.error);
    regs.uintPort("io_errorCause").set(status.errorCause);
    UInt[] counters = {status.counter0, status.counter1, status.counter2, status.counter3};
    for (int i = 0; i < counters.length; i++) {
      regs.uintPort("io_counters_" + i).set(counters[i]);
    }
    irq.set(regs.boolPort("io_irq"));

    // the buses
    axiLite(regs);
    axi(mem, line);
  }

  private void axiLite(ImportedVerilog regs) {
    for (String name : new String[] {"awvalid", "wvalid", "bready", "arvalid", "rready"}) {
      regs.boolPort("ctrl_" + name).set(in("ctrl_" + name, bool()));
    }
    for (String name : new String[] {"awready", "wready", "bvalid", "arready", "rvalid"}) {
      out("ctrl_" + name, bool()).set(regs.boolPort("ctrl_" + name));
    }
    for (String name : new String[] {"awaddr", "awprot", "wdata", "wstrb", "araddr", "arprot"}) {
      UInt port = regs.uintPort("ctrl_" + name);
      port.set(in("ctrl_" + name, uint(port.width())));
    }
    for (String name : new String[] {"bresp", "rdata", "rresp"}) {
      UInt port = regs.uintPort("ctrl_" + name);
      out("ctrl_" + name, uint(port.width())).set(port);
    }
  }

  private void axi(NpuAxiMaster m, int line) {
    out("m_axi_awvalid", bool()).set(m.awvalid);
    m.awready.set(in("m_axi_awready", bool()));
    out("m_axi_awid", uint(NpuAxiMaster.ID_BITS)).set(m.awid);
    out("m_axi_awaddr", uint(32)).set(m.awaddr);
    out("m_axi_awlen", uint(8)).set(m.awlen);
    out("m_axi_awsize", uint(3)).set(m.awsize);
    out("m_axi_awburst", uint(2)).set(m.awburst);
    out("m_axi_wvalid", bool()).set(m.wvalid);
    m.wready.set(in("m_axi_wready", bool()));
    out("m_axi_wdata", uint(8 * line)).set(m.wdata);
    Bits wstrb = out("m_axi_wstrb", bits(line));
    wstrb.set(m.wstrb);
    out("m_axi_wlast", bool()).set(m.wlast);
    m.bvalid.set(in("m_axi_bvalid", bool()));
    out("m_axi_bready", bool()).set(m.bready);
    m.bid.set(in("m_axi_bid", uint(NpuAxiMaster.ID_BITS)));
    m.bresp.set(in("m_axi_bresp", uint(2)));
    out("m_axi_arvalid", bool()).set(m.arvalid);
    m.arready.set(in("m_axi_arready", bool()));
    out("m_axi_arid", uint(NpuAxiMaster.ID_BITS)).set(m.arid);
    out("m_axi_araddr", uint(32)).set(m.araddr);
    out("m_axi_arlen", uint(8)).set(m.arlen);
    out("m_axi_arsize", uint(3)).set(m.arsize);
    out("m_axi_arburst", uint(2)).set(m.arburst);
    m.rvalid.set(in("m_axi_rvalid", bool()));
    out("m_axi_rready", bool()).set(m.rready);
    m.rid.set(in("m_axi_rid", uint(NpuAxiMaster.ID_BITS)));
    m.rdata.set(in("m_axi_rdata", uint(8 * line)));
    m.rresp.set(in("m_axi_rresp", uint(2)));
    m.rlast.set(in("m_axi_rlast", bool()));
  }

  public NpuConfig config() {
    return config;
  }

  @Override
  public String moduleName() {
    return "NpuAxi" + Npu.nameSuffix(config);
  }
}
