package org.llmnpu.isa;

import java.util.Optional;
import org.llmnpu.numerics.gemm.TiledGemm;

/**
 * The golden ISA simulator: executes a program that sits in an external-memory image, command by
 * command, with the {@code numerics} golden models (GEMM: {@link TiledGemm} with the machine's
 * array, accumulator width and IC-accumulation depth). It is the reference the RTL must equal bit
 * for bit: the final memory image, the error status and the {@link Counter#golden() golden}
 * counters; its {@link CycleModel} predicts the cycle counters.
 *
 * <p>Checks per command, in this order (the first failing one halts with its cause and the
 * command's index): opcode defined; the unit or mode it needs ({@link ErrorCause#UNSUPPORTED}: PPM, PPU
 * and a loaded table, the GEMM's N:M sparsity, MX decoding for {@code loadmx}); shape (DMA: 1 ≤ rows, rowBytes ≤ 65535; GEMM: 1 ≤ M, K, N ≤
 * maxM, maxK, maxN); scratchpad range and line alignment; external-memory range and alignment.
 * Fetching a command past the end of memory halts with {@link ErrorCause#EXT_ADDRESS}.
 *
 * <p>The memory image is the NPU's whole external memory, or a <em>bounded image</em>: its first bytes (an NPU with more
 * external memory than a JVM array holds, e.g. 4 GiB, runs a program that uses less). Addresses are checked against the
 * NPU's memory as always; a command that passes those checks but reaches beyond a bounded image (or a fetch from
 * beyond it) stops the run with an {@link IllegalStateException} naming the command: the NPU would not fault there,
 * so the simulator cannot say what it would do.
 */
public final class IsaSimulator {
  /**
   * The outcome of a run.
   *
   * @param memory       the external-memory image afterwards
   * @param scratchpad   the scratchpad afterwards
   * @param error        {@link ErrorCause#NONE} when the program reached halt
   * @param errorCommand index of the command that failed (0 when none did)
   * @param counters     values indexed by {@link Counter#ordinal()}
   * @param dspPipeIssues operations each of the Vector DSP's pipelined units issued, indexed by
   *                     {@link org.llmnpu.isa.dsp.DspPipe#ordinal()} (not a hardware counter: the energy model's bound
   *                     of the cycles the units' clock gates are open)
   */
  public record Result(byte[] memory, byte[] scratchpad, ErrorCause error, int errorCommand, long[] counters,
                       long[] dspPipeIssues) {
    /** A result without the DSP's per-unit operations (all zero). */
    public Result(byte[] memory, byte[] scratchpad, ErrorCause error, int errorCommand, long[] counters) {
      this(memory, scratchpad, error, errorCommand, counters, new long[org.llmnpu.isa.dsp.DspPipe.values().length]);
    }

    public long counter(Counter c) {
      return counters[c.ordinal()];
    }
  }

  private static final long MAX_COMMANDS = 1L << 24;
  private final MachineParams p;
  private final byte[] mem;
  private final byte[] spad;
  private final long[] counters = new long[Counter.values().length];
  private final CycleModel cycles;
  private final DspUnit dsp;
  private final PpmUnit ppm;
  private final CommandChecks checks;
  /** The address checks against a bounded image's end (null: the image is the whole memory). */
  private final CommandChecks imageChecks;
  private final CommandExecution execution;

  private IsaSimulator(MachineParams p, EngineTiming engine, byte[] memory) {
    this.p = p;
    this.mem = memory;
    this.spad = new byte[p.spadBytes()];
    this.cycles = new CycleModel(p, engine);
    this.dsp = new DspUnit(p.dsp());
    this.ppm = new PpmUnit(PpmUnit.channels(p));
    this.checks = new CommandChecks(p, engine);
    this.imageChecks = memory.length < p.extMemBytes() ? new CommandChecks(p.withExtMemBytes(memory.length), engine)
        : null;
    this.execution = new CommandExecution(p, memory, spad, counters, cycles, dsp, ppm);
  }

  /** A {@link Command.PpmCfg} channel record (16 bytes) of a bias, a quantized multiplier and an INT8 zero point. */
  public static byte[] ppmRecord(int bias, org.llmnpu.numerics.requant.QuantizedMultiplier multiplier, int zeroPoint) {
    return PpmUnit.record(bias, multiplier, zeroPoint);
  }

  /** The {@link Command.PpuTab} image (132 bytes) of a 16-segment degree-2 table with 16-bit coefficients. */
  public static byte[] ppuTableImage(org.llmnpu.numerics.ppu.PpuTable table) {
    return PpmUnit.tableImage(table);
  }

  /** Bytes of a {@link Command.PpuTab} image. */
  public static int ppuTableBytes() {
    return PpmUnit.tableBytes();
  }

  /**
   * The {@link Command.DspTab} image of {@code math}'s tables (e.g. {@code DspMath.DEFAULT}, the
   * tables the compiled kernels assume).
   */
  public static byte[] dspTableImage(org.llmnpu.isa.dsp.DspMath math) {
    return DspUnit.tableImage(math);
  }

  /**
   * Runs the program at {@code programAddress} (a multiple of 32) of a copy of {@code memory}
   * ({@code extMemBytes} long, or a bounded image: its first bytes, a multiple of the line; class comment) until halt
   * or an error.
   */
  public static Result run(MachineParams p, byte[] memory, long programAddress) {
    return run(p, EngineTiming.SYSTOLIC, memory, programAddress);
  }

  /**
   * As {@link #run(MachineParams, byte[], long)} on an NPU whose GEMMs run on {@code engine}: the
   * same results (every engine computes {@code TiledGemm}), that engine's cycle counters.
   */
  public static Result run(MachineParams p, EngineTiming engine, byte[] memory, long programAddress) {
    if (memory.length > p.extMemBytes() || memory.length % p.lineBytes() != 0) {
      throw new IllegalArgumentException("memory image has " + memory.length + " bytes: at most extMemBytes "
          + p.extMemBytes() + " and a multiple of the line (" + p.lineBytes() + ")");
    }
    IsaSimulator sim = new IsaSimulator(p, engine, memory.clone());
    return sim.execute(programAddress);
  }

  /**
   * As {@link #run(MachineParams, EngineTiming, byte[], long)} on an NPU whose memories without reset hold values an
   * earlier program left: the scratchpad, the Vector DSP's buffer, registers and program memory and the PPM's
   * parameter banks start with values drawn from {@code seed} instead of the golden's zeros and {@code NOP}s (the
   * tables and the PPU's table keep their reset state: they are registers with reset). A program that reads only what
   * it wrote itself — the NPU's contract (npu-isa README, "The DSP's state") — gives {@link #run}'s result for every
   * seed; one whose memory image, counters or halt differ reads state it never wrote, and on a reused RTL model it
   * differs from the golden.
   */
  public static Result runOnStaleState(MachineParams p, EngineTiming engine, byte[] memory, long programAddress,
                                       long seed) {
    if (memory.length != p.extMemBytes()) {
      throw new IllegalArgumentException("memory image has " + memory.length + " bytes, extMemBytes is " + p.extMemBytes());
    }
    IsaSimulator sim = new IsaSimulator(p, engine, memory.clone());
    java.util.Random stale = new java.util.Random(seed);
    stale.nextBytes(sim.spad);
    sim.dsp.scramble(stale);
    sim.ppm.scramble(stale);
    return sim.execute(programAddress);
  }

  private Result execute(long programAddress) {
    long pc = programAddress;
    cycles.begin(programAddress);
    for (int index = 0; index < MAX_COMMANDS; index++, pc += Command.BYTES) {
      if (pc % Command.BYTES != 0 || pc + Command.BYTES > p.extMemBytes()) {
        cycles.fetchFault();
        return finish(ErrorCause.EXT_ADDRESS, index);
      }
      if (p.memLatency() > p.watchdogCycles()) {
        cycles.fetchFault();
        return finish(ErrorCause.WATCHDOG, index);
      }
      if (pc + Command.BYTES > mem.length) {
        throw beyondImage("command " + index + " is fetched from " + pc);
      }
      // the fetch's beats (also those read ahead) are the cycle model's: CycleModel.fill adds them
      cycles.fetchAndDecode();
      counters[Counter.COMMANDS.ordinal()]++;
      int[] words = CommandCodec.wordsAt(mem, pc);
      Optional<Command> decoded = CommandCodec.decode(words);
      if (decoded.isEmpty()) {
        cycles.decodeFault();
        return finish(ErrorCause.UNDEFINED_OPCODE, index);
      }
      Command c = decoded.get();
      ErrorCause fault = checks.check(c, ppm.tableLoaded(), execution.heldX());
      if (fault != ErrorCause.NONE) {
        cycles.decodeFault();
        return finish(fault, index);
      }
      if (imageChecks != null
          && imageChecks.check(c, ppm.tableLoaded(), execution.heldX()) == ErrorCause.EXT_ADDRESS) {
        throw beyondImage("command " + index + " (" + c + ") addresses external memory");
      }
      Optional<ErrorCause> stop = c.accept(execution);
      if (stop.isPresent()) {
        return finish(stop.get(), stop.get() == ErrorCause.NONE ? 0 : index);
      }
    }
    throw new IllegalStateException("program ran " + MAX_COMMANDS + " commands without halting");
  }

  private IllegalStateException beyondImage(String what) {
    return new IllegalStateException(what + " beyond the bounded memory image's " + mem.length + " bytes (the NPU has "
        + p.extMemBytes() + "): the simulator holds only the image it was given, so it cannot run this program");
  }

  private Result finish(ErrorCause error, int index) {
    cycles.fill(counters);
    return new Result(mem, spad, error, index, counters.clone(), execution.dspPipeIssues());
  }
}
