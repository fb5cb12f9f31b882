package org.llmnpu.rtl.npu;

import java.util.Arrays;
import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;
import org.llmnpu.hdl.sim.ExternalMemory;
import org.llmnpu.hdl.sim.SimulationException;
import org.llmnpu.hdl.sim.Simulator;
import org.llmnpu.isa.Counter;
import org.llmnpu.isa.ErrorCause;
import org.llmnpu.isa.MachineParams;

/**
 * Drives a simulated {@link Npu} through its top-level ports, the one place that knows them. It loads an
 * external-memory image into the model that serves the NPU's memory port, with the configuration's read latency
 * ({@code memLatency} cycles) and bandwidth (one {@code lineBytes} beat every {@code beatInterval} cycles); resets
 * the NPU, pokes {@code programAddress} and pulses {@code start}; waits for {@code finished} inside the model (the
 * program runs free, with no round trip per cycle); and reads {@code errorCause}, {@code errorCommand}, the counters
 * (one {@code counterSelect} poke and one {@code counterValue} peek each) and the memory back.
 *
 * <p>Timing of a run: cycle 0 is the cycle {@code start} is high; {@link #awaitFinished} counts the cycles after it
 * until {@code finished} is seen. {@code finished} rises with the end of the program ({@code halt} or an error) once
 * a running GEMM has drained and no memory read is outstanding, so the cycles waited are at least the {@code cycles}
 * counter (start to halt or error). A program that has not finished within the caller's limit is reported as a
 * {@link HangException} with the counters at that moment; the NPU's own watchdog ({@code watchdogCycles}) halts
 * every wait for the memory with {@code WATCHDOG}, so a hang is a design error or a limit below the program's
 * length. A hung NPU may have reads in flight, and it may issue more in the cycles of its reset: after a hang,
 * {@link #configureMemory} (or {@link #loadImage}) must follow {@link #reset} before the next start, which drops
 * them.
 *
 * <p>One driver runs any number of programs on one model, each from reset: {@link #run} does every step; the steps
 * are public for callers that act between them (e.g. dump waveforms from {@code start} to {@code finished} only).
 */
public final class NpuDriver {
  /**
   * One program's run on the RTL.
   *
   * @param memory           the external-memory image after the run
   * @param error            {@link ErrorCause#NONE} when the program reached {@code halt}
   * @param errorCommand     index of the command that failed (0 when none did)
   * @param counters         every {@link Counter} as the NPU counted it
   * @param cyclesToFinished cycles from the {@code start} cycle until {@code finished} was seen
   * @param wallSeconds      wall-clock seconds of the free-running wait
   */
  public record Run(byte[] memory, ErrorCause error, int errorCommand, Map<Counter, Long> counters,
                    long cyclesToFinished, double wallSeconds) {
    public long counter(Counter c) {
      return counters.get(c);
    }
  }

  /** The program did not finish within the cycle limit: a hang of the design or a limit below the program's length. */
  public static final class HangException extends RuntimeException {
    private final transient Map<Counter, Long> counters;

    HangException(String message, Map<Counter, Long> counters, Throwable cause) {
      super(message, cause);
      this.counters = counters;
    }

    /** The counters when the wait gave up. */
    public Map<Counter, Long> counters() {
      return counters;
    }
  }

  static final String START = "start";
  static final String PROGRAM_ADDRESS = "programAddress";
  static final String FINISHED = "finished";
  static final String ERROR_CAUSE = "errorCause";
  static final String ERROR_COMMAND = "errorCommand";
  static final String COUNTER_SELECT = "counterSelect";
  static final String COUNTER_VALUE = "counterValue";
  /** Bytes per bulk load; all-zero chunks are skipped (the memory is zeroed when configured). */
  private static final int LOAD_CHUNK = 1 << 15;

  private final Simulator sim;
  private final NpuConfig config;
  private final MachineParams machine;
  private final ExternalMemory memory;
  private boolean idle;
  private boolean hung;
  private boolean memoryAfterReset;
  private long programAddress = -1;

  /**
   * A driver for {@code sim}, a running model of {@code new Npu(config)} whose memory port is served by the
   * simulator's {@link Simulator#externalMemory() external memory}.
   */
  public NpuDriver(Simulator sim, NpuConfig config) {
    this.sim = sim;
    this.config = config;
    this.machine = config.machine();
    this.memory = sim.externalMemory();
  }

  /** The NPU parameters this driver was built for. */
  public NpuConfig config() {
    return config;
  }

  /**
   * Runs the program at {@code programAddress} of {@code image} ({@code extMemBytes} long): loads the image,
   * starts the program from reset, waits at most {@code maxCycles} for {@code finished} and reads everything back.
   *
   * @throws HangException when the program has not finished within {@code maxCycles}
   */
  public Run run(byte[] image, long programAddress, long maxCycles) {
    reset();
    loadImage(image);
    start(programAddress);
    long t0 = System.nanoTime();
    long cycles = awaitFinished(maxCycles);
    double seconds = (System.nanoTime() - t0) / 1e9;
    ErrorCause error = error();
    return new Run(dumpImage(), error, error == ErrorCause.NONE ? 0 : errorCommand(), counters(), cycles, seconds);
  }

  /**
   * Allocates the NPU's zeroed external memory ({@code extMemBytes}) with its read latency ({@code memLatency}) and
   * beat interval, and checks that the model's memory port moves the configuration's {@code lineBytes} per beat.
   */
  public void configureMemory() {
    memory.configure(machine.extMemBytes(), machine.memLatency(), machine.beatInterval());
    memoryAfterReset = true;
    if (memory.beatBytes() != machine.lineBytes()) {
      throw new IllegalArgumentException("the model's memory port moves " + memory.beatBytes() + " bytes per beat, "
          + "the NpuConfig's lineBytes is " + machine.lineBytes() + ": the simulator runs another NPU than the config");
    }
  }

  /** {@link #configureMemory} and writes {@code image}, which must be {@code extMemBytes} long. */
  public void loadImage(byte[] image) {
    if (image.length != machine.extMemBytes()) {
      throw new IllegalArgumentException("the memory image has " + image.length + " bytes; it must have "
          + "extMemBytes = " + machine.extMemBytes() + " bytes (extMemMiB = " + config.extMemMiB() + ")");
    }
    configureMemory();
    for (int off = 0; off < image.length; off += LOAD_CHUNK) {
      int n = Math.min(LOAD_CHUNK, image.length - off);
      if (!allZero(image, off, n)) {
        memory.load(off, Arrays.copyOfRange(image, off, off + n));
      }
    }
  }

  /** Holds the NPU in reset for 2 cycles: it is then idle and takes {@code start}. */
  public void reset() {
    sim.reset(2);
    idle = true;
    memoryAfterReset = false;
  }

  /**
   * Pokes {@code programAddress} and holds {@code start} high for one cycle. The NPU must be idle: {@link #reset}
   * since the last start (it takes {@code start} only while idle).
   */
  public void start(long programAddress) {
    if (programAddress < 0 || programAddress >= 1L << Npu.ADDR) {
      throw new IllegalArgumentException("programAddress must be in 0..0x" + Long.toHexString((1L << Npu.ADDR) - 1)
          + " (the " + Npu.ADDR + "-bit port), got " + programAddress);
    }
    if (!idle) {
      throw new IllegalStateException("the NPU has run a program since its reset; reset() it before starting the "
          + "program at 0x" + Long.toHexString(programAddress) + " (it takes start only while idle)");
    }
    if (hung && !memoryAfterReset) {
      throw new IllegalStateException("the NPU hung in its last run and may have memory reads in flight: "
          + "configureMemory() or loadImage() after reset() before starting the program at 0x"
          + Long.toHexString(programAddress));
    }
    idle = false;
    hung = false;
    this.programAddress = programAddress;
    sim.poke(PROGRAM_ADDRESS, programAddress);
    sim.poke(START, 1);
    sim.step(1);
    sim.poke(START, 0);
  }

  /**
   * Runs the model until {@code finished}, at most {@code maxCycles} cycles after the {@code start} cycle; returns
   * the cycles run.
   *
   * @throws HangException when the program has not finished by then
   */
  public long awaitFinished(long maxCycles) {
    if (maxCycles < 1) {
      throw new IllegalArgumentException("maxCycles must be >= 1, got " + maxCycles);
    }
    if (programAddress < 0) {
      throw new IllegalStateException("no program started: start() one before waiting for it to finish");
    }
    try {
      return memory.runUntilNonZero(FINISHED, maxCycles);
    } catch (SimulationException e) {
      hung = true;
      Map<Counter, Long> now = counters();
      throw new HangException(String.format("the NPU did not finish the program at 0x%x within maxCycles = %,d "
          + "cycles: %,d commands decoded (the last one, index %d, still running), %,d cycles counted, %,d DMA bytes "
          + "loaded and %,d stored; its watchdog halts memory waits after watchdogCycles = %d, so either the program "
          + "needs more cycles or the design hangs", programAddress, maxCycles, now.get(Counter.COMMANDS),
          Math.max(0, now.get(Counter.COMMANDS) - 1), now.get(Counter.CYCLES), now.get(Counter.DMA_LOAD_BYTES),
          now.get(Counter.DMA_STORE_BYTES), machine.watchdogCycles()), now, e);
    }
  }

  /** Whether the NPU shows {@code finished} now (one peek; {@link #awaitFinished} waits inside the model). */
  public boolean finished() {
    return sim.peekLong(FINISHED) != 0;
  }

  /** The error the program stopped with ({@link ErrorCause#NONE} after {@code halt}). */
  public ErrorCause error() {
    return ErrorCause.fromCode((int) sim.peekLong(ERROR_CAUSE));
  }

  /** The index of the command that failed (meaningful when {@link #error()} is not NONE). */
  public int errorCommand() {
    return (int) sim.peekLong(ERROR_COMMAND);
  }

  /** One counter's value now. */
  public long counter(Counter c) {
    sim.poke(COUNTER_SELECT, c.ordinal());
    return sim.peekLong(COUNTER_VALUE);
  }

  /** Every counter's value now, in {@link Counter} order. */
  public Map<Counter, Long> counters() {
    Map<Counter, Long> out = new EnumMap<>(Counter.class);
    for (Counter c : Counter.values()) {
      out.put(c, counter(c));
    }
    return Collections.unmodifiableMap(out);
  }

  /**
   * The whole external memory. The NPU checks every address before it uses the port, so an access outside the
   * memory is a design error and throws.
   */
  public byte[] dumpImage() {
    byte[] out = memory.dump(0, (int) machine.extMemBytes());
    long faults = memory.faults();
    if (faults != 0) {
      throw new IllegalStateException("the NPU accessed memory outside the image (" + faults + " faults) although "
          + "it checks every address: a design error");
    }
    return out;
  }

  private static boolean allZero(byte[] b, int off, int n) {
    for (int i = off; i < off + n; i++) {
      if (b[i] != 0) {
        return false;
      }
    }
    return true;
  }
}
