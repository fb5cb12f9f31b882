package org.llmnpu.cosim.axi;

import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;
import org.llmnpu.hdl.emit.Verilog;
import org.llmnpu.hdl.sim.SimulationException;
import org.llmnpu.hdl.sim.Simulator;
import org.llmnpu.isa.Counter;
import org.llmnpu.rtl.npu.NpuConfig;
import org.llmnpu.rtl.npu.axi.NpuAxi;
import org.llmnpu.rtl.npu.axi.NpuAxiStatus;
import org.llmnpu.verilator.SimOptions;
import org.llmnpu.verilator.Simulators;
import org.llmnpu.verilator.axi.Axi4MemoryConfig;
import org.llmnpu.verilator.axi.Axi4ProtocolChecker;
import org.llmnpu.verilator.axi.Axi4SlaveMemory;
import org.llmnpu.verilator.axi.AxiLiteHost;

/**
 * A host CPU driving the AXI NPU ({@link NpuAxi}, {@code bus=axi}) in Verilator the way a driver on an SoC would:
 * it writes PROG_BASE, PROG_LEN and IRQ_ENABLE over AXI4-Lite, writes START to CTRL, waits for {@code irq} (or polls
 * STATUS), reads STATUS and the counters, and clears the interrupt. The NPU's memory is {@link Axi4SlaveMemory} (its
 * latency, bandwidth, back-pressure and reordering from an {@link Axi4MemoryConfig}) with its
 * {@link Axi4ProtocolChecker}, which ends the run with an {@code Axi4ProtocolViolation} on any AXI rule the NPU
 * breaks. Every cycle of the run is one {@link Axi4SlaveMemory#tick()}, the host's register accesses included.
 *
 * <p><b>Dispatch overhead</b>, measured in each run: {@link Run#startToFetch} = cycles from the first cycle of the
 * CTRL write (AW and W presented) to the first AR handshake (the first command fetch); {@link Run#lastStoreToIrq}
 * = cycles from the last W beat's handshake to the first cycle {@code irq} is high (−1 when the program stores
 * nothing).
 */
public final class NpuAxiHost implements AutoCloseable {
  public static final int ID = 0x00;
  public static final int PROG_BASE = 0x04;
  public static final int PROG_LEN = 0x08;
  public static final int CTRL = 0x0C;
  public static final int STATUS = 0x10;
  public static final int IRQ_ENABLE = 0x14;
  public static final int IRQ_STATUS = 0x18;
  public static final int COUNTER_0 = 0x20;
  /** A register access may take this many cycles before it is an error. */
  static final int ACCESS_LIMIT = 1000;

  /**
   * One program's run through the register map.
   *
   * @param memory         the memory image after the run
   * @param done           STATUS.done (the program reached {@code halt} with no bus error)
   * @param errorCause     STATUS bits 15:8 (0 when done; ErrorCause codes 1..7, 8/9 bus read/write error)
   * @param counters       the counters of the register map ({@link NpuAxiStatus#SHOWN})
   * @param cycles         cycles from the CTRL write's first cycle to the first cycle of {@code irq}
   * @param startToFetch   cycles from the CTRL write's first cycle to the first AR handshake
   * @param lastStoreToIrq cycles from the last W beat to {@code irq}, or −1 without writes
   * @param readBursts     AR handshakes
   * @param readBeats      R beats
   * @param writeBeats     W beats
   * @param readsOutOfOrder read bursts the memory answered before an older one
   * @param checks         how often the protocol checker checked each rule
   * @param wallSeconds    wall time of the run
   */
  public record Run(byte[] memory, boolean done, int errorCause, Map<Counter, Long> counters, long cycles,
                    long startToFetch, long lastStoreToIrq, long readBursts, long readBeats, long writeBeats,
                    long readsOutOfOrder, Map<Axi4ProtocolChecker.Rule, Long> checks, double wallSeconds) {
    public long counter(Counter c) {
      Long v = counters.get(c);
      if (v == null) {
        throw new IllegalArgumentException(c + " is not in the register map; it shows " + NpuAxiStatus.SHOWN);
      }
      return v;
    }

    /** The run's end as the host reports it: {@code done}, or {@code error: } and the cause's name. */
    public String status() {
      return done ? "done" : "error: " + describeError(errorCause);
    }
  }

  /**
   * STATUS's error cause {@code cause} in words: the NPU's {@link org.llmnpu.isa.ErrorCause} (1..7), or a bus error
   * ({@link NpuAxiStatus#BUS_READ_ERROR}, {@link NpuAxiStatus#BUS_WRITE_ERROR}: the NPU halted when it was answered).
   */
  public static String describeError(int cause) {
    if (cause == NpuAxiStatus.BUS_READ_ERROR) {
      return "bus read error (RRESP SLVERR or DECERR; the NPU halted)";
    }
    if (cause == NpuAxiStatus.BUS_WRITE_ERROR) {
      return "bus write error (BRESP SLVERR or DECERR; the NPU halted)";
    }
    if (cause >= 1 && cause <= 7) {
      return org.llmnpu.isa.ErrorCause.fromCode(cause).name() + " (cause " + cause + ")";
    }
    return "unknown cause " + cause;
  }

  private final Simulator sim;
  private final NpuConfig config;

  /** A host on {@code sim}, a running model of {@code new NpuAxi(config)}. */
  public NpuAxiHost(Simulator sim, NpuConfig config) {
    this.sim = sim;
    this.config = config;
  }

  /** An AXI4-Lite host on the registers whose cycles tick {@code memory} (for register-level tests). */
  public AxiLiteHost registers(Axi4SlaveMemory memory) {
    return new AxiLiteHost(sim, "ctrl_", ACCESS_LIMIT, memory::tick);
  }

  /** Builds (or takes from the cache) and starts the model of the AXI NPU of {@code config}. */
  public static NpuAxiHost start(NpuConfig config, SimOptions options) {
    NpuConfig axi = config.toBuilder().bus("axi").build();
    return new NpuAxiHost(Simulators.start(Verilog.emit(new NpuAxi(axi)), options), axi);
  }

  public NpuConfig config() {
    return config;
  }

  public Simulator simulator() {
    return sim;
  }

  /**
   * Runs the program at {@code programAddress} ({@code programBytes} long, written to PROG_LEN) of {@code image} from
   * reset on a memory of timing {@code memory} (its {@code sizeBytes} may be below the image's length: addresses
   * beyond it are answered DECERR); waits for {@code irq} ({@code poll} false) or polls STATUS until done or error,
   * at most {@code maxCycles}. With the interrupt the run ends by clearing IRQ_STATUS; polled, IRQ_ENABLE is 0 and
   * IRQ_STATUS is left as the run set it.
   */
  public Run run(byte[] image, long programAddress, long programBytes, Axi4MemoryConfig memory, long maxCycles,
                 boolean poll) {
    sim.reset(2);
    Axi4SlaveMemory mem = new Axi4SlaveMemory(sim, "m_axi_", config.machine().lineBytes(), memory);
    mem.load(0, java.util.Arrays.copyOf(image, Math.min(image.length, memory.sizeBytes())));
    AxiLiteHost host = new AxiLiteHost(sim, "ctrl_", ACCESS_LIMIT, mem::tick);
    long wall = System.nanoTime();
    host.write(PROG_BASE, programAddress);
    host.write(PROG_LEN, programBytes);
    host.write(IRQ_ENABLE, poll ? 0 : 0b11);
    mem.clearTimestamps();
    long t0 = sim.cycle();
    host.write(CTRL, 1);
    long status;
    if (poll) {
      while (true) {
        status = host.read(STATUS);
        if ((status & 0b110) != 0) {
          break;
        }
        if (sim.cycle() - t0 > maxCycles) {
          throw new SimulationException("the AXI NPU did not finish the program at 0x" + Long.toHexString(programAddress)
              + " within " + maxCycles + " cycles (STATUS polled: 0x" + Long.toHexString(status) + ")");
        }
      }
    } else {
      mem.runUntil("irq", 1, maxCycles);
    }
    long end = sim.cycle();
    status = host.read(STATUS);
    Map<Counter, Long> counters = new EnumMap<>(Counter.class);
    for (int i = 0; i < NpuAxiStatus.SHOWN.size(); i++) {
      counters.put(NpuAxiStatus.SHOWN.get(i), host.read(COUNTER_0 + 4L * i));
    }
    if (!poll) {
      host.write(IRQ_STATUS, 0b11);
    }
    double seconds = (System.nanoTime() - wall) / 1e9;
    byte[] out = java.util.Arrays.copyOf(mem.dump(0, Math.min(image.length, memory.sizeBytes())), image.length);
    long fetch = mem.firstReadAddressCycle();
    long lastWrite = mem.lastWriteBeatCycle();
    return new Run(out, (status & 0b010) != 0, (int) (status >> 8) & 0xFF, Collections.unmodifiableMap(counters),
        end - t0, fetch < 0 ? -1 : fetch - t0, lastWrite < 0 ? -1 : end - lastWrite, mem.readAddresses(),
        mem.readBeats(), mem.writeBeats(), mem.readsOutOfOrder(), mem.checker().checks(), seconds);
  }

  @Override
  public void close() {
    sim.close();
  }
}
