package org.llmnpu.isa;

import java.util.function.Consumer;
import org.llmnpu.isa.dsp.DspKernels;
import org.llmnpu.isa.dsp.DspPipeline;

/**
 * What a program may assume about the NPU that runs it: the parameters the golden ISA simulator
 * and the cycle model need. {@code npu-rtl}'s {@code NpuConfig} derives one from its own
 * parameters; a software stack that targets an NPU holds one.
 *
 * @param rows           MAC array rows (K per tile); the array is square, so also its columns
 * @param lineBytes      bytes per external-memory beat and per scratchpad line (= {@code rows}); every
 *                       DMA address and stride and every GEMM operand address and stride is a multiple of it
 * @param spadBytes      scratchpad capacity in bytes, a multiple of {@code lineBytes · spadBanks}
 * @param spadBanks      scratchpad banks (lines interleaved: bank = line mod banks)
 * @param extMemBytes    external-memory size in bytes (addresses are 32 bits)
 * @param mTile          periphery accumulator depth (M rows per chunk)
 * @param accWidth       accumulator width in bits, 2..32 (results are sign-extended to INT32)
 * @param icAccumDepth   K tiles folded before a partial-sum write-back; 0 = all
 * @param maxM           largest GEMM M the engine buffers hold
 * @param maxK           largest GEMM K
 * @param maxN           largest GEMM N
 * @param memLatency     external-memory read latency in cycles, request to data, &ge; 1
 * @param memBytesPerCycle external-memory bandwidth; the memory accepts one {@code lineBytes} beat every
 *                       {@code ceil(lineBytes / memBytesPerCycle)} cycles
 * @param watchdogCycles cycles a memory wait may last before the NPU halts with {@link ErrorCause#WATCHDOG}
 * @param dsp            the Vector DSP's lanes, buffer, program memory and tables
 * @param weightRowsPerCycle W rows a GEMM copies from the scratchpad into the engine per cycle, a power of
 *                       two in 1..rows (the controller's W copy takes {@code ceil(N/rows)·ceil(K/weightRowsPerCycle)}
 *                       cycles); 1 by default
 * @param ppmLatency     the PPM's pipeline latency in cycles ({@code npu-rtl} {@code PpmConfig.latency()}),
 *                       0 when the NPU has no PPM (then {@code ppmcfg}, {@code pputab}, {@code ppm} are
 *                       {@link ErrorCause#UNSUPPORTED})
 * @param ppu            the PPM has the PPU (its table applies to every {@code ppm}; {@code pputab} legal)
 * @param sparsity       the N:M mode the MAC array is built for: {@link Command#DENSE} (dense GEMMs only),
 *                       {@link Command#S2_4} or {@link Command#S4_8} (that mode's GEMMs also legal)
 * @param mxLoad         the DMA decodes MX elements on the load path ({@link Command.LoadMx} legal, else
 *                       {@link ErrorCause#UNSUPPORTED})
 * @param commandQueueDepth commands the NPU's command queue holds, at least 1: the one the
 *                       controller runs and up to {@code commandQueueDepth − 1} the fetcher reads ahead (1 = no
 *                       prefetch: a command is read after the previous one is done); only cycles and the fetch's
 *                       memory reads depend on it ({@link CycleModel}). {@link #builder()} gives 1
 * @param ppmGate        the PPM has the gate operand: a {@code gemm ppm=1 gate=1} multiplies each result by the INT8
 *                       gate code already at its Y byte (the SwiGLU gate; else {@link ErrorCause#UNSUPPORTED}); needs a
 *                       PPM. {@link #builder()} gives {@code false}
 * @param xKeep          the GEMM engine keeps its X buffer across GEMMs: a {@code gemm xKeep=1} copies no X and uses
 *                       the X the last X copy left there ({@link HeldX}; else {@link ErrorCause#UNSUPPORTED}).
 *                       {@link #builder()} gives {@code false}
 * @param ppmWide        the PPM has {@code lineBytes} lanes instead of {@code lineBytes / 4} ({@link #ppmLanes()}): a
 *                       {@code gemm ppm=1}'s drain reads a whole N tile of a row ({@code line} INT32 results) a cycle
 *                       and writes its {@code line} INT8 codes as one line, {@code M·ceil(N/line)} drain cycles instead
 *                       of {@code M·ceil(4N/line)} (same codes, same bytes); a {@code ppm} command is unchanged.
 *                       {@link #builder()} gives {@code false}
 */
public record MachineParams(int rows, int lineBytes, int spadBytes, int spadBanks, long extMemBytes, int mTile,
                            int accWidth, int icAccumDepth, int maxM, int maxK, int maxN, int memLatency,
                            int memBytesPerCycle, int watchdogCycles, DspParams dsp, int weightRowsPerCycle,
                            int ppmLatency, boolean ppu, int sparsity, boolean mxLoad, int commandQueueDepth,
                            boolean ppmGate, boolean xKeep, boolean ppmWide) {

  /** The PPM's lanes (INT32 results in, INT8 codes out a cycle): {@code lineBytes} if {@link #ppmWide}, else {@code max(1, lineBytes / 4)}. */
  public int ppmLanes() {
    return ppmWide ? lineBytes : Math.max(1, lineBytes / 4);
  }

  /**
   * Drain cycles of a {@code gemm ppm=1} of {@code m} rows and {@code n} columns: one PPM input a cycle,
   * {@code m·ceil(4n / line)} with {@code line/4} lanes, {@code m·ceil(n / line)} with a {@link #ppmWide} PPM (the
   * back-end is idle {@link #ppmLatency()} cycles after its last one). Also its scratchpad line writes.
   */
  public long ppmDrainLines(long m, long n) {
    long perRow = ppmWide ? n : 4 * n;
    return m * ((perRow + lineBytes - 1) / lineBytes);
  }

  /** Whether the NPU has a PPM. */
  public boolean hasPpm() {
    return ppmLatency > 0;
  }

  /**
   * Channels of the PPM's parameter memory ({@code ppmcfg}): {@code max(rows, maxN)}, so a {@code ppm} (N ≤ rows)
   * and a {@code gemm ppm=1} (N ≤ maxN) find channel n for every output column n.
   */
  public int ppmChannels() {
    return Math.max(rows, maxN);
  }

  /**
   * The Vector DSP of the NPU.
   *
   * @param lanes          SIMD lanes (a buffer row holds {@code lanes} FP16 elements)
   * @param rows           buffer rows (DSP addresses wrap at {@code rows})
   * @param programDepth   program memory words (the program counter wraps)
   * @param tableSegments  polynomial table segments held per table, 1..16
   * @param tableDegree    polynomial degree, 0..3
   * @param maxRunCycles   cycles a DSP run may take before the NPU halts with {@link ErrorCause#WATCHDOG}; the allowed
   *                       values of these four are {@code npu-rtl}'s ({@code NpuParameter})
   * @param executeStages  the DSP's execute stages, 1..4 ({@link DspPipeline}): its interlock stalls count in every
   *                       {@code dsprun}'s cycles, and programs for it are best compiled with
   *                       {@code DspKernels.Options.forPipeline(pipeline(), false)}
   * @param permute        the DSP has the buffer permutations ({@code LDS}, {@code STS}, {@code ROT}, {@code LDG},
   *                       {@code STG}: {@code DspPermutations}); without them those opcodes execute as NOPs, as the
   *                       hardware built without them does (npu-rtl's {@code dspPermute})
   */
  public record DspParams(int lanes, int rows, int programDepth, int tableSegments, int tableDegree, long maxRunCycles,
                          int executeStages, boolean permute) {
    /**
     * The default NPU's DSP: 16 lanes, 512 rows (16 KiB), 256 program words, 12 segments of degree 2, runs of at
     * most 2^24 cycles, 4 execute stages (the DSP that meets the NPU's target clock of 5.75 ns at 180 nm).
     */
    public static final DspParams DEFAULT = new DspParams(16, 512, 256, 12, 2, 1L << 24, 4);

    /** A DSP with one execute stage (no interlock stalls). */
    public DspParams(int lanes, int rows, int programDepth, int tableSegments, int tableDegree, long maxRunCycles) {
      this(lanes, rows, programDepth, tableSegments, tableDegree, maxRunCycles, 1);
    }

    /** A DSP without the buffer permutations. */
    public DspParams(int lanes, int rows, int programDepth, int tableSegments, int tableDegree, long maxRunCycles,
                     int executeStages) {
      this(lanes, rows, programDepth, tableSegments, tableDegree, maxRunCycles, executeStages, false);
    }

    /** Only what the simulator needs to run; the ranges belong to {@code npu-rtl}'s {@code NpuConfig}. */
    public DspParams {
      require(executeStages >= 1 && executeStages <= 4, "dsp executeStages must be 1, 2, 3 or 4, got " + executeStages);
      require(lanes >= 1 && rows >= 1 && programDepth >= 1 && maxRunCycles >= 1,
          "dsp lanes, rows, programDepth and maxRunCycles must be >= 1");
      require(tableSegments >= 1 && tableSegments <= 16, "dsp tableSegments must be in 1..16, got " + tableSegments);
      require(tableDegree >= 0 && tableDegree <= 3, "dsp tableDegree must be in 0..3, got " + tableDegree);
    }

    /** Buffer capacity in FP16 elements. */
    public int elements() {
      return lanes * rows;
    }

    /** The pipeline organisation of {@code executeStages}, which decides the interlock stalls. */
    public DspPipeline pipeline() {
      return DspPipeline.ofExecuteStages(executeStages);
    }

    /**
     * The options to compile {@code DspKernels} for this DSP with: {@link DspKernels.Options#forPipeline} with more
     * than one execute stage (rows interleaved as deep as the stages, so that the interlock finds independent work;
     * same results), else {@link DspKernels.Options#DEFAULT} (a one-stage DSP never stalls).
     */
    public DspKernels.Options kernelOptions() {
      return executeStages > 1 ? DspKernels.Options.forPipeline(pipeline(), false) : DspKernels.Options.DEFAULT;
    }

    /** The same DSP with {@code stages} execute stages (1..4). */
    public DspParams withExecuteStages(int stages) {
      return new DspParams(lanes, rows, programDepth, tableSegments, tableDegree, maxRunCycles, stages, permute);
    }

    /** The same DSP with ({@code true}) or without the buffer permutations (see {@link #permute}). */
    public DspParams withPermute(boolean on) {
      return new DspParams(lanes, rows, programDepth, tableSegments, tableDegree, maxRunCycles, executeStages, on);
    }
  }

  /** Largest rows and row bytes of one DMA command, and largest GEMM dimension. */
  public static final int MAX_DMA_ROWS = 65535;

  /**
   * Checks only what makes the value self-consistent for the simulator and the cycle model (a line is {@code rows}
   * bytes, the scratchpad holds whole lines in every bank, the W copy width divides the rows, a PPU needs a PPM). The
   * parameters' ranges and defaults belong to {@code npu-rtl}'s {@code NpuConfig} (its {@code NpuParameter} table),
   * which is the toolkit's one producer of machines ({@code NpuConfig.machine()}).
   */
  public MachineParams {
    require(rows >= 1 && Integer.bitCount(rows) == 1, "rows must be a power of two, got " + rows);
    require(lineBytes == rows, "lineBytes must equal rows (" + rows + "), got " + lineBytes);
    require(spadBanks >= 1 && spadBytes > 0 && spadBytes % (lineBytes * spadBanks) == 0,
        "spadBytes must be a multiple of lineBytes·spadBanks (" + lineBytes * spadBanks + "), got " + spadBytes);
    require(extMemBytes % lineBytes == 0, "extMemBytes must be a multiple of lineBytes, got " + extMemBytes);
    require(dsp != null, "dsp must be given");
    require(weightRowsPerCycle >= 1 && weightRowsPerCycle <= rows && Integer.bitCount(weightRowsPerCycle) == 1,
        "weightRowsPerCycle must be a power of two in 1.." + rows + " (rows), got " + weightRowsPerCycle);
    require(ppmLatency >= 0, "ppmLatency must be >= 0 (0 = no PPM), got " + ppmLatency);
    require(!ppu || ppmLatency > 0, "ppu needs a PPM (ppmLatency > 0)");
    require(!ppmGate || ppmLatency > 0, "ppmGate needs a PPM (ppmLatency > 0)");
    require(!ppmWide || ppmLatency > 0, "ppmWide needs a PPM (ppmLatency > 0)");
    require(sparsity >= Command.DENSE && sparsity <= Command.S4_8,
        "sparsity must be 0 (dense), 1 (2:4) or 2 (4:8), got " + sparsity);
    require(commandQueueDepth >= 1, "commandQueueDepth must be >= 1 (1 = no prefetch), got " + commandQueueDepth);
  }

  static void require(boolean ok, String message) {
    if (!ok) {
      throw new IllegalArgumentException(message);
    }
  }

  /** A builder of a machine from nothing: see {@link MachineParamsBuilder} for what must be set and the defaults. */
  public static MachineParamsBuilder builder() {
    return new MachineParamsBuilder();
  }

  /** A builder holding this machine, to change several components at once. */
  public MachineParamsBuilder toBuilder() {
    return new MachineParamsBuilder(this);
  }

  /** The same machine with what {@code change} sets: {@code p.with(b -> b.maxN(64).xKeep(true))}. */
  public MachineParams with(Consumer<MachineParamsBuilder> change) {
    MachineParamsBuilder b = toBuilder();
    change.accept(b);
    return b.build();
  }

  /** The same machine with another memory timing. */
  public MachineParams withMemory(int latency, int bytesPerCycle) {
    return with(b -> b.memLatency(latency).memBytesPerCycle(bytesPerCycle));
  }

  /** The same machine with another Vector DSP. */
  public MachineParams withDsp(DspParams d) {
    return with(b -> b.dsp(d));
  }

  /** The same machine with {@code bytes} of external memory. */
  public MachineParams withExtMemBytes(long bytes) {
    return with(b -> b.extMemBytes(bytes));
  }

  /** The same machine with another W copy width (W rows per cycle). */
  public MachineParams withWeightRowsPerCycle(int r) {
    return with(b -> b.weightRowsPerCycle(r));
  }

  /** The same machine with a PPM of {@code latency} cycles (with or without the PPU) and an array built for {@code sparsity}. */
  public MachineParams withUnits(int latency, boolean withPpu, int nmSparsity) {
    return with(b -> b.ppmLatency(latency).ppu(withPpu).sparsity(nmSparsity));
  }

  /** The same machine with ({@code true}) or without MX decoding on the load path ({@link Command.LoadMx}). */
  public MachineParams withMxLoad(boolean mx) {
    return with(b -> b.mxLoad(mx));
  }

  /** The same machine with a command queue of {@code depth} commands (see {@link #commandQueueDepth}). */
  public MachineParams withCommandQueueDepth(int depth) {
    return with(b -> b.commandQueueDepth(depth));
  }

  /** The same machine with ({@code true}) or without the PPM's gate operand (see {@link #ppmGate}). */
  public MachineParams withPpmGate(boolean gate) {
    return with(b -> b.ppmGate(gate));
  }

  /** The same machine with ({@code true}) or without a kept X buffer (see {@link #xKeep}). */
  public MachineParams withXKeep(boolean keep) {
    return with(b -> b.xKeep(keep));
  }

  /** The same machine with a PPM of {@code lineBytes} lanes ({@code true}) or {@code lineBytes / 4} (see {@link #ppmWide}). */
  public MachineParams withPpmWide(boolean wide) {
    return with(b -> b.ppmWide(wide));
  }

  /** Cycles between two accepted memory beats: {@code ceil(lineBytes / memBytesPerCycle)}. */
  public int beatInterval() {
    return (lineBytes + memBytesPerCycle - 1) / memBytesPerCycle;
  }

  /**
   * Whether a {@code gemm} may stream its W from the external memory ({@code wStream=1}: dense INT8 or INT4, or
   * in the array's N:M mode with packed metadata) on this machine's systolic engine: the NPU writes one W row line
   * per beat into the engine's W buffer, so it needs {@code weightRowsPerCycle} 1; elsewhere (and on the PiM
   * engine, see {@link EngineTiming#weightStream()}) a streamed GEMM halts with {@code UNSUPPORTED}.
   */
  public boolean weightStream() {
    return weightRowsPerCycle == 1;
  }

  /** Beats that make up one command: {@code max(1, 32 / lineBytes)}. */
  public int beatsPerCommand() {
    return Math.max(1, Command.BYTES / lineBytes);
  }
}
