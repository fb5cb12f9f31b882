package org.llmnpu.rtl.npu;

import static org.llmnpu.hdl.Hw.bits;
import static org.llmnpu.hdl.Hw.bool;
import static org.llmnpu.hdl.Hw.mux;
import static org.llmnpu.hdl.Hw.uint;
import static org.llmnpu.hdl.Hw.uintLit;

import org.llmnpu.hdl.Bits;
import org.llmnpu.hdl.Bool;
import org.llmnpu.hdl.UInt;
import org.llmnpu.hdl.lib.Stream;

/**
 * The {@link Npu}'s DMA (instance {@code dma}, block {@code npu-dma}): its two address walks, their shape, the byte
 * masks of a beat and the one memory port with its arbitration between the DMA's beats and the fetcher's.
 *
 * <p><b>Walks.</b> {@code ext} over the memory and {@code spadWalk} over the scratchpad (also the operand walk of the
 * GEMM, DSP and PPM copies): {@link Walker}s of the same shape — {@code rows} rows of {@code beats} steps,
 * {@code base + row·stride + beat·step} ({@code extStride}/{@code extStep}, {@code spadStride}/{@code spadStep}).
 * The controller starts a walk at a base ({@code *Begin} with {@code *Base}) and advances it ({@code *Advance}),
 * one-cycle pulses in the cycle its state machine decides them; a begin in the same cycle as an advance wins. The
 * shape registers take their {@code *Next} inputs every cycle (the controller holds them by feeding back the
 * current values, {@link #rows}, …): the command's dispatch sets them. {@link #beatMask}: the bytes of the
 * scratchpad walk's beat — all, or on a row's last beat the first {@code remainder} ({@code rowBytes mod line};
 * 0: all).
 *
 * <p><b>The memory port</b> {@code mem_*} (the NPU's, one line per beat). The DMA's running stream has priority
 * from the first cycle of a memory phase ({@link #wants}) until its last beat is accepted ({@code ext}'s
 * {@code finished}): it requests in the cycles it {@link #requests} (pacing gaps: a {@code load4} beat at most every
 * other cycle, {@link #justFired}), a write with {@link #writeData} and {@link #beatMask} when {@link #write}; else
 * the fetcher's {@link #fetchRequest} has the port ({@link #fetchWaits} holds it back during a phase).
 * {@link #fire}: the DMA's request is accepted; {@link #readFire}: it was a read (the fetcher counts the DMA's
 * outstanding reads to route the in-order responses). The responses themselves go to their consumers (scratchpad
 * writes, load4/MX decoders, DSP and PPM streams) through the controller. Cycles: {@code org.llmnpu.isa.CycleModel}
 * ({@code load}, {@code store}, {@code load4}, the streams): one beat per cycle the memory accepts.
 */
public final class NpuDmaUnit extends WalkerHostModule {
  public final Bool extBegin = in(bool());
  public final UInt extBase = in(uint(Npu.ADDR));
  public final Bool extAdvance = in(bool());
  /** The memory walk is at its last beat. */
  public final Bool extLast = out(bool());
  public final Bool spadBegin = in(bool());
  public final UInt spadBase = in(uint(Npu.ADDR));
  public final Bool spadAdvance = in(bool());
  /**
   * The scratchpad walk's line (its byte address's bits {@code log2(line)} .. {@code log2(spadBytes) − 1}): every
   * walk over it is line-aligned (loads, stores, the W copies and streams, program and table loads; the DSP copies,
   * which step within a line, go over the GEMM's operand walk).
   */
  public final UInt spadLine;
  /**
   * The scratchpad walk's row: its low bits that the controller reads (16 with a weight stream, which compares the
   * whole row; else those of the GEMM's operand-buffer addresses, {@code max(mBits, nTileBits)}).
   */
  public final UInt spadRow;
  public final UInt spadBeat = out(uint(16));
  public final Bool spadLastInRow = out(bool());
  public final Bool spadLast = out(bool());
  /** The walks' shape: next values (taken every cycle) and current values. */
  public final UInt rowsNext = in(uint(16));
  public final UInt rows = out(uint(16));
  public final UInt beatsNext = in(uint(16));
  public final UInt beats = out(uint(16));
  public final UInt remainderNext;
  public final UInt remainder;
  public final UInt extStrideNext = in(uint(Npu.ADDR));
  public final UInt extStride = out(uint(Npu.ADDR));
  public final UInt extStepNext = in(uint(Npu.ADDR));
  public final UInt extStep = out(uint(Npu.ADDR));
  public final UInt spadStrideNext = in(uint(Npu.ADDR));
  public final UInt spadStride = out(uint(Npu.ADDR));
  public final UInt spadStepNext = in(uint(Npu.ADDR));
  public final UInt spadStep = out(uint(Npu.ADDR));
  public final Bits beatMask;
  /** A memory phase of the DMA runs (it keeps the port from the fetcher until its last beat is accepted). */
  public final Bool wants = in(bool());
  /** The DMA's stream requests a beat this cycle. */
  public final Bool requests = in(bool());
  /** The stream's beats are writes, of {@link #writeData}. */
  public final Bool write = in(bool());
  public final UInt writeData;
  public final Bool fire = out(bool());
  public final Bool readFire = out(bool());
  /** The DMA's request was accepted in the previous cycle. */
  public final Bool justFired = out(bool());
  /** The fetcher's read requests (the port serves them when the DMA does not want it). */
  public final Stream<UInt> fetchRequest = slave(Stream.of(uint(Npu.ADDR)));
  public final Bool fetchWaits = out(bool());
  public final Bool mem_req_valid = out("mem_req_valid", bool());
  public final Bool mem_req_ready = in("mem_req_ready", bool());
  public final Bool mem_req_write = out("mem_req_write", bool());
  public final UInt mem_req_addr = out("mem_req_addr", uint(Npu.ADDR));
  public final UInt mem_req_wdata;
  public final Bits mem_req_wstrb;
  /**
   * Beats of the contiguous run the request starts (itself included, at least 1): the DMA walk's beats left in its
   * row when its step is one line, the fetcher's beats left in the 32-byte command; the AXI top's burst length
   * ({@code org.llmnpu.rtl.npu.axi.NpuAxiMaster}). With {@code bus=native} it is the constant 1.
   */
  public final UInt mem_req_run = out("mem_req_run", uint(16));
  /** With {@code bus=axi} only (else null): the request is the fetcher's (the AXI master reads it on its own ID). */
  public final Bool mem_req_fetch;
  private final NpuConfig config;

  public NpuDmaUnit(NpuConfig c) {
    config = c;
    int line = c.machine().lineBytes();
    int lineShift = Integer.numberOfTrailingZeros(line);
    int spadAddressBits = Integer.numberOfTrailingZeros(c.machine().spadBytes());
    spadLine = out(uint(Math.max(1, spadAddressBits - lineShift)));
    // the controller reads the walk's row as a W tile (the X copy walks on its own, NpuGemm.xWalk); a stream's
    // column count is compared whole
    int rowBits = c.weightStream() ? 16 : Math.max(1, c.gemm().nTileBits());
    spadRow = out(uint(rowBits));
    remainderNext = in(uint(lineShift + 1));
    remainder = out(uint(lineShift + 1));
    beatMask = out(bits(line));
    writeData = in(uint(8 * line));
    mem_req_wdata = out("mem_req_wdata", uint(8 * line));
    mem_req_wstrb = out("mem_req_wstrb", bits(line));
    mem_req_fetch = c.axiBus() ? out("mem_req_fetch", bool()) : null;

    Walker[] walks = new Walker[2];
    section("ext", () -> walks[0] = new Walker(this, Npu.ADDR, 16));
    section("spadWalk", () -> walks[1] = new Walker(this, Npu.ADDR, 16, false));
    Walker ext = walks[0];
    Walker sp = walks[1];
    UInt rowsNow = shapeRegister("dmaRows", rowsNext, rows);
    UInt beatsNow = shapeRegister("dmaBeats", beatsNext, beats);
    UInt remainderNow = shapeRegister("dmaRemainder", remainderNext, remainder);
    UInt extStepNow = shapeRegister("extStep", extStepNext, extStep);
    ext.shape(shapeRegister("extStride", extStrideNext, extStride), extStepNow, rowsNow, beatsNow);
    sp.shape(shapeRegister("spadStride", spadStrideNext, spadStride),
        shapeRegister("spadStep", spadStepNext, spadStep), rowsNow, beatsNow);
    if (c.axiBus()) {
      // the AXI NPU's DMA-to-counter paths (the walks' last-beat compares feed the controller and the counters'
      // conditions) start at registers of rows − 1 and beats − 1, the shape registers' twins
      UInt lastRow = lastIndexRegister("dmaRowsLast", rowsNext);
      UInt lastBeat = lastIndexRegister("dmaBeatsLast", beatsNext);
      ext.lastIndices(lastRow, lastBeat);
      sp.lastIndices(lastRow, lastBeat);
    }
    when(extBegin, () -> ext.begin(extBase)).otherwise(() -> when(extAdvance, ext::advance));
    when(spadBegin, () -> sp.begin(spadBase)).otherwise(() -> when(spadAdvance, sp::advance));
    extLast.set(ext.last());
    spadLine.set(sp.address.lsbs(spadAddressBits).shiftRight(lineShift).resize(spadLine.width()));
    spadRow.set(sp.row.lsbs(rowBits));
    spadBeat.set(sp.beat);
    spadLastInRow.set(sp.lastInRow());
    spadLast.set(sp.last());

    Bits ones = NpuScratchpad.allBytes(line);
    UInt shortBy = wire("mask_shortBy", uintLit(line, lineShift + 1).sub(remainderNow));
    Bits rowEndMask = wire("mask_rowEnd", mux(remainderNow.eq(0), ones, ones.shiftRight(shortBy)));
    beatMask.set(mux(sp.lastInRow(), rowEndMask, ones));

    // the memory port: the DMA's stream first, else the fetcher
    Bool dmaValid = wire("dmaRequests", requests.and(ext.finished.not()));
    fire.set(dmaValid.and(mem_req_ready));
    fetchWaits.set(wants.and(ext.finished.not()));
    mem_req_valid.set(dmaValid.or(fetchRequest.valid));
    mem_req_write.set(dmaValid.and(write));
    mem_req_addr.set(mux(fetchRequest.valid, fetchRequest.payload, ext.address));
    mem_req_wdata.set(writeData);
    mem_req_wstrb.set(beatMask);
    fetchRequest.ready.set(mem_req_ready);
    // the run a request starts, for the AXI master's bursts; the native memory ignores it, so the native NPU builds
    // none of its logic (the subtractor on the beat count lengthened the tiny NPU's DMA-to-counter path)
    if (c.axiBus()) {
      UInt dmaRun = wire("run_dma", mux(extStepNow.eq(line), beatsNow.sub(ext.beat.resize(16)), uintLit(1, 16)));
      UInt fetchRun = line >= 32 ? uintLit(1, 16)
          : wire("run_fetch", uintLit(32, 6).sub(fetchRequest.payload.lsbs(5).resize(6)).shiftRight(lineShift)
              .resize(16));
      mem_req_run.set(mux(fetchRequest.valid, fetchRun, dmaRun));
      mem_req_fetch.set(fetchRequest.valid);
    } else {
      mem_req_run.set(uintLit(1, 16));
    }
    readFire.set(fire.and(mem_req_write.not()));
    Bool fired = regInit("justFired", bool(), 0);
    fired.set(fire);
    justFired.set(fired);
  }

  /**
   * A register that takes {@code next − 1} every cycle (reset to {@code −1}, as the shape register is to 0): equal to
   * the shape register's value minus 1 in every cycle.
   */
  private UInt lastIndexRegister(String name, UInt next) {
    UInt r = regInit(name, uint(next.width()), (1L << next.width()) - 1);
    r.set(next.sub(1));
    return r;
  }

  /** A shape register that takes {@code next} every cycle, its value on {@code current}. */
  private UInt shapeRegister(String name, UInt next, UInt current) {
    UInt r = regInit(name, uint(next.width()), 0);
    r.set(next);
    current.set(r);
    return r;
  }

  @Override
  public String moduleName() {
    return "NpuDmaUnit" + Npu.nameSuffix(config);
  }

  /** Synthesized inside the NPU's top: its paths continue through the controller and the scratchpad. */
  @Override
  public boolean flattenInSynthesis() {
    return true;
  }
}
