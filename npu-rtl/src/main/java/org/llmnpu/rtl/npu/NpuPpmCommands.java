package org.llmnpu.rtl.npu;

import static org.llmnpu.hdl.Hw.bitsToHold;
import static org.llmnpu.hdl.Hw.bool;
import static org.llmnpu.hdl.Hw.cat;
import static org.llmnpu.hdl.Hw.mux;
import static org.llmnpu.hdl.Hw.uint;
import static org.llmnpu.hdl.Hw.uintLit;

import java.util.List;
import org.llmnpu.hdl.Bits;
import org.llmnpu.hdl.Bool;
import org.llmnpu.hdl.UInt;
import org.llmnpu.isa.Opcode;

/**
 * The {@link Npu}'s PPM commands around the {@link NpuPpm} datapath, with their decode checks
 * ({@link NpuPpmDecode}): {@code ppmcfg} and {@code pputab} stream their beats (PPM_LOAD) and end with
 * the last item ({@code ppmcfg}: channel {@code first + i} for record i); {@code ppm} walks its source rows one
 * line a cycle into the PPM (PPM_RUN), then waits for the last codes (PPM_DRAIN): line q of row i leaves the PPM
 * as {@code line/4} codes written with byte enables at {@code dst + i·dstStride + q·line/4} (masked to N). The PPM's
 * input is shared with the GEMM back-end's fused drain ({@link NpuBackEnd}), which never runs during a {@code ppm}
 * or {@code pputab} (they wait for the back-end); a {@code ppmcfg} may run beside it when it writes the parameter
 * bank ({@code ppm_bank}, word 4) the drain does not read. Cycles: {@code org.llmnpu.isa.CycleModel} ({@code ppmLoad}, {@code ppm}).
 */
final class NpuPpmCommands {
  final NpuPpm unit;
  final NpuPpmDecode dec;
  /** The PPM writes a {@code ppm}'s output codes into the scratchpad this cycle. */
  final Bool write;
  /** Scratchpad line of that write. */
  final UInt writeLine;
  /** Its byte enables. */
  final Bits writeMask;
  final UInt lanes;
  private final NpuController npu;
  private final Bool table;
  private final UInt index;
  private final UInt first;
  /** The parameter bank the {@code ppmcfg} writes (word 4). */
  private final Bool bank;
  private final UInt items;
  private final UInt lastLine;
  private final UInt outLine;
  private final UInt m;
  private final UInt outRow;
  private final UInt dst;
  private final UInt dstStride;

  NpuPpmCommands(NpuController npu, NpuConfig c) {
    this.npu = npu;
    Walker sp = npu.dma.sp;
    int itemBits = bitsToHold(Math.max(npu.p.ppmChannels(), NpuPpm.config(npu.p, c.ppu()).lutEntries()));
    table = npu.reg0("ppm_isTable", bool());
    index = npu.reg0("ppm_index", uint(itemBits));
    // first only offsets the channel (first + index, the channel port's width): a register as wide as the channel
    first = npu.reg0("ppm_first", uint(Math.min(itemBits, channelBits(npu))));
    bank = npu.reg0("ppm_bank", bool());
    items = npu.reg0("ppm_items", uint(itemBits));
    lanes = npu.reg0("ppm_n", uint(bitsToHold(npu.p.rows())));
    lastLine = npu.reg0("ppm_lastLine", uint(2));
    outLine = npu.reg0("ppm_outLine", uint(2));
    m = npu.reg0("ppm_m", uint(16));
    outRow = npu.reg0("ppm_outRow", uint(16));
    dst = npu.reg0("ppm_dst", uint(Npu.ADDR));
    dstStride = npu.reg0("ppm_dstStride", uint(Npu.ADDR));
    Bool inLoad = npu.inPpmLoad;
    NpuBackEnd back = npu.back;
    Bool feed = npu.wireOf("ppm_feed", npu.inPpmRun.or(npu.io(back.ppmFeed)));
    // a wide PPM (line lanes) takes a ppm's source line (line/4 INT32) in each quarter of its lanes, group 0
    int copies = NpuPpm.lanes(npu.p) / NpuPpm.quarter(npu.p);
    UInt runLine = copies == 1 ? npu.io(npu.spad.readData)
        : npu.wireOf("ppm_runLine", cat(java.util.Collections.nCopies(copies, npu.io(npu.spad.readData))
            .toArray(new org.llmnpu.hdl.HwValue[0])).asUInt());
    UInt feedLine = npu.wireOf("ppm_feedLine", mux(npu.inPpmRun, runLine, npu.io(back.ppmLine)));
    UInt groupOfRun = copies == 1 ? sp.beat.lsbs(2).resize(npu.io(back.ppmGroup).width())
        : uintLit(0, npu.io(back.ppmGroup).width());
    UInt feedGroup = npu.wireOf("ppm_feedGroup", mux(npu.inPpmRun, groupOfRun, npu.io(back.ppmGroup)));
    // a ppm reads bank 0, a fused drain its GEMM's bank
    Bool feedBank = npu.wireOf("ppm_feedBank", npu.inPpmRun.not().and(npu.io(back.ppmBank)));
    // first + index < ppmChannels (the decode's range check): the channel port's width
    UInt channel = npu.wireOf("ppm_channel", first.resize(itemBits).add(index).resize(channelBits(npu)));
    unit = npu.section2("ppmPath", () -> new NpuPpm(npu, c, npu.inState(Npu.State.IDLE).and(npu.start),
        inLoad, table, inLoad.and(npu.resp), npu.mem_resp_data, npu.fire, channel, bank, index, feed, feedLine,
        feedGroup, feedBank));
    dec = new NpuPpmDecode(npu, npu.p, npu.fetch.words, npu.fetch.opcode.eq(Opcode.GEMM.code()), unit.tableLoaded,
        unit.config.lutEntries(), itemBits);
    write = npu.wireOf("ppm_write", unit.outValid.and(npu.inPpmRun.or(npu.inPpmDrain)));
    writeLine = npu.wireOf("ppm_writeLine", dst.slice(npu.lineShift + npu.lineAddrBits - 1, npu.lineShift));
    int line = npu.line;
    int laneShift = Integer.numberOfTrailingZeros(NpuPpm.quarter(npu.p));
    Bits ones = NpuScratchpad.allBytes(line);
    int nBits = lanes.width();
    Bits rowMask = npu.wireOf("ppm_rowMask", ones.shiftRight(uintLit(line, nBits + 1).sub(lanes.resize(nBits + 1))));
    Bits laneBytes = NpuScratchpad.allBytes(NpuPpm.quarter(npu.p)).asUInt().resize(line).asBits();
    UInt offset = outLine.resize(2 + laneShift).shiftLeft(laneShift).resize(2 + laneShift);
    writeMask = npu.wireOf("ppm_writeMask", laneBytes.shiftLeft(offset).and(rowMask));
  }

  /** Statements of the dispatch of a {@code ppmcfg} or {@code pputab}. */
  void dispatchLoad() {
    npu.dma.stream(dec.loadBeats, Npu.State.PPM_LOAD);
    table.set(dec.isPpuTab);
    items.set(dec.items);
    index.set(uintLit(0, index.width()));
    first.set(mux(dec.isPpuTab, uintLit(0, first.width()), npu.fetch.words.get(3).resize(first.width())));
    bank.set(dec.cfgBank);
  }

  /** Statements of the dispatch of a {@code ppm}. */
  void dispatchRun() {
    List<UInt> w = npu.fetch.words;
    NpuDma dma = npu.dma;
    dma.sp.begin(w.get(1));
    dma.spadStride.set(w.get(2));
    dma.spadStep.set(dma.lineConst);
    dma.rows.set(dec.m);
    dma.beats.set(dec.linesPerRow);
    lanes.set(dec.n.resize(lanes.width()));
    lastLine.set(dec.linesPerRow.sub(1).lsbs(2));
    outLine.set(uintLit(0, outLine.width()));
    m.set(dec.m);
    outRow.set(uintLit(0, outRow.width()));
    dst.set(w.get(3));
    dstStride.set(w.get(4));
    npu.state.set(Npu.st(Npu.State.PPM_RUN));
  }

  /** Statements of PPM_LOAD: the beats' requests, the items; the command ends with the last item. */
  void loadStep() {
    npu.whenDo(npu.fire, npu.dma.ext::advance);
    npu.whenDo(unit.item, () -> {
      index.set(index.add(1));
      npu.whenDo(index.eq(items.sub(1)), npu.fetch::next);
    });
  }

  /** Statements of PPM_RUN: one source line a cycle; output lines as they leave the PPM. */
  void runStep() {
    Walker sp = npu.dma.sp;
    sp.advance();
    npu.whenDo(sp.last(), () -> npu.state.set(Npu.st(Npu.State.PPM_DRAIN)));
    npu.whenDo(write, this::nextOutput);
  }

  /** Statements of PPM_DRAIN: the command ends with the last line of its last output row. */
  void drainStep() {
    npu.whenDo(write, () -> {
      nextOutput();
      npu.whenDo(outLine.eq(lastLine).and(outRow.eq(m.sub(1))), npu.fetch::next);
    });
  }

  private void nextOutput() {
    npu.whenElse(outLine.eq(lastLine), () -> {
      outLine.set(uintLit(0, outLine.width()));
      dst.set(dst.add(dstStride));
      outRow.set(outRow.add(1));
    }, () -> outLine.set(outLine.add(1)));
  }

  /** The PPM channel port's width: {@code first + index < ppmChannels} (the decode's range check). */
  private static int channelBits(NpuController npu) {
    return Math.max(1, 32 - Integer.numberOfLeadingZeros(npu.p.ppmChannels() - 1));
  }
}
