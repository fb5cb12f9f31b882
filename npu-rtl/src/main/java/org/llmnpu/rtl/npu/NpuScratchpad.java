package org.llmnpu.rtl.npu;

import static org.llmnpu.hdl.Hw.bits;
import static org.llmnpu.hdl.Hw.bool;
import static org.llmnpu.hdl.Hw.mux;
import static org.llmnpu.hdl.Hw.uint;

import java.util.ArrayList;
import java.util.List;
import org.llmnpu.hdl.Bits;
import org.llmnpu.hdl.Bool;
import org.llmnpu.hdl.Mem;
import org.llmnpu.hdl.UInt;
import org.llmnpu.isa.MachineParams;

/**
 * The {@link Npu}'s scratchpad: {@code spadBanks} memories of {@code rows}-byte lines, line
 * {@code l} in bank {@code l mod banks}; one write port with a byte mask and one asynchronous
 * read port, addressed by line; {@code extraReadPorts} more asynchronous read ports ({@link #extraReadLines},
 * {@link #extraReadData}: the GEMM's W copy of several rows a cycle). Each bank is one memory in the
 * Verilog, so the PPA flow black-boxes it as an SRAM macro (with its read ports).
 */
final class NpuScratchpad {
  final UInt readLine;
  final Bool write;
  final UInt writeLine;
  final UInt writeData;
  final Bits writeMask;
  final UInt readData;
  final List<UInt> extraReadLines = new ArrayList<>();
  final List<UInt> extraReadData = new ArrayList<>();
  private final Npu npu;
  private final List<UInt> bankRead;
  private final int bankBits;

  NpuScratchpad(Npu npu, MachineParams p, int extraReadPorts) {
    this.npu = npu;
    int line = p.lineBytes();
    int lineBits = 8 * line;
    int spadLines = p.spadBytes() / line;
    bankBits = Integer.numberOfTrailingZeros(p.spadBanks());
    int lineAddrBits = Integer.numberOfTrailingZeros(spadLines);
    readLine = npu.wireOf("spad_readLine", uint(lineAddrBits));
    write = npu.wireOf("spad_write", bool());
    writeLine = npu.wireOf("spad_writeLine", uint(lineAddrBits));
    writeData = npu.wireOf("spad_writeData", uint(lineBits));
    writeMask = npu.wireOf("spad_writeMask", bits(line));
    for (int i = 1; i <= extraReadPorts; i++) {
      extraReadLines.add(npu.wireOf("spad_readLine" + i, uint(lineAddrBits)));
    }
    bankRead = new ArrayList<>();
    List<List<UInt>> extraBankRead = new ArrayList<>();
    for (int i = 0; i < extraReadPorts; i++) {
      extraBankRead.add(new ArrayList<>());
    }
    for (int b = 0; b < p.spadBanks(); b++) {
      Mem<UInt> bank = npu.memOf("spad_bank" + b, uint(lineBits), spadLines / p.spadBanks());
      Bool selected = bankBits == 0 ? write : write.and(writeLine.lsbs(bankBits).eq(b));
      UInt row = bankBits == 0 ? writeLine : writeLine.slice(lineAddrBits - 1, bankBits);
      UInt readRow = bankBits == 0 ? readLine : readLine.slice(lineAddrBits - 1, bankBits);
      npu.whenDo(selected, () -> bank.write(row, writeData, writeMask));
      bankRead.add(bank.readAsync(readRow));
      for (int i = 0; i < extraReadPorts; i++) {
        UInt l = extraReadLines.get(i);
        extraBankRead.get(i).add(bank.readAsync(bankBits == 0 ? l : l.slice(lineAddrBits - 1, bankBits)));
      }
    }
    readData = npu.wireOf("spad_readData", select(bankRead, readLine, bankBits));
    for (int i = 0; i < extraReadPorts; i++) {
      extraReadData.add(npu.wireOf("spad_readData" + (i + 1), select(extraBankRead.get(i), extraReadLines.get(i),
          bankBits)));
    }
  }

  /**
   * The read port's data selected by the bank bits of {@code line} instead of {@link #readLine}'s: equal to
   * {@link #readData} whenever {@code line} is the line being read, for a reader whose line comes straight from
   * its own registers (the accumulate-into drain), so the bank select does not wait for the read port's
   * address multiplexer.
   */
  UInt readDataAt(UInt line, String name) {
    return npu.wireOf(name, select(bankRead, line, bankBits));
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
