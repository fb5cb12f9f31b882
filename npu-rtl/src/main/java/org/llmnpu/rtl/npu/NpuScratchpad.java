package org.llmnpu.rtl.npu;

import static org.llmnpu.hdl.Hw.bool;
import static org.llmnpu.hdl.Hw.mux;
import static org.llmnpu.hdl.Hw.uint;

import java.util.ArrayList;
import java.util.List;
import org.llmnpu.hdl.Bits;
import org.llmnpu.hdl.Bool;
import org.llmnpu.hdl.HwModule;
import org.llmnpu.hdl.Mem;
import org.llmnpu.hdl.UInt;
import org.llmnpu.isa.MachineParams;

/**
 * The {@link Npu}'s scratchpad unit: {@code spadBanks} memories of {@code rows}-byte lines, line {@code l} in
 * bank {@code l mod banks}, with the NPU's one write arbiter and its read ports, all addressed by line.
 *
 * <p><b>Write arbiter.</b> One line is written a cycle, with a byte mask: the first valid request of
 * {@link #drain} (GEMM results), {@link #load4Second} (the second line of a {@code load4} beat),
 * {@link #load4First}, {@link #dspOut}, {@link #ppm} and {@link #load} (a load response), in that priority. The
 * controller's dispatch rules keep them apart (a LOAD waits for the drain; a DSPOUT beside a drain pauses it,
 * {@link NpuBackEnd#loadBusy}, or beside a drain through the PPM waits for it; the others run in their own controller
 * states), so the priority only orders the multiplexers; {@link #load4First}, {@link #dspOut} and {@link #load}
 * write at the DMA's scratchpad walk, {@link #walkLine}. The line is chosen among the requests that carry one
 * (drain, {@link #load4Second}, {@link #ppm}, else the walk's), so {@link #ppm} must not be valid together with
 * {@link #load4First} or {@link #dspOut} (it never is: they run in different controller states).
 *
 * <p><b>Reads.</b> {@link #readData} is line {@link #walkLine}, or the {@link #drain}'s line while
 * {@link #drainReads} (the accumulate-into drain reads the old line it overwrites); {@link #drainOldLine} is the
 * same data selected by the bank bits of the drain's line (equal to {@link #readData} while {@link #drainReads}),
 * so the drain's bank select does not wait for the read address multiplexer. With {@code ppmGate} the drain reads
 * {@link #drainReadLine} instead of its write line (a gated drain reads the gate line of the codes it feeds).
 * {@code extraReadPorts} more ports ({@link #extraReadLines}, {@link #extraReadData}) serve the GEMM's W copy of
 * several rows a cycle. All reads are asynchronous (data in the cycle of the address: latency 0); a write shows from
 * the next cycle. Each bank is one memory in the Verilog, so the PPA flow black-boxes it as an SRAM macro (with its
 * read ports).
 */
public final class NpuScratchpad extends HwModule {
  public final SpadWrite drain;
  public final SpadWrite load4Second;
  public final SpadWrite load4First;
  public final SpadWrite dspOut;
  public final SpadWrite ppm;
  public final SpadWrite load;
  /** The DMA's scratchpad walk: the line of {@link #load4First}, {@link #dspOut}, {@link #load} and of reads. */
  public final UInt walkLine;
  /** The drain reads its line (instead of {@link #walkLine}). */
  public final Bool drainReads = in(bool());
  /** With {@code ppmGate} (else null): the line the drain reads; without it the drain reads its write line. */
  public final UInt drainReadLine;
  /** A line is written this cycle (some request is valid). */
  public final Bool write = out(bool());
  public final UInt readData;
  public final UInt drainOldLine;
  public final List<UInt> extraReadLines = new ArrayList<>();
  public final List<UInt> extraReadData = new ArrayList<>();
  private final MachineParams p;
  private final int extraReadPorts;
  private final boolean gate;

  /** The scratchpad of configuration {@code c}, with {@code c.weightRowsPerCycle() − 1} extra read ports. */
  public NpuScratchpad(NpuConfig c) {
    p = c.machine();
    extraReadPorts = c.weightRowsPerCycle() - 1;
    gate = c.ppmGate();
    int line = p.lineBytes();
    int spadLines = p.spadBytes() / line;
    int bankBits = Integer.numberOfTrailingZeros(p.spadBanks());
    int lineAddrBits = Integer.numberOfTrailingZeros(spadLines);
    drain = slave(new SpadWrite(line, lineAddrBits));
    load4Second = slave(new SpadWrite(line, lineAddrBits));
    load4First = slave(new SpadWrite(line, 0));
    dspOut = slave(new SpadWrite(line, 0));
    ppm = slave(new SpadWrite(line, lineAddrBits));
    load = slave(new SpadWrite(line, 0));
    walkLine = in(uint(lineAddrBits));
    drainReadLine = gate ? in("drainReadLine", uint(lineAddrBits)) : null;
    readData = out(uint(8 * line));
    drainOldLine = out(uint(8 * line));
    for (int i = 1; i <= extraReadPorts; i++) {
      extraReadLines.add(in("readLine" + i, uint(lineAddrBits)));
      extraReadData.add(out("readData" + i, uint(8 * line)));
    }

    UInt drainLine = gate ? drainReadLine : drain.line;
    UInt readLine = wire("readLine", mux(drainReads, drainLine, walkLine));
    write.set(load.valid.or(drain.valid).or(load4First.valid).or(load4Second.valid)
        .or(dspOut.valid).or(ppm.valid));
    UInt writeLine = wire("writeLine", mux(drain.valid, drain.line, mux(load4Second.valid, load4Second.line,
        mux(ppm.valid, ppm.line, walkLine))));
    UInt writeData = wire("writeData", mux(drain.valid, drain.data, mux(load4Second.valid, load4Second.data,
        mux(load4First.valid, load4First.data, mux(dspOut.valid, dspOut.data, mux(ppm.valid, ppm.data,
        load.data))))));
    Bits writeMask = wire("writeMask", mux(drain.valid, drain.mask, mux(load4Second.valid, load4Second.mask,
        mux(load4First.valid, load4First.mask, mux(dspOut.valid, dspOut.mask, mux(ppm.valid, ppm.mask,
        load.mask))))));

    List<UInt> bankRead = new ArrayList<>();
    List<List<UInt>> extraBankRead = new ArrayList<>();
    for (int i = 0; i < extraReadPorts; i++) {
      extraBankRead.add(new ArrayList<>());
    }
    for (int b = 0; b < p.spadBanks(); b++) {
      Mem<UInt> bank = mem("bank" + b, uint(8 * line), spadLines / p.spadBanks());
      Bool selected = bankBits == 0 ? write : write.and(writeLine.lsbs(bankBits).eq(b));
      UInt row = bankBits == 0 ? writeLine : writeLine.slice(lineAddrBits - 1, bankBits);
      UInt readRow = bankBits == 0 ? readLine : readLine.slice(lineAddrBits - 1, bankBits);
      when(selected, () -> bank.write(row, writeData, writeMask));
      bankRead.add(bank.readAsync(readRow));
      for (int i = 0; i < extraReadPorts; i++) {
        UInt l = extraReadLines.get(i);
        extraBankRead.get(i).add(bank.readAsync(bankBits == 0 ? l : l.slice(lineAddrBits - 1, bankBits)));
      }
    }
    readData.set(select(bankRead, readLine, bankBits));
    drainOldLine.set(select(bankRead, drainLine, bankBits));
    for (int i = 0; i < extraReadPorts; i++) {
      extraReadData.get(i).set(select(extraBankRead.get(i), extraReadLines.get(i), bankBits));
    }
  }

  /** Synthesized inside the NPU's top: its paths continue through the other units. */
  @Override
  public boolean flattenInSynthesis() {
    return true;
  }

  @Override
  public String moduleName() {
    return "NpuScratchpad_l" + p.lineBytes() + "_s" + p.spadBytes() / 1024 + "k_b" + p.spadBanks()
        + (extraReadPorts == 0 ? "" : "_r" + (extraReadPorts + 1)) + (gate ? "_g" : "");
  }

  /** A byte mask of {@code bytes} ones (a 64-bit literal of ones does not fit a signed long). */
  static Bits allBytes(int bytes) {
    return bytes < 64 ? org.llmnpu.hdl.Hw.bitsLit((1L << bytes) - 1, bytes)
        : org.llmnpu.hdl.Hw.uintLit(java.math.BigInteger.ONE.shiftLeft(bytes).subtract(java.math.BigInteger.ONE), bytes)
            .asBits();
  }

  /** The read data of the bank of {@code line}. */
  private static UInt select(List<UInt> bankRead, UInt line, int bankBits) {
    UInt data = bankRead.get(0);
    if (bankBits > 0) {
      UInt sel = line.lsbs(bankBits);
      for (int b = 1; b < bankRead.size(); b++) {
        data = mux(sel.eq(b), bankRead.get(b), data);
      }
    }
    return data;
  }
}
