package org.llmnpu.spinal

import spinal.core._
import spinal.lib._
import spinal.lib.bus.amba4.axilite._

/**
 * The NPU's control registers as an AXI4-Lite slave, built from SpinalHDL's AxiLite4SlaveFactory.
 *
 * Register map (32-bit registers, byte addresses; reads of unmapped addresses return 0, writes to them are
 * ignored, both answered OKAY):
 *  - 0x00 ID (RO): 0x4E505501 ("NPU", version 1)
 *  - 0x04 PROG_BASE (RW, reset 0): byte address of the program in external memory
 *  - 0x08 PROG_LEN (RW, reset 0): program length in bytes
 *  - 0x0C CTRL (WO): bit 0 START; a write with bit 0 set while STATUS.busy is 0 pulses `start` for one cycle
 *  - 0x10 STATUS (RO): bit 0 busy (from the NPU), bit 1 done and bit 2 error (sticky, cleared by the next
 *    start), bits 15:8 the error cause latched with the error
 *  - 0x14 IRQ_ENABLE (RW, reset 0): bit 0 done, bit 1 error
 *  - 0x18 IRQ_STATUS (RO, write 1 to clear): bit 0 done, bit 1 error; set by the NPU's done/error pulses
 *    (a set and a clear in the same cycle leave the bit set); `irq` = OR of IRQ_STATUS AND IRQ_ENABLE
 *  - 0x20 + 4i, i < counterCount (RO): the NPU's performance counters as given on `counters`
 *
 * Latency (checked by NpuControlRegsTest with a host always ready): a write is answered (B) in the cycle after AW
 * and W are accepted together, a read (R) in the cycle after AR: 2 cycles an access. `start` is registered
 * (one cycle after the CTRL write is accepted); `irq` one cycle after the done/error pulse. Byte strobes are
 * ignored (whole registers are written).
 */
case class NpuControlRegs(counterCount: Int = 4) extends Component {
  require(counterCount >= 1 && counterCount <= 8, s"counterCount must be in 1..8, got $counterCount")

  val io = new Bundle {
    val ctrl = slave(AxiLite4(AxiLite4Config(addressWidth = 8, dataWidth = 32)))
    val start = out Bool()
    val progBase = out UInt (32 bits)
    val progLen = out UInt (32 bits)
    val busy = in Bool()
    val done = in Bool()
    val error = in Bool()
    val errorCause = in Bits (8 bits)
    val counters = in Vec(UInt(32 bits), counterCount)
    val irq = out Bool()
  }
  AxiLite4SpecRenamer(io.ctrl)

  val bus = new AxiLite4SlaveFactory(io.ctrl)
  bus.read(B(0x4e505501L, 32 bits), 0x00)
  io.progBase := bus.createReadAndWrite(UInt(32 bits), 0x04) init (0)
  io.progLen := bus.createReadAndWrite(UInt(32 bits), 0x08) init (0)

  val startRequest = bus.createAndDriveFlow(Bool(), 0x0c)
  val startPulse = RegNext(startRequest.valid && startRequest.payload && !io.busy) init (False)
  io.start := startPulse

  val status = new Area {
    val done = RegInit(False) setWhen (io.done) clearWhen (startPulse)
    val error = RegInit(False) setWhen (io.error) clearWhen (startPulse)
    val cause = RegInit(B(0, 8 bits))
    when(io.error) {
      cause := io.errorCause
    }
    bus.read(io.busy, 0x10, 0)
    bus.read(done, 0x10, 1)
    bus.read(error, 0x10, 2)
    bus.read(cause, 0x10, 8)
  }

  val interrupt = new Area {
    val enable = bus.createReadAndWrite(Bits(2 bits), 0x14) init (0)
    val pending = bus.createReadAndClearOnSet(Bits(2 bits), 0x18) init (0)
    pending(0).setWhen(io.done)
    pending(1).setWhen(io.error)
    io.irq := RegNext((pending & enable).orR) init (False)
  }

  for (i <- 0 until counterCount) {
    bus.read(io.counters(i), 0x20 + 4 * i)
  }
}
