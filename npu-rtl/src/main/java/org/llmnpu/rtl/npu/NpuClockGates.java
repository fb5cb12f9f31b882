package org.llmnpu.rtl.npu;

import java.util.Optional;
import org.llmnpu.isa.Counter;
import org.llmnpu.isa.dsp.DspPipe;
import org.llmnpu.rtl.mac.MacArray;

/**
 * Which performance counter counts the cycles each of the {@link Npu}'s clock gates is open
 * ({@code clockGating on}), for the energy of the gated units' flip-flops.
 *
 * <ul>
 *   <li>{@code gemmEngine} (the GEMM engine): open exactly in the GEMM unit's busy cycles, {@link Counter#GEMM_CYCLES}
 *       (operand copies, start, array run, drain).</li>
 *   <li>{@code gemm.macArray} (the MAC array inside the engine's gate, {@code GemmEngine#ARRAY_GATE}): open in the
 *       array's run cycles, {@link Counter#ARRAY_CYCLES} (the launch cycle and start to done), and for
 *       {@code rows + cols} cycles after reset (not counted). Inside it the PEs' gates ({@link MacArray}):
 *       {@code wavefront<d>}, open one cycle per beat the array takes, and {@code shadowRow<r>}, one cycle per pass,
 *       both charged {@link #ARRAY_VECTORS} (an upper bound).</li>
 *   <li>{@code dspUnit} (the Vector DSP): open in the DSP commands' cycles, {@link Counter#DSP_CYCLES}, and for
 *       {@link NpuDsp#DSP_GATE_TRAIL} cycles after each run of them (dspin's trailing buffer writes, the lanes'
 *       pipelines settling); the counter leaves those trailing cycles out.</li>
 *   <li>{@code ppmUnit} (the line-rate PPM): open in the PPM commands' cycles, {@link Counter#PPM_CYCLES}, in the
 *       cycles a fused GEMM ({@code gemm ppm=1}) feeds it drain lines, and for the pipeline's latency + 2 cycles
 *       after each run of them. The counter leaves out the trailing cycles and the fused drains' lines (those are
 *       in {@link Counter#GEMM_CYCLES}), so a fused GEMM's PPM clock is charged short by its drain lines.</li>
 * </ul>
 * All gates are also open for the {@value Npu#GATE_WARMUP_CYCLES} cycles after reset (not counted: once per reset).
 *
 * <p>Banks written at most once per command, clocked only in the cycle that writes them, charged
 * {@link Counter#COMMANDS} cycles (commands decoded, an upper bound): the controller's command register
 * ({@link #COMMAND_REGISTER}, written when it takes a command), the fetcher's landing register
 * ({@link #LANDED_COMMAND}, when a command arrives; the up to {@code D − 1} commands read past the last one are not
 * counted) and its queue slots ({@link #COMMAND_QUEUE}, one gate for all slots, when a command is pushed), the
 * snapshot's latch ({@link #SNAPSHOT_LATCH}, in a snapshot's first cycle). The gates also open in the reset's
 * cycles.
 *
 * <p>Inside the DSP's gate, each lane's pipelined units ({@link DspPipe}) have gates of their own
 * ({@code <lane>.<unit>Pipe}), open while an operation of the unit is in execute 1..N − 1: at most N − 1 cycles per
 * operation the unit issued, which the golden ISA simulator counts ({@code IsaSimulator.Result#dspPipeIssues}); the
 * energy model's counter {@link DspPipe#cyclesKey()} is that bound ({@link #pipeCycles}).
 */
public final class NpuClockGates {
  /** The suffix of a DSP lane's pipelined-unit gate ({@code fp16Pipe}, ...). */
  static final String PIPE_SUFFIX = "Pipe";
  /** The gates of the banks written at most once per command (class comment). */
  static final String COMMAND_REGISTER = "commandRegister";
  static final String LANDED_COMMAND = "landedCommand";
  static final String COMMAND_QUEUE = "commandQueue";
  static final String SNAPSHOT_LATCH = "snapshotLatch";
  /**
   * The gate of the {@code dspin} conversion's chunk register (128 bits at the default line), open in the cycles a
   * chunk moves, which are among the DSP's ({@link Counter#DSP_CYCLES}, an upper bound): without it the register took
   * every line the scratchpad's read port showed and the conversion pipeline behind it switched on every DMA store.
   */
  static final String DSP_IN_CHUNK = "dspInChunk";
  /**
   * The gates of the {@code dspin} conversion's stages 2 and 3 (the magnitudes and copies; the rounders), open in the
   * cycle a chunk enters them, one and two cycles after it moved: as many cycles as {@link #DSP_IN_CHUNK}'s.
   */
  static final String DSP_IN_CONVERT = "dspInConvert";
  static final String DSP_IN_ROUND = "dspInRound";

  /**
   * The gate of the predecode's product registers ({@link NpuPredecode}, {@code predecode_product*}), open in the
   * cycle a command's last beat arrives: charged {@link Counter#COMMANDS}, as the landing register.
   */
  static final String PREDECODE_PRODUCTS = "predecodeProducts";
  /**
   * The gate of the fetcher's assembly register (a command's beats before its last), open in the cycles such a beat
   * arrives: charged {@link Counter#EXT_READ_BEATS} (an upper bound: every one is a read beat).
   */
  static final String COMMAND_ASSEMBLY = "commandAssembly";
  /**
   * The gate of the Vector DSP's polynomial tables ({@code VectorDspPaths#TABLE_GATE}), open in the cycles a
   * {@code dsptab} beat writes them: charged {@link Counter#EXT_READ_BEATS} (an upper bound: every one is a read
   * beat).
   */
  static final String DSP_TABLES = org.llmnpu.rtl.dsp.VectorDsp.TABLE_GATE;
  /**
   * The gate of the performance counters' high parts ({@link NpuCounters}), open in a clear, in the cycle after a
   * low part carried and when a term wider than the low part counts (a GEMM's MACs): charged {@link #COUNTER_CARRIES}.
   */
  static final String COUNTER_HIGHS = "counterHighs";
  /**
   * The gate of each DSP lane's operand registers ({@code a, b, c}, the broadcast source; {@code DspLane}), inside the
   * DSP's gate, open in the cycles an instruction issues: charged {@link Counter#DSP_INSTRUCTIONS}.
   */
  static final String LANE_OPERANDS = "laneOperands";
  /** The energy model's key of {@link #COUNTER_HIGHS}'s open cycles ({@link #counterCarries}). */
  public static final String COUNTER_CARRIES = "counterCarries";

  /**
   * An upper bound of the cycles {@link #COUNTER_HIGHS} is open over a run whose counters ended at {@code counters}
   * (by {@link Counter#key}): one per command decoded (a GEMM's wide MAC terms count at most once per command) plus
   * each counter's carries into its high part, {@code floor(value / 2^24)}.
   */
  public static long counterCarries(java.util.Map<String, Long> counters) {
    long sum = counters.getOrDefault(Counter.COMMANDS.key(), 0L);
    for (Counter c : Counter.values()) {
      sum += counters.getOrDefault(c.key(), 0L) >>> NpuCounters.LOW;
    }
    return sum;
  }

  private NpuClockGates() {
  }

  /**
   * The energy model's counter key of the cycles the gate {@code bank} (its path in the design, instances separated
   * by dots, sections included) is open: a unit gate's {@link #enableCounter}, a DSP pipelined unit's
   * {@link DspPipe#cyclesKey()}; empty for a gate this class does not know.
   */
  public static Optional<String> enableKey(String bank) {
    String local = bank.substring(bank.lastIndexOf('.') + 1);
    if (local.endsWith(PIPE_SUFFIX)) {
      String unit = local.substring(0, local.length() - PIPE_SUFFIX.length()).toUpperCase(java.util.Locale.ROOT);
      return java.util.Arrays.stream(DspPipe.values()).filter(p -> p.name().equals(unit)).findFirst()
          .map(DspPipe::cyclesKey);
    }
    if (local.matches("(" + MacArray.WAVEFRONT_GATE + "|" + MacArray.SHADOW_GATE + ")[0-9]+")) {
      return Optional.of(ARRAY_VECTORS);
    }
    if (local.equals(COUNTER_HIGHS)) {
      return Optional.of(COUNTER_CARRIES);
    }
    return enableCounter(local).map(Counter::key);
  }

  /**
   * The energy model's key of the input vectors (beats) the GEMM engine took, {@code M·ceil(K/rows)·ceil(N/rows)}
   * per GEMM command, from the golden run's GEMM shapes: an upper bound of the cycles each of the MAC array's
   * wavefront gates is open (one per beat; N:M GEMMs take fewer) and of each row-shadow gate's (one per pass).
   */
  public static final String ARRAY_VECTORS = "arrayVectors";

  /**
   * The counters {@link #enableKey} names for the DSP's pipelined units: {@code N − 1} cycles per operation each unit
   * issued ({@code issues} by {@link DspPipe} ordinal; {@code executeStages} = N), an upper bound of the cycles its
   * gates are open (operations in flight together share cycles).
   */
  public static java.util.Map<String, Long> pipeCycles(long[] issues, int executeStages) {
    java.util.Map<String, Long> out = new java.util.LinkedHashMap<>();
    for (DspPipe p : DspPipe.values()) {
      out.put(p.cyclesKey(), issues[p.ordinal()] * Math.max(0, executeStages - 1));
    }
    return out;
  }

  /** The counter of the cycles the gate {@code bank} (its path in the design, sections included) is open. */
  public static Optional<Counter> enableCounter(String bank) {
    String name = bank.substring(Math.max(bank.lastIndexOf('.'), bank.lastIndexOf('_')) + 1);
    return switch (name) {
      case "gemmEngine" -> Optional.of(Counter.GEMM_CYCLES);
      case org.llmnpu.rtl.mac.GemmEngine.ARRAY_GATE -> Optional.of(Counter.ARRAY_CYCLES);
      case "dspUnit", DSP_IN_CHUNK, DSP_IN_CONVERT, DSP_IN_ROUND -> Optional.of(Counter.DSP_CYCLES);
      case "ppmUnit" -> Optional.of(Counter.PPM_CYCLES);
      case COMMAND_REGISTER, LANDED_COMMAND, COMMAND_QUEUE, SNAPSHOT_LATCH, PREDECODE_PRODUCTS ->
          Optional.of(Counter.COMMANDS);
      case COMMAND_ASSEMBLY, DSP_TABLES -> Optional.of(Counter.EXT_READ_BEATS);
      case LANE_OPERANDS -> Optional.of(Counter.DSP_INSTRUCTIONS);
      default -> Optional.empty();
    };
  }
}
