package org.llmnpu.rtl.npu;

import static org.llmnpu.hdl.Hw.bitsToHold;
import static org.llmnpu.hdl.Hw.cat;
import static org.llmnpu.hdl.Hw.uint;
import static org.llmnpu.hdl.Hw.uintLit;

import java.util.ArrayList;
import java.util.List;
import org.llmnpu.hdl.Bool;
import org.llmnpu.hdl.UInt;
import org.llmnpu.isa.ErrorCause;
import org.llmnpu.isa.MachineParams;

/**
 * The {@link Npu}'s command fetch: the program counter, the index of the current command and the
 * 256-bit command register, filled by {@code beatsPerCommand = max(1, 32 / line)} memory beats
 * (requests issued as the memory accepts them, responses shifted in from the top); the DECODE
 * cycle follows the last response ({@link NpuDecode} on the command's eight words). A command whose
 * 32 bytes lie beyond the memory (or a misaligned program counter) halts with {@code EXT_ADDRESS}.
 * Cycles: {@code org.llmnpu.isa.CycleModel} "fetch + decode".
 */
final class NpuFetch {
  final UInt pc;
  final UInt index;
  final UInt cause;
  final UInt cmd;
  /** The command's words 0..7 and its opcode (word 0 bits 7:0). */
  final List<UInt> words = new ArrayList<>();
  UInt opcode;
  /** Requests issued and responses received for the current command. */
  UInt issued;
  UInt received;
  Bool fault;
  private final Npu npu;
  private final int beatsPerCommand;

  NpuFetch(Npu npu) {
    this.npu = npu;
    beatsPerCommand = npu.p.beatsPerCommand();
    pc = npu.reg0("pc", uint(Npu.ADDR));
    index = npu.reg0("commandIndex", uint(32));
    cause = npu.reg0("cause", uint(3));
    cmd = npu.reg0("command", uint(256));
  }

  /** The command's fields and the decode checks. */
  NpuDecode decode() {
    for (int i = 0; i < 8; i++) {
      words.add(npu.wireOf("word" + i, cmd.slice(32 * i + 31, 32 * i)));
    }
    opcode = npu.wireOf("opcode", words.get(0).lsbs(8));
    return new NpuDecode(npu, npu.p, words, NpuSnapshot.BYTES);
  }

  /** The beat counters of the fetch and its address check. */
  void beatCounters() {
    MachineParams p = npu.p;
    int bpcBits = bitsToHold(beatsPerCommand);
    issued = npu.reg0("fetch_issued", uint(bpcBits));
    received = npu.reg0("fetch_received", uint(bpcBits));
    fault = npu.wireOf("fetch_fault", pc.resize(Npu.WIDE).add(uintLit(32, Npu.WIDE))
        .gt(uintLit(p.extMemBytes(), Npu.WIDE)).or(pc.lsbs(5).ne(0)));
  }

  /** The fetch wants the memory: beats of the command left to request. */
  Bool requesting() {
    return npu.inFetch.and(issued.lt(beatsPerCommand)).and(fault.not());
  }

  /** Memory address of the next request. */
  UInt requestAddress() {
    return pc.add(issued.resize(Npu.ADDR).shiftLeft(npu.lineShift).resize(Npu.ADDR));
  }

  /** Statements of IDLE on start: run the program at {@code programAddress}. */
  void begin() {
    pc.set(npu.programAddress);
    index.set(index.sub(index));
    cause.set(cause.sub(cause));
    issued.set(issued.sub(issued));
    received.set(received.sub(received));
    npu.state.set(Npu.st(Npu.State.FETCH));
  }

  /** Statements of FETCH. */
  void step(Bool bark) {
    int lineBits = 8 * npu.line;
    npu.whenOf(fault, () -> npu.fail(ErrorCause.EXT_ADDRESS))
        .elseWhen(bark, () -> npu.fail(ErrorCause.WATCHDOG))
        .otherwise(() -> {
          npu.whenDo(npu.fire, () -> issued.set(issued.add(1)));
          npu.whenDo(npu.mem_resp_valid, () -> {
            UInt shifted = beatsPerCommand == 1 ? npu.mem_resp_data.resize(256)
                : cat(npu.mem_resp_data, cmd.slice(255, lineBits)).asUInt();
            cmd.set(shifted);
            received.set(received.add(1));
            npu.whenDo(received.eq(beatsPerCommand - 1), () -> npu.state.set(Npu.st(Npu.State.DECODE)));
          });
        });
  }

  /** Statements: the command is done, fetch the next one. */
  void next() {
    pc.set(pc.add(32));
    index.set(index.add(1));
    issued.set(issued.sub(issued));
    received.set(received.sub(received));
    npu.state.set(Npu.st(Npu.State.FETCH));
  }
}
