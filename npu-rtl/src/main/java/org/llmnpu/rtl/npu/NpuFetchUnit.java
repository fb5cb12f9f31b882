package org.llmnpu.rtl.npu;

import static org.llmnpu.hdl.Hw.bitsToHold;
import static org.llmnpu.hdl.Hw.bool;
import static org.llmnpu.hdl.Hw.boolLit;
import static org.llmnpu.hdl.Hw.cat;
import static org.llmnpu.hdl.Hw.mux;
import static org.llmnpu.hdl.Hw.uint;
import static org.llmnpu.hdl.Hw.uintLit;

import java.util.ArrayList;
import java.util.List;
import org.llmnpu.hdl.Bool;
import org.llmnpu.hdl.Bundle;
import org.llmnpu.hdl.Data;
import org.llmnpu.hdl.HwModule;
import org.llmnpu.hdl.UInt;
import org.llmnpu.hdl.lib.Stream;
import org.llmnpu.isa.MachineParams;

/**
 * The {@link Npu}'s fetcher (instance {@code fetch}, block {@code npu-fetch}): it reads commands ahead into a command
 * queue of {@code D = commandQueueDepth} commands — the one the controller runs (its command register, in
 * {@link NpuController}) and up to {@code D − 1} read ahead (a FIFO of {@code D − 1} commands of flip-flops, each
 * with its {@link NpuPredecode} checks) — and hands them to the controller on the {@link #commands} stream.
 *
 * <p><b>Requests.</b> From {@code programAddress} (taken at {@link #begin}) the fetcher walks the program
 * ({@code pc}) and requests the {@code b = max(1, 32 / line)} beats of one command after the other on
 * {@link #request}, one in every cycle the memory takes it ({@code request_ready} is the memory's), when the DMA
 * does not want the memory port ({@link #dmaWants}: it has priority from the first cycle of a memory phase until
 * its last beat is accepted) and a queue slot is free: it starts a command while the started commands the
 * controller has not taken plus the one it holds ({@link #holding}) are fewer than D. A command whose 32 bytes lie
 * beyond the memory (or a misaligned program counter) stops the fetcher ({@link #stopped} once nothing is pending;
 * the controller halts with {@code EXT_ADDRESS} only when it reaches that command with the queue empty, so commands
 * read past a {@code halt} never fault).
 *
 * <p><b>Responses.</b> They come back in order; a response belongs to the fetcher unless the DMA has reads
 * outstanding ({@link #dmaRead} counts them: the count {@code dmaOutstanding} takes a read a cycle late, from the
 * flip-flop {@code dmaReadLast}, which counts meanwhile, so the late read decision meets no adder) and no fetch read is
 * older than them ({@link #dmaResponse}). Responses
 * of reads still outstanding at a new start are dropped. {@link #quiet}: no read of either is outstanding.
 *
 * <p><b>Landing and the queue.</b> A complete command lands in a register for one cycle (while the
 * {@link NpuPredecode} unit sums its checks from {@link #arriving}, {@link #landedOpcode}, {@link #landedFields}
 * into {@link #predecoded}), and is offered on {@link #commands} in that cycle; if the controller does not take it
 * (or the queue is not empty), it goes into the queue. {@link #commands} offers the queue's oldest command when
 * there is one ({@link #queued}), else the landing one. D = 1 is the fetch without prefetch. The landing register
 * and the queue's slots are on clock gates opened only in the cycles that write them (a command's arrival, a push:
 * {@link NpuClockGates#LANDED_COMMAND}, {@link NpuClockGates#COMMAND_QUEUE}). Cycles:
 * {@code org.llmnpu.isa.CycleModel} "Command fetch" (a command lands one cycle after its last beat arrives).
 */
public final class NpuFetchUnit extends HwModule {
  /** A command with its predecoded checks ({@link NpuPredecode#bits}). */
  public static final class FetchedCommand extends Bundle {
    public final UInt command = uint(256);
    public final UInt predecoded;
    private final int predecodedBits;

    public FetchedCommand(int predecodedBits) {
      this.predecodedBits = predecodedBits;
      predecoded = uint(predecodedBits);
    }

    @Override
    public Data copyType() {
      return new FetchedCommand(predecodedBits);
    }
  }

  /** The NPU starts a program this cycle: restart at {@link #programAddress}, drop outstanding responses. */
  public final Bool begin = in(bool());
  public final UInt programAddress = in(uint(Npu.ADDR));
  /** The NPU runs a program. */
  public final Bool running = in(bool());
  /** The controller holds a command (it runs one and does not wait in FETCH). */
  public final Bool holding = in(bool());
  /** The DMA wants the memory port this cycle (the fetcher waits). */
  public final Bool dmaWants = in(bool());
  /** The DMA's read request is accepted this cycle. */
  public final Bool dmaRead = in(bool());
  /** The fetcher's read request: the memory address of one command beat. */
  public final Stream<UInt> request = master(Stream.of(uint(Npu.ADDR)));
  public final Bool responseValid = in(bool());
  public final UInt responseData;
  /** The memory's response this cycle is the DMA's (not the fetcher's). */
  public final Bool dmaResponse = out(bool());
  /** No memory read is outstanding (the fetcher's or the DMA's). */
  public final Bool quiet = out(bool());
  /** The commands, in program order: the queue's oldest, else the landing one. */
  public final Stream<FetchedCommand> commands;
  /** A command waits in the queue (always false without a queue, D = 1). */
  public final Bool queued = out(bool());
  /** Nothing is pending and the next command's fetch cannot be made (beyond the memory, misaligned). */
  public final Bool stopped = out(bool());
  /** Words 1..7 of the arriving command, to {@link NpuPredecode#arriving} (same widths). */
  public final List<UInt> arriving = new ArrayList<>();
  public final UInt landedOpcode = out(uint(8));
  public final UInt landedFields = out(uint(224));
  /** The arriving command's last beat arrives this cycle (it lands in the next), to {@link NpuPredecode#arrives}. */
  public final Bool arrival = out(bool());
  /** {@link NpuPredecode#bits} of the landing command. */
  public final UInt predecoded;
  private final NpuConfig config;

  public NpuFetchUnit(NpuConfig c) {
    config = c;
    MachineParams p = c.machine();
    int line = p.lineBytes();
    int lineBits = 8 * line;
    int lineShift = Integer.numberOfTrailingZeros(line);
    int beatsPerCommand = p.beatsPerCommand();
    int depth = p.commandQueueDepth();
    int predecodeBits = NpuPredecode.width(p);
    responseData = in(uint(lineBits));
    commands = master(Stream.of(new FetchedCommand(predecodeBits)));
    for (int i = 1; i < 8; i++) {
      arriving.add(out("arriving" + i, uint(i == 5 ? 16 : 32)));
    }
    predecoded = in(uint(predecodeBits));

    UInt pc = regInit("pc", uint(Npu.ADDR), 0);
    UInt beat = regInit("beat", uint(bitsToHold(beatsPerCommand)), 0);
    UInt pending = regInit("pending", uint(bitsToHold(depth + 1)), 0);
    int outBits = bitsToHold(2L * depth * beatsPerCommand + 2);
    UInt outstanding = regInit("outstanding", uint(outBits), 0);
    UInt older = regInit("older", uint(outBits), 0);
    UInt drop = regInit("drop", uint(outBits), 0);
    // the DMA's reads outstanding = dmaOutstanding + dmaReadLast: the read (late, the DMA's request decision) goes
    // straight into a flip-flop and is counted a cycle later, from registers (a response comes a cycle after its
    // read at the earliest, and sees the read in dmaReadLast)
    UInt dmaOutstanding = regInit("dmaOutstanding", uint(21), 0);
    Bool dmaReadLast = regInit("dmaReadLast", bool(), 0);
    dmaReadLast.set(dmaRead);
    Bool noDmaRead = wire("noDmaRead", dmaOutstanding.eq(0).and(dmaReadLast.not()));
    dmaResponse.set(responseValid.and(older.eq(0)).and(noDmaRead.not()));
    quiet.set(outstanding.eq(0).and(noDmaRead));
    // pc + 32 > memory, as pc > memory − 32 (no adder ahead of the request's valid and the counters it feeds)
    Bool fault = wire("fault", pc.resize(Npu.WIDE).gt(uintLit(p.extMemBytes() - 32, Npu.WIDE))
        .or(pc.lsbs(5).ne(0)));
    stopped.set(pending.eq(0).and(fault));

    // requests
    UInt occupied = pending.resize(pending.width() + 1).add(mux(holding, uintLit(1, 1), uintLit(0, 1)));
    Bool slotFree = occupied.lt(depth);
    request.valid.set(running.and(fault.not()).and(dmaWants.not()).and(beat.ne(0).or(slotFree)));
    request.payload.set(pc.add(beat.resize(Npu.ADDR).shiftLeft(lineShift).resize(Npu.ADDR)));
    Bool fire = wire("fire", request.fire());
    Bool take = wire("take", commands.fire());

    // responses: assembly of a command's beats, the landing register
    Bool fetchResp = wire("resp", responseValid.and(dmaResponse.not()));
    Bool useful = wire("useful", fetchResp.and(drop.eq(0)));
    UInt received = beatsPerCommand == 1 ? null : regInit("received", uint(bitsToHold(beatsPerCommand)), 0);
    Bool arrives = wire("arrives", beatsPerCommand == 1 ? useful : useful.and(received.eq(beatsPerCommand - 1)));
    // the beats before a command's last, written only when one arrives: on a clock gate (NpuClockGates)
    Bool assemble = wire("assemble", useful.and(arrives.not()));
    UInt[] assembling = new UInt[1];
    if (beatsPerCommand > 1) {
      clockGated(NpuClockGates.COMMAND_ASSEMBLY, assemble, c.clockGatingMode(),
          () -> assembling[0] = regInit("assembly", uint(256 - lineBits), 0));
    }
    UInt assembly = assembling[0];
    UInt arrived = wire("arrived", beatsPerCommand == 1 ? responseData.resize(256)
        : cat(responseData.resize(lineBits), assembly).asUInt());
    Bool complete = regInit("landedValid", bool(), 0);
    complete.set(arrives.and(begin.not()));
    // written once per command that arrives: on a clock gate opened by the arrival (NpuClockGates)
    UInt[] landing = new UInt[1];
    clockGated(NpuClockGates.LANDED_COMMAND, arrives, c.clockGatingMode(),
        () -> landing[0] = regInit("landed", uint(256), 0));
    UInt landed = landing[0];
    when(arrives, () -> landed.set(arrived));
    for (UInt word : arriving) {
      int i = arriving.indexOf(word) + 1;
      word.set(arrived.slice(32 * i + word.width() - 1, 32 * i));
    }
    arrival.set(arrives);
    landedOpcode.set(landed.lsbs(8));
    landedFields.set(landed.msbs(224));

    UInt outNext = wire("outstandingNext", outstanding.add(mux(fire, uintLit(1, 1), uintLit(0, 1)))
        .sub(mux(fetchResp, uintLit(1, 1), uintLit(0, 1))));
    outstanding.set(outNext);
    when(noDmaRead, () -> older.set(outNext))
        .otherwise(() -> when(fetchResp, () -> older.set(older.sub(1))));
    dmaOutstanding.set(dmaOutstanding.add(mux(dmaReadLast, uintLit(1, 1), uintLit(0, 1)))
        .sub(mux(dmaResponse, uintLit(1, 1), uintLit(0, 1))));
    Bool started = fire.and(beat.eq(0));
    CommandQueue queue = depth > 1 ? new CommandQueue(depth, predecodeBits, complete, take) : null;
    if (queue == null) {
      queued.set(boolLit(false));
      commands.valid.set(complete);
      commands.payload.command.set(landed);
      commands.payload.predecoded.set(predecoded);
    } else {
      queued.set(queue.count.ne(0));
      commands.valid.set(queue.count.ne(0).or(complete));
      commands.payload.command.set(mux(queue.count.ne(0), queue.oldest(queue.slots), landed));
      commands.payload.predecoded.set(mux(queue.count.ne(0), queue.oldest(queue.slotPredecoded), predecoded));
    }

    when(begin, () -> {
      drop.set(outNext);
      pc.set(programAddress);
      beat.set(uintLit(0, beat.width()));
      pending.set(uintLit(0, pending.width()));
      if (queue != null) {
        queue.clear();
      }
      if (received != null) {
        received.set(uintLit(0, received.width()));
      }
    }).otherwise(() -> {
      when(fetchResp.and(drop.ne(0)), () -> drop.set(drop.sub(1)));
      when(fire, () -> when(beat.eq(beatsPerCommand - 1), () -> {
        pc.set(pc.add(32));
        beat.set(uintLit(0, beat.width()));
      }).otherwise(() -> beat.set(beat.add(1))));
      pending.set(pending.add(mux(started, uintLit(1, 1), uintLit(0, 1))).sub(mux(take, uintLit(1, 1),
          uintLit(0, 1))));
      if (received != null) {
        when(assemble, () -> assembly.set(arrived.slice(255, lineBits)));
        when(useful, () -> {
          when(arrives, () -> received.set(uintLit(0, received.width())))
              .otherwise(() -> received.set(received.add(1)));
        });
      }
      if (queue != null) {
        queue.step(landed);
      }
    });
  }

  /** The queue of {@code depth − 1} commands read ahead, with their predecoded checks. */
  private final class CommandQueue {
    final UInt count;
    final UInt head;
    final UInt tail;
    final List<UInt> slots = new ArrayList<>();
    final List<UInt> slotPredecoded = new ArrayList<>();
    private final int depth;
    private final Bool push;
    private final Bool pop;

    CommandQueue(int depth, int predecodeBits, Bool complete, Bool take) {
      this.depth = depth;
      count = regInit("queue_count", uint(bitsToHold(depth)), 0);
      int slotBits = bitsToHold(Math.max(1, depth - 2));
      head = regInit("queue_head", uint(slotBits), 0);
      tail = regInit("queue_tail", uint(slotBits), 0);
      pop = take.and(count.ne(0));
      push = wire("queue_push", complete.and(take.and(count.eq(0)).not()));
      // a slot is written only by a push: the slots on a clock gate opened by it (NpuClockGates)
      clockGated(NpuClockGates.COMMAND_QUEUE, push, config.clockGatingMode(), () -> {
        for (int s = 0; s < depth - 1; s++) {
          slots.add(regInit("queue_" + s, uint(256), 0));
          slotPredecoded.add(regInit("queue_" + s + "_predecoded", uint(predecodeBits), 0));
        }
      });
    }

    /**
     * The oldest entry of {@code bank} (the slots or their checks): a balanced tree of 2-way muxes on the bits of
     * {@code head}, {@code ceil(log2(D − 1))} levels (a chain of {@code D − 2} compare-and-muxes would be the
     * critical path of a deep queue); an odd entry at a level passes up unmuxed ({@code head} never points past the
     * last slot).
     */
    UInt oldest(List<UInt> bank) {
      List<UInt> level = new ArrayList<>(bank);
      for (int bit = 0; level.size() > 1; bit++) {
        List<UInt> next = new ArrayList<>();
        for (int i = 0; i < level.size(); i += 2) {
          next.add(i + 1 < level.size() ? mux(head.bit(bit), level.get(i + 1), level.get(i)) : level.get(i));
        }
        level = next;
      }
      return level.get(0);
    }

    void clear() {
      count.set(uintLit(0, count.width()));
      head.set(uintLit(0, head.width()));
      tail.set(uintLit(0, tail.width()));
    }

    /** Statements: push the landed command unless the controller takes it, pop what the controller takes. */
    void step(UInt landed) {
      count.set(count.add(mux(push, uintLit(1, 1), uintLit(0, 1))).sub(mux(pop, uintLit(1, 1), uintLit(0, 1))));
      when(push, () -> {
        for (int s = 0; s < slots.size(); s++) {
          UInt slot = slots.get(s);
          UInt slotChecks = slotPredecoded.get(s);
          when(tail.eq(s), () -> {
            slot.set(landed);
            slotChecks.set(predecoded);
          });
        }
        tail.set(wrap(tail));
      });
      when(pop, () -> head.set(wrap(head)));
    }

    private UInt wrap(UInt slot) {
      return mux(slot.eq(depth - 2), uintLit(0, slot.width()), slot.add(1));
    }
  }

  @Override
  public String moduleName() {
    return "NpuFetchUnit" + Npu.nameSuffix(config);
  }

  /** Synthesized inside the NPU's top: its paths continue through the controller's decode. */
  @Override
  public boolean flattenInSynthesis() {
    return true;
  }
}
