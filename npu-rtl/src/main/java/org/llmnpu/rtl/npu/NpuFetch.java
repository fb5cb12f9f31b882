package org.llmnpu.rtl.npu;

import static org.llmnpu.hdl.Hw.boolLit;
import static org.llmnpu.hdl.Hw.mux;
import static org.llmnpu.hdl.Hw.uint;
import static org.llmnpu.hdl.Hw.uintLit;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.llmnpu.hdl.Bool;
import org.llmnpu.hdl.UInt;
import org.llmnpu.isa.ErrorCause;
import org.llmnpu.isa.MachineParams;

/**
 * The {@link NpuController}'s end of the command stream from the fetcher ({@link NpuFetchUnit}, instance
 * {@code fetch}): the command register {@link #cmd} with its predecoded checks (on a clock gate opened by the
 * take, {@link NpuClockGates#COMMAND_REGISTER}), the command's index and the error
 * cause, and the controller's steps that take commands — FETCH (wait for the next command; halt when the fetcher
 * stopped at a fetch it cannot make, or at the watchdog), a finished command's next (straight from the queue into
 * DECODE, else FETCH), the start of a program. The fetcher's requests and responses are wired here onto the
 * controller's ports that face it ({@link NpuController#io}). Cycles: {@code org.llmnpu.isa.CycleModel}
 * "Command fetch".
 */
final class NpuFetch {
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
  private final NpuController npu;
  private final NpuFetchUnit unit;
  private final int depth;
  /** The controller takes the offered command. */
  private final Bool take;

  NpuFetch(NpuController npu) {
    this.npu = npu;
    MachineParams p = npu.p;
    depth = p.commandQueueDepth();
    unit = npu.units.fetch;
    index = npu.reg0("commandIndex", uint(32));
    cause = npu.reg0("cause", uint(3));
    valid = npu.io(unit.request.valid);
    fire = npu.wireOf("fetch_fire", valid.and(npu.mem_req_ready));
    take = npu.io(unit.commands.ready);
    take.set(boolLit(false));
    // written only when the controller takes a command: clocked once per command (NpuClockGates)
    UInt[] command = new UInt[2];
    npu.gatedOf(NpuClockGates.COMMAND_REGISTER, take, () -> {
      command[0] = npu.reg0("command", uint(256));
      command[1] = npu.reg0("command_predecoded", uint(NpuPredecode.width(p)));
    });
    cmd = command[0];
    cmdPredecoded = command[1];
    ctrlResp = npu.io(unit.dmaResponse);
  }

  /** The command's fields and the decode checks. */
  NpuDecode decode() {
    for (int i = 0; i < 8; i++) {
      words.add(npu.wireOf("word" + i, cmd.slice(32 * i + 31, 32 * i)));
    }
    opcode = npu.wireOf("opcode", words.get(0).lsbs(8));
    return new NpuDecode(npu, npu.p, words, cmdPredecoded);
  }

  /**
   * A flag of the controller's command computed a cycle early, so that DECODE and WAIT read it from registers:
   * {@code flag} of the offered command (registered in the cycle the controller takes it: DECODE's value) and of
   * the held command (registered every cycle: WAIT's value). Other inputs of {@code flag} are sampled a cycle before
   * they are used: it must read only state that does not change in the cycle before a DECODE or within a WAIT.
   */
  Bool registeredFlag(String name, Function<UInt, Bool> flag) {
    Bool fresh = npu.reg0Next(name + "_fresh", take);
    Bool offered = npu.reg0Next(name + "_offered", flag.apply(npu.io(unit.commands.payload.command)));
    Bool held = npu.reg0Next(name + "_held", flag.apply(cmd));
    return npu.wireOf(name, mux(fresh, offered, held));
  }

  /** No memory read is outstanding (the fetch's or the controller's). */
  Bool quiet() {
    return npu.io(unit.quiet);
  }

  /** The fetcher's inputs from the controller: {@code running} (the NPU runs a program). */
  void prefetcher(Bool running) {
    npu.io(unit.begin).set(npu.inState(Npu.State.IDLE).and(npu.start));
    npu.io(unit.running).set(running);
    npu.io(unit.holding).set(running.and(npu.inFetch.not()));
  }

  /** Statements of IDLE on start: run the program at {@code programAddress} (the fetcher restarts there). */
  void begin() {
    index.set(uintLit(0, index.width()));
    cause.set(uintLit(0, cause.width()));
    npu.state.set(Npu.st(Npu.State.FETCH));
  }

  /** Statements: the controller takes the offered command into DECODE. */
  private void takeOffered() {
    take.set(boolLit(true));
    cmd.set(npu.io(unit.commands.payload.command));
    cmdPredecoded.set(npu.io(unit.commands.payload.predecoded));
    npu.state.set(Npu.st(Npu.State.DECODE));
  }

  /** Statements of FETCH: take a queued or an arriving command; halt at a fetch that cannot be made. */
  void step(Bool bark) {
    npu.whenOf(npu.io(unit.commands.valid), this::takeOffered)
        .elseWhen(npu.io(unit.stopped), () -> npu.fail(ErrorCause.EXT_ADDRESS))
        .elseWhen(bark, () -> npu.fail(ErrorCause.WATCHDOG));
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
      npu.whenElse(npu.io(unit.queued), this::takeOffered, () -> npu.state.set(Npu.st(Npu.State.FETCH)));
    } else {
      npu.state.set(Npu.st(Npu.State.FETCH));
    }
  }
}
