package org.llmnpu.rtl.npu;

import static org.llmnpu.hdl.Hw.bitsToHold;
import static org.llmnpu.hdl.Hw.bool;
import static org.llmnpu.hdl.Hw.uint;

import java.util.List;
import org.llmnpu.hdl.Bool;
import org.llmnpu.hdl.UInt;
import org.llmnpu.isa.Opcode;

/**
 * The {@link Npu}'s PPM commands around the {@link NpuPpm} datapath, with their decode checks
 * ({@link NpuPpmDecode}): {@code ppmcfg} and {@code pputab} stream their beats (PPM_LOAD) and end with
 * the last item; {@code ppm} walks its source rows one line a cycle (PPM_RUN), then waits for the
 * last row's codes (PPM_DRAIN), each output row written at {@code dst + i·dstStride}. Cycles:
 * {@code org.llmnpu.isa.CycleModel} ({@code ppmLoad}, {@code ppm}).
 */
final class NpuPpmCommands {
  final NpuPpm unit;
  final NpuPpmDecode dec;
  /** The PPM writes an output row into the scratchpad this cycle. */
  final Bool write;
  /** Scratchpad line of that write. */
  final UInt writeLine;
  final UInt lanes;
  private final Npu npu;
  private final Bool table;
  private final UInt index;
  private final UInt items;
  private final UInt lastLine;
  private final UInt m;
  private final UInt outRow;
  private final UInt dst;
  private final UInt dstStride;

  NpuPpmCommands(Npu npu, NpuConfig c) {
    this.npu = npu;
    Walker sp = npu.dma.sp;
    table = npu.reg0("ppm_isTable", bool());
    index = npu.reg0("ppm_index", uint(8));
    items = npu.reg0("ppm_items", uint(8));
    lanes = npu.reg0("ppm_n", uint(bitsToHold(npu.p.rows())));
    lastLine = npu.reg0("ppm_lastLine", uint(2));
    m = npu.reg0("ppm_m", uint(16));
    outRow = npu.reg0("ppm_outRow", uint(16));
    dst = npu.reg0("ppm_dst", uint(Npu.ADDR));
    dstStride = npu.reg0("ppm_dstStride", uint(Npu.ADDR));
    Bool inLoad = npu.inPpmLoad;
    unit = npu.section2("ppmPath", () -> new NpuPpm(npu, npu.p, c.ppu(), npu.inState(Npu.State.IDLE).and(npu.start),
        inLoad, table, inLoad.and(npu.resp), npu.mem_resp_data, npu.fire, index, npu.inPpmRun,
        sp.beat.lsbs(2), sp.lastInRow(), lastLine, npu.spad.readData, lanes));
    dec = new NpuPpmDecode(npu, npu.p, npu.fetch.words, npu.fetch.opcode.eq(Opcode.GEMM.code()), unit.tableLoaded,
        unit.config.lutEntries());
    write = npu.wireOf("ppm_write", unit.outValid.and(npu.inPpmRun.or(npu.inPpmDrain)));
    writeLine = npu.wireOf("ppm_writeLine", dst.slice(npu.lineShift + npu.lineAddrBits - 1, npu.lineShift));
  }

  /** Statements of the dispatch of a {@code ppmcfg} or {@code pputab}. */
  void dispatchLoad() {
    npu.dma.stream(dec.loadBeats, Npu.State.PPM_LOAD);
    table.set(dec.isPpuTab);
    items.set(dec.items);
    index.set(index.sub(index));
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
    m.set(dec.m);
    outRow.set(outRow.sub(outRow));
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

  /** Statements of PPM_RUN: one source line a cycle; output rows as they leave the PPM. */
  void runStep() {
    Walker sp = npu.dma.sp;
    sp.advance();
    npu.whenDo(sp.last(), () -> npu.state.set(Npu.st(Npu.State.PPM_DRAIN)));
    npu.whenDo(write, this::nextOutput);
  }

  /** Statements of PPM_DRAIN: the command ends with its last output row. */
  void drainStep() {
    npu.whenDo(write, () -> {
      nextOutput();
      npu.whenDo(outRow.eq(m.sub(1)), npu.fetch::next);
    });
  }

  private void nextOutput() {
    dst.set(dst.add(dstStride));
    outRow.set(outRow.add(1));
  }
}
