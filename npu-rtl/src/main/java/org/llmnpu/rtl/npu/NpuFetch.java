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
import org.llmnpu.hdl.UInt;
import org.llmnpu.isa.ErrorCause;
import org.llmnpu.isa.MachineParams;

/**
 * The {@link Npu}'s command fetch with prefetch into a command queue of {@code D = commandQueueDepth} commands:
 * the one the controller runs (the 256-bit command register {@link #cmd}) and up to {@code D − 1} read ahead
 * (a FIFO of {@code D − 1} commands of flip-flops). The fetcher walks the program from {@code programAddress}
 * ({@link #pc}) and requests the {@code b = max(1, 32 / line)} beats of one command after the other, one in every
 * cycle the memory takes it, when the controller does not want the memory port (it has priority from the first
 * cycle of a memory phase until its last beat is accepted) and a queue slot is free: it starts a command while
 * the started commands the controller has not taken plus the one it holds are fewer than D. Responses come back
 * in order; a response belongs to the fetch unless the controller has reads outstanding and no fetch read is
 * older than them ({@link #resp}). A complete command first lands in a register for one cycle (while {@link NpuPredecode}
 * sums its checks), then goes straight into {@link #cmd} when the controller waits for it in FETCH with an empty
 * queue (DECODE follows), else into the queue; a controller that finishes a
 * command takes the next from the queue directly into DECODE ({@link #next}). A command whose 32 bytes lie
 * beyond the memory (or a misaligned program counter) stops the fetcher; the controller halts with
 * {@code EXT_ADDRESS} only when it reaches that command with the queue empty, so commands read past a
 * {@code halt} never fault. Responses of reads still outstanding at a new start are dropped. D = 1 is the fetch
 * without prefetch (the next command is read once the previous one is done). Each arriving command's range checks
 * and sums ({@link NpuPredecode}) are computed as it arrives and lands and kept beside it (in its queue slot, then
 * beside {@link #cmd}), so DECODE reads them from registers. Cycles:
 * {@code org.llmnpu.isa.CycleModel} "Command fetch".
 */
final class NpuFetch {
  /** The address of the next command the fetcher requests. */
  final UInt pc;
  /** The index of the controller's command (for {@code errorCommand}). */
  final UInt index;
  final UInt cause;
  final UInt cmd;
  /** {@link NpuPredecode}'s checks and sums of {@link #cmd}, computed when it landed. */
  final UInt cmdPredecoded;
  /** The command's words 0..7 and its opcode (word 0 bits 7:0). */
  final List<UInt> words = new ArrayList<>();
  UInt opcode;
  /** The fetcher requests a beat this cycle / it is accepted. */
  final Bool valid;
  final Bool fire;
  /** A memory response for the controller (not the fetch's). */
  final Bool ctrlResp;
  /** The controller takes a command (from the queue, or straight from the memory). */
  private final Bool take;
  private final NpuController npu;
  private final int beatsPerCommand;
  private final int depth;
  private final UInt beat;
  private final UInt pending;
  /** Commands in the queue, its oldest and its next free slot (only with a queue: depth > 1). */
  private UInt count;
  private final UInt outstanding;
  private final UInt older;
  private final UInt drop;
  private final UInt ctrlOutstanding;
  private final List<UInt> slots = new ArrayList<>();
  private final List<UInt> slotPredecoded = new ArrayList<>();
  private UInt head;
  private UInt tail;
  private Bool fault;
  /** A command landed: it arrived (its last beat) in the previous cycle, and {@link #landed} holds it. */
  private Bool complete;
  private UInt landed;
  /** {@link NpuPredecode} of {@link #landed}. */
  private UInt landedPredecoded;

  NpuFetch(NpuController npu) {
    this.npu = npu;
    MachineParams p = npu.p;
    beatsPerCommand = p.beatsPerCommand();
    depth = p.commandQueueDepth();
    pc = npu.reg0("pc", uint(Npu.ADDR));
    index = npu.reg0("commandIndex", uint(32));
    cause = npu.reg0("cause", uint(3));
    cmd = npu.reg0("command", uint(256));
    cmdPredecoded = npu.reg0("command_predecoded", uint(NpuPredecode.width(p)));
    beat = npu.reg0("fetch_beat", uint(bitsToHold(beatsPerCommand)));
    pending = npu.reg0("fetch_pending", uint(bitsToHold(depth + 1)));
    int outBits = bitsToHold(2L * depth * beatsPerCommand + 2);
    outstanding = npu.reg0("fetch_outstanding", uint(outBits));
    older = npu.reg0("fetch_older", uint(outBits));
    drop = npu.reg0("fetch_drop", uint(outBits));
    ctrlOutstanding = npu.reg0("ctrl_outstanding", uint(21));
    if (depth > 1) {
      count = npu.reg0("fetch_queued", uint(bitsToHold(depth)));
      int slotBits = bitsToHold(Math.max(1, depth - 2));
      head = npu.reg0("queue_head", uint(slotBits));
      tail = npu.reg0("queue_tail", uint(slotBits));
      for (int s = 0; s < depth - 1; s++) {
        slots.add(npu.reg0("queue_" + s, uint(256)));
        slotPredecoded.add(npu.reg0("queue_" + s + "_predecoded", uint(NpuPredecode.width(p))));
      }
    }
    valid = npu.wireOf("fetch_valid", bool());
    fire = npu.wireOf("fetch_fire", bool());
    take = npu.wireOf("fetch_take", bool());
    ctrlResp = npu.wireOf("ctrl_resp", npu.mem_resp_valid.and(older.eq(0)).and(ctrlOutstanding.ne(0)));
  }

  /** The command's fields and the decode checks. */
  NpuDecode decode() {
    for (int i = 0; i < 8; i++) {
      words.add(npu.wireOf("word" + i, cmd.slice(32 * i + 31, 32 * i)));
    }
    opcode = npu.wireOf("opcode", words.get(0).lsbs(8));
    return new NpuDecode(npu, npu.p, words, cmdPredecoded);
  }

  /** The address check of the next command's fetch. */
  void beatCounters() {
    fault = npu.wireOf("fetch_fault", pc.resize(Npu.WIDE).add(uintLit(32, Npu.WIDE))
        .gt(uintLit(npu.p.extMemBytes(), Npu.WIDE)).or(pc.lsbs(5).ne(0)));
  }

  /** No memory read is outstanding (the fetch's or the controller's). */
  Bool quiet() {
    return npu.wireOf("memoryQuiet", outstanding.eq(0).and(ctrlOutstanding.eq(0)));
  }

  /** Memory address of the fetch's request. */
  UInt requestAddress() {
    return pc.add(beat.resize(Npu.ADDR).shiftLeft(npu.lineShift).resize(Npu.ADDR));
  }

  /**
   * The fetcher: its request ({@code ctrlWants}: the controller wants the port this cycle), the response routing
   * and assembly, the queue. {@code running}: the NPU runs a program; {@code ctrlRead}: the controller's read
   * request is accepted.
   */
  void prefetcher(Bool running, Bool ctrlWants, Bool ctrlRead) {
    Bool holds = running.and(npu.inFetch.not());
    UInt occupied = pending.resize(pending.width() + 1).add(mux(holds, uintLit(1, 1), uintLit(0, 1)));
    Bool slotFree = occupied.lt(depth);
    valid.set(running.and(fault.not()).and(ctrlWants.not()).and(beat.ne(0).or(slotFree)));
    fire.set(valid.and(npu.mem_req_ready));
    take.set(boolLit(false));

    Bool fetchResp = npu.wireOf("fetch_resp", npu.mem_resp_valid.and(ctrlResp.not()));
    Bool useful = npu.wireOf("fetch_useful", fetchResp.and(drop.eq(0)));
    int lineBits = 8 * npu.line;
    UInt received = beatsPerCommand == 1 ? null : npu.reg0("fetch_received", uint(bitsToHold(beatsPerCommand)));
    UInt assembly = beatsPerCommand == 1 ? null : npu.reg0("fetch_assembly", uint(256 - lineBits));
    Bool arrives = npu.wireOf("fetch_arrives", beatsPerCommand == 1 ? useful
        : useful.and(received.eq(beatsPerCommand - 1)));
    UInt arrived = npu.wireOf("fetch_arrived", beatsPerCommand == 1 ? npu.mem_resp_data.resize(256)
        : cat(npu.mem_resp_data.resize(lineBits), assembly).asUInt());
    Bool begin = npu.wireOf("fetch_begin", npu.inState(Npu.State.IDLE).and(npu.start));
    // the landing register: the command of the cycle after its last beat, while its checks are summed
    complete = npu.reg0("fetch_landedValid", bool());
    complete.set(arrives.and(begin.not()));
    landed = npu.reg0("fetch_landed", uint(256));
    npu.whenDo(arrives, () -> landed.set(arrived));
    NpuPredecode predecode = npu.units.predecode;
    for (int i = 1; i < 8; i++) {
      UInt arriving = npu.io(predecode.arriving.get(i - 1));
      arriving.set(arrived.slice(32 * i + arriving.width() - 1, 32 * i));
    }
    npu.io(predecode.landedOpcode).set(landed.lsbs(8));
    npu.io(predecode.landedFields).set(landed.msbs(224));
    landedPredecoded = npu.io(predecode.bits);

    UInt outNext = npu.wireOf("fetch_outstandingNext", outstanding.add(mux(fire, uintLit(1, 1), uintLit(0, 1)))
        .sub(mux(fetchResp, uintLit(1, 1), uintLit(0, 1))));
    outstanding.set(outNext);
    npu.whenElse(ctrlOutstanding.eq(0), () -> older.set(outNext),
        () -> npu.whenDo(fetchResp, () -> older.set(older.sub(1))));
    ctrlOutstanding.set(ctrlOutstanding.add(mux(ctrlRead, uintLit(1, 1), uintLit(0, 1)))
        .sub(mux(ctrlResp, uintLit(1, 1), uintLit(0, 1))));
    Bool started = fire.and(beat.eq(0));
    Bool fromQueue = depth > 1 ? take.and(count.ne(0)) : null;
    Bool push = depth > 1 ? npu.wireOf("queue_push", complete.and(take.and(count.eq(0)).not())) : null;

    npu.whenElse(begin, () -> {
      drop.set(outNext);
      pc.set(npu.programAddress);
      beat.set(beat.sub(beat));
      pending.set(pending.sub(pending));
      if (depth > 1) {
        count.set(count.sub(count));
        head.set(head.sub(head));
        tail.set(tail.sub(tail));
      }
      if (received != null) {
        received.set(received.sub(received));
      }
    }, () -> {
      npu.whenDo(fetchResp.and(drop.ne(0)), () -> drop.set(drop.sub(1)));
      npu.whenDo(fire, () -> npu.whenElse(beat.eq(beatsPerCommand - 1), () -> {
        pc.set(pc.add(32));
        beat.set(beat.sub(beat));
      }, () -> beat.set(beat.add(1))));
      pending.set(pending.add(mux(started, uintLit(1, 1), uintLit(0, 1))).sub(mux(take, uintLit(1, 1),
          uintLit(0, 1))));
      if (received != null) {
        npu.whenDo(useful, () -> {
          assembly.set(arrived.slice(255, lineBits));
          npu.whenElse(arrives, () -> received.set(received.sub(received)), () -> received.set(received.add(1)));
        });
      }
      if (depth > 1) {
        count.set(count.add(mux(push, uintLit(1, 1), uintLit(0, 1))).sub(mux(fromQueue, uintLit(1, 1),
            uintLit(0, 1))));
        npu.whenDo(push, () -> {
          for (int s = 0; s < slots.size(); s++) {
            UInt slot = slots.get(s);
            UInt slotChecks = slotPredecoded.get(s);
            npu.whenDo(tail.eq(s), () -> {
              slot.set(landed);
              slotChecks.set(landedPredecoded);
            });
          }
          tail.set(wrap(tail));
        });
        npu.whenDo(fromQueue, () -> head.set(wrap(head)));
      }
    });
  }

  private UInt wrap(UInt slot) {
    return mux(slot.eq(depth - 2), slot.sub(slot), slot.add(1));
  }

  /** The queue's oldest command. */
  private UInt headCommand() {
    UInt out = slots.get(0);
    for (int s = 1; s < slots.size(); s++) {
      out = mux(head.eq(s), slots.get(s), out);
    }
    return out;
  }

  /** Statements of IDLE on start: run the program at {@code programAddress} (the fetcher restarts there). */
  void begin() {
    index.set(index.sub(index));
    cause.set(cause.sub(cause));
    npu.state.set(Npu.st(Npu.State.FETCH));
  }

  /** The predecoded checks of the queue's oldest command. */
  private UInt headPredecoded() {
    UInt out = slotPredecoded.get(0);
    for (int s = 1; s < slotPredecoded.size(); s++) {
      out = mux(head.eq(s), slotPredecoded.get(s), out);
    }
    return out;
  }

  /** Statements: the controller takes the queue's oldest command into DECODE. */
  private void takeQueued() {
    take.set(boolLit(true));
    cmd.set(headCommand());
    cmdPredecoded.set(headPredecoded());
    npu.state.set(Npu.st(Npu.State.DECODE));
  }

  /** Statements of FETCH: take a queued or an arriving command; halt at a fetch that cannot be made. */
  void step(Bool bark) {
    Runnable arriving = () -> {
      take.set(boolLit(true));
      cmd.set(landed);
      cmdPredecoded.set(landedPredecoded);
      npu.state.set(Npu.st(Npu.State.DECODE));
    };
    if (depth > 1) {
      npu.whenOf(count.ne(0), this::takeQueued)
          .elseWhen(complete, arriving)
          .elseWhen(pending.eq(0).and(fault), () -> npu.fail(ErrorCause.EXT_ADDRESS))
          .elseWhen(bark, () -> npu.fail(ErrorCause.WATCHDOG));
    } else {
      npu.whenOf(complete, arriving)
          .elseWhen(pending.eq(0).and(fault), () -> npu.fail(ErrorCause.EXT_ADDRESS))
          .elseWhen(bark, () -> npu.fail(ErrorCause.WATCHDOG));
    }
  }

  /**
   * Statements: the command is done; the next one is decoded in FETCH (one cycle later than from the queue):
   * after a {@code dspin} or {@code dspout}, whose DSP buffer writes trail its last cycle ({@link NpuDsp}).
   */
  void nextViaFetch() {
    index.set(index.add(1));
    npu.state.set(Npu.st(Npu.State.FETCH));
  }

  /** Statements: the command is done; decode the next one if it is queued, else wait for it in FETCH. */
  void next() {
    index.set(index.add(1));
    if (depth > 1) {
      npu.whenElse(count.ne(0), this::takeQueued, () -> npu.state.set(Npu.st(Npu.State.FETCH)));
    } else {
      npu.state.set(Npu.st(Npu.State.FETCH));
    }
  }
}
