package org.llmnpu.rtl.npu;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.file.Path;
import org.llmnpu.hdl.ClockGating;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.rtl.dsp.VectorDsp;
import org.llmnpu.rtl.mac.GemmEngineConfig;
import org.llmnpu.rtl.mac.MacArrayConfig;
import org.llmnpu.rtl.mac.WeightSparsity;
import org.llmnpu.rtl.ppm.PpmConfig;

/**
 * Parameters of the {@link Npu}, validated on construction (each message names the parameter and
 * its allowed values); loadable from JSON or YAML with {@link #load}.
 *
 * @param rows             MAC array rows = columns, a power of two in 4..64; also the bytes of a
 *                         scratchpad line and of an external-memory beat
 * @param spadKiB          scratchpad capacity in KiB (power of two)
 * @param spadBanks        scratchpad banks, power of two in 1..16 (lines interleaved across banks)
 * @param extMemMiB        external-memory size in MiB, 1..4096 (addresses are 32 bits)
 * @param mTile            periphery accumulator depth (M rows per chunk)
 * @param accWidth         accumulator width in bits, 2..32
 * @param icAccumDepth     K tiles folded before a partial-sum write-back, 0 = all
 * @param maxM             largest GEMM M (engine X buffer and result memories)
 * @param maxK             largest GEMM K (engine X and W buffers)
 * @param maxN             largest GEMM N (engine W buffer and result memories)
 * @param memLatency       external-memory read latency in cycles (of the simulation model)
 * @param memBytesPerCycle external-memory bandwidth in bytes per cycle (of the simulation model)
 * @param watchdogCycles   cycles any memory wait may last before the NPU halts with a watchdog error
 * @param dspLanes         Vector DSP lanes, a power of two in 1..32 [16]
 * @param dspRows          Vector DSP buffer rows of {@code dspLanes} FP16 elements, a power of two in 16..65536 [512]
 * @param dspProgramDepth  Vector DSP program words, a power of two in 16..4096 [256]
 * @param dspMaxRunCycles  cycles one {@code dsprun} may take before the NPU halts with a watchdog error,
 *                         16..2^32 [2^24]
 * @param engine           the GEMM engine: {@code systolic} (the MAC array, default) or {@code pim}
 *                         (a {@code rows × rows} INT8 compute-in-memory macro, bit-serial;
 *                         {@code pim-k2}, {@code pim-k4}, {@code pim-k8} apply 2, 4 or 8 input bits
 *                         per cycle); same results, different cycles ({@link PimGemmBackend})
 * @param weightRowsPerCycle W rows a GEMM copies from the scratchpad into the engine's W buffer per cycle,
 *                         a power of two in 1..min(rows, 16) [1]: the scratchpad gets {@code weightRowsPerCycle}
 *                         read ports and the engine's W buffer as many row banks, so the W copy takes
 *                         {@code ceil(N/rows)·ceil(K/weightRowsPerCycle)} cycles instead of {@code K·ceil(N/rows)}
 * @param ppu              the PPM's PPU (the programmable C-LUT nonlinearity after requantization) [true];
 *                         the PPM ({@code rows} lanes, INT8 codes) is always built, its latency is
 *                         {@link PpmConfig#latency()} of {@link #ppm()} + 1 (its input register in the NPU)
 * @param mxLoad           MX element decoding on the load path [false]: {@code loadmx} (E4M3, E5M2, INT8 elements
 *                         → INT8 codes, {@link NpuLoadMx}, one decoder per line byte); without it {@code loadmx}
 *                         halts with {@code UNSUPPORTED}
 * @param sparsity         the N:M mode the MAC array is built for: {@code dense} (default), {@code 2:4} or
 *                         {@code 4:8} (also {@code none}, {@code s2_4}, {@code s4_8}; stored as {@code dense},
 *                         {@code 2:4}, {@code 4:8}). A sparse array runs that mode's GEMMs (W compressed: value
 *                         rows then metadata rows, {@code org.llmnpu.isa.Command.Gemm}) and dense GEMMs (see
 *                         {@link NpuGemm}); other N:M modes answer UNSUPPORTED. Needs {@code engine systolic} and
 *                         {@code weightRowsPerCycle 1}
 * @param commandQueueDepth commands the command queue holds, 1..16 [4]: the one the controller runs and up to
 *                         {@code commandQueueDepth − 1} the fetcher reads ahead while it runs ({@link NpuFetch}; 1 = no
 *                         prefetch, every command waits for its own memory latency). The default 4 hides the fetch of
 *                         the commands of a GEMM tile (load X, load W, gemm, store) behind each other at the default
 *                         memory latency (32 cycles) for 768 flip-flops; deeper queues only help runs of commands shorter
 *                         than the latency
 * @param dspStages        the Vector DSP's execute stages, 1..4 [4] ({@code executeStages} of {@code vector-dsp},
 *                         {@link org.llmnpu.isa.dsp.DspPipeline}): 4 pipelines its FP units so that the DSP meets
 *                         the 5.75 ns target clock (177 MHz alone at 180 nm, against 93 MHz with 1); a
 *                         {@code dsprun}'s cycles then include the interlock's stalls (the golden simulator counts
 *                         them, {@code MachineParams.DspParams.executeStages}), and programs should be compiled with
 *                         {@code MachineParams.DspParams.kernelOptions()} (rows interleaved, same results)
 * @param clockGating      {@code on}, {@code off} or {@code checked} [on]: the GEMM engine, the Vector DSP and the PPM
 *                         run on clocks gated by their busy signals ({@code org.llmnpu.hdl.HwModule#clockGated}: a
 *                         latch-and-AND cell per unit), so an idle unit's flip-flops do not toggle; {@code off} is the
 *                         ungated design, {@code checked} the ungated design with simulation checks that stop a run in
 *                         which a gated register changed while its enable was low (tests). Results and cycles are the
 *                         same in all three
 */
public record NpuConfig(int rows, int spadKiB, int spadBanks, int extMemMiB, int mTile, int accWidth,
                        int icAccumDepth, int maxM, int maxK, int maxN, int memLatency, int memBytesPerCycle,
                        int watchdogCycles, int dspLanes, int dspRows, int dspProgramDepth, long dspMaxRunCycles,
                        String engine, int weightRowsPerCycle, boolean ppu, boolean mxLoad,
                        String sparsity, int commandQueueDepth, int dspStages, String clockGating) {

  /** An NPU with clock gating on (see {@code clockGating}). */
  public NpuConfig(int rows, int spadKiB, int spadBanks, int extMemMiB, int mTile, int accWidth, int icAccumDepth,
                   int maxM, int maxK, int maxN, int memLatency, int memBytesPerCycle, int watchdogCycles,
                   int dspLanes, int dspRows, int dspProgramDepth, long dspMaxRunCycles, String engine,
                   int weightRowsPerCycle, boolean ppu, boolean mxLoad, String sparsity, int commandQueueDepth,
                   int dspStages) {
    this(rows, spadKiB, spadBanks, extMemMiB, mTile, accWidth, icAccumDepth, maxM, maxK, maxN, memLatency,
        memBytesPerCycle, watchdogCycles, dspLanes, dspRows, dspProgramDepth, dspMaxRunCycles, engine,
        weightRowsPerCycle, ppu, mxLoad, sparsity, commandQueueDepth, dspStages, DEFAULT_CLOCK_GATING);
  }

  /** The default {@code clockGating}. */
  public static final String DEFAULT_CLOCK_GATING = "on";

  /** The default {@link #commandQueueDepth}. */
  public static final int DEFAULT_COMMAND_QUEUE_DEPTH = 4;

  /**
   * An NPU with the default command queue ({@value #DEFAULT_COMMAND_QUEUE_DEPTH} commands) and the
   * four-stage Vector DSP ({@link #DEFAULT_DSP_STAGES}).
   */
  public NpuConfig(int rows, int spadKiB, int spadBanks, int extMemMiB, int mTile, int accWidth, int icAccumDepth,
                   int maxM, int maxK, int maxN, int memLatency, int memBytesPerCycle, int watchdogCycles,
                   int dspLanes, int dspRows, int dspProgramDepth, long dspMaxRunCycles, String engine,
                   int weightRowsPerCycle, boolean ppu, boolean mxLoad, String sparsity) {
    this(rows, spadKiB, spadBanks, extMemMiB, mTile, accWidth, icAccumDepth, maxM, maxK, maxN, memLatency,
        memBytesPerCycle, watchdogCycles, dspLanes, dspRows, dspProgramDepth, dspMaxRunCycles, engine,
        weightRowsPerCycle, ppu, mxLoad, sparsity, DEFAULT_COMMAND_QUEUE_DEPTH, DEFAULT_DSP_STAGES);
  }

  /** Largest {@code weightRowsPerCycle} (scratchpad read ports). */
  public static final int MAX_WEIGHT_ROWS_PER_CYCLE = 16;
  /** Allowed values of {@code engine}. */
  public static final java.util.List<String> ENGINES = java.util.List.of("systolic", "pim", "pim-k2", "pim-k4", "pim-k8");
  /** Table segments and degree of the DSP: the size of the numerics tables (exp, reciprocal, rsqrt). */
  public static final int DSP_TABLE_SEGMENTS = 12;
  public static final int DSP_TABLE_DEGREE = 2;
  /** The default {@code dspStages}: the four-stage DSP meets the target clock, the one-stage one runs at half of it. */
  public static final int DEFAULT_DSP_STAGES = 4;
  /** Allowed values of {@code sparsity}. */
  public static final java.util.List<String> SPARSITIES = java.util.List.of("dense", "2:4", "4:8");

  public NpuConfig {
    if (engine == null) {
      engine = "systolic";
    }
    // YAML 1.1 reads an unquoted on/off as a boolean
    clockGating = clockGating == null ? DEFAULT_CLOCK_GATING : clockGating.equals("true") ? "on"
        : clockGating.equals("false") ? "off" : clockGating;
    clockGating = ClockGating.parse("clockGating", clockGating).key();
    if (!ENGINES.contains(engine)) {
      throw new IllegalArgumentException("engine must be one of " + String.join(", ", ENGINES) + ", got '" + engine + "'");
    }
    sparsity = canonicalSparsity(sparsity);
    if (!sparsity.equals("dense") && !engine.equals("systolic")) {
      throw new IllegalArgumentException("sparsity " + sparsity + " needs engine systolic (the PiM macro holds dense"
          + " weights); use sparsity dense with engine " + engine);
    }
    if (!sparsity.equals("dense") && maxK > 32768) {
      throw new IllegalArgumentException("sparsity " + sparsity + " needs maxK in 1..32768 (the N:M engine's buffers"
          + " hold 2·maxK), got " + maxK);
    }
    if (!sparsity.equals("dense") && weightRowsPerCycle != 1) {
      throw new IllegalArgumentException("sparsity " + sparsity + " needs weightRowsPerCycle 1 (the N:M W copy moves"
          + " one value or metadata row a cycle), got " + weightRowsPerCycle);
    }
    if (spadKiB < 1 || spadKiB > 65536 || Integer.bitCount(spadKiB) != 1) {
      throw new IllegalArgumentException("spadKiB must be a power of two in 1..65536, got " + spadKiB);
    }
    if (extMemMiB < 1 || extMemMiB > 4096) {
      throw new IllegalArgumentException("extMemMiB must be in 1..4096, got " + extMemMiB);
    }
    if (commandQueueDepth < 1 || commandQueueDepth > MachineParams.MAX_COMMAND_QUEUE_DEPTH) {
      throw new IllegalArgumentException("commandQueueDepth must be in 1.." + MachineParams.MAX_COMMAND_QUEUE_DEPTH
          + " (1 = no prefetch), got " + commandQueueDepth);
    }
    if (dspLanes < 1 || dspLanes > 32 || Integer.bitCount(dspLanes) != 1) {
      throw new IllegalArgumentException("dspLanes must be a power of two in 1..32, got " + dspLanes);
    }
    if (dspStages < 1 || dspStages > 4) {
      throw new IllegalArgumentException("dspStages (Vector DSP execute stages) must be 1, 2, 3 or 4, got " + dspStages);
    }
    machine(rows, spadKiB, spadBanks, extMemMiB, mTile, accWidth, icAccumDepth, maxM, maxK, maxN, memLatency,
        memBytesPerCycle, watchdogCycles, dspParams(dspLanes, dspRows, dspProgramDepth, dspMaxRunCycles, dspStages), 1);
    gemm(rows, accWidth, mTile, icAccumDepth, maxM, maxK, maxN, weightSparsity(sparsity));
    java.util.List<Integer> allowed = new java.util.ArrayList<>();
    for (int r = 1; r <= Math.min(rows, MAX_WEIGHT_ROWS_PER_CYCLE); r *= 2) {
      allowed.add(r);
    }
    if (!allowed.contains(weightRowsPerCycle)) {
      throw new IllegalArgumentException("weightRowsPerCycle must be one of " + allowed + " (powers of two up to"
          + " min(rows, " + MAX_WEIGHT_ROWS_PER_CYCLE + "), rows = " + rows + "), got " + weightRowsPerCycle);
    }
  }

  /** An NPU with a dense MAC array and without MX decoding on the load path. */
  public NpuConfig(int rows, int spadKiB, int spadBanks, int extMemMiB, int mTile, int accWidth, int icAccumDepth,
                   int maxM, int maxK, int maxN, int memLatency, int memBytesPerCycle, int watchdogCycles,
                   int dspLanes, int dspRows, int dspProgramDepth, long dspMaxRunCycles, String engine,
                   int weightRowsPerCycle, boolean ppu) {
    this(rows, spadKiB, spadBanks, extMemMiB, mTile, accWidth, icAccumDepth, maxM, maxK, maxN, memLatency,
        memBytesPerCycle, watchdogCycles, dspLanes, dspRows, dspProgramDepth, dspMaxRunCycles, engine,
        weightRowsPerCycle, ppu, false, "dense");
  }

  /** {@code dense}, {@code 2:4} or {@code 4:8} from any accepted spelling (null: dense); else a clear error. */
  private static String canonicalSparsity(String text) {
    if (text == null) {
      return "dense";
    }
    String t = text.trim().toLowerCase(java.util.Locale.ROOT);
    switch (t) {
      case "dense", "none":
        return "dense";
      case "2:4", "s2_4", "2_4":
        return "2:4";
      case "4:8", "s4_8", "4_8":
        return "4:8";
      default:
        throw new IllegalArgumentException("sparsity must be one of " + String.join(", ", SPARSITIES)
            + " (or none, s2_4, s4_8), got '" + text + "'");
    }
  }

  /** The MAC array's N:M mode. */
  public WeightSparsity weightSparsity() {
    return weightSparsity(sparsity);
  }

  private static WeightSparsity weightSparsity(String sparsity) {
    return sparsity.equals("2:4") ? WeightSparsity.S2_4 : sparsity.equals("4:8") ? WeightSparsity.S4_8
        : WeightSparsity.NONE;
  }

  /** The ISA code of {@link #sparsity} ({@code Command.DENSE}, {@code S2_4}, {@code S4_8}). */
  public int sparsityCode() {
    return sparsity.equals("2:4") ? org.llmnpu.isa.Command.S2_4 : sparsity.equals("4:8")
        ? org.llmnpu.isa.Command.S4_8 : org.llmnpu.isa.Command.DENSE;
  }

  /** An NPU that copies one W row per cycle, with the PPU. */
  public NpuConfig(int rows, int spadKiB, int spadBanks, int extMemMiB, int mTile, int accWidth, int icAccumDepth,
                   int maxM, int maxK, int maxN, int memLatency, int memBytesPerCycle, int watchdogCycles,
                   int dspLanes, int dspRows, int dspProgramDepth, long dspMaxRunCycles, String engine) {
    this(rows, spadKiB, spadBanks, extMemMiB, mTile, accWidth, icAccumDepth, maxM, maxK, maxN, memLatency,
        memBytesPerCycle, watchdogCycles, dspLanes, dspRows, dspProgramDepth, dspMaxRunCycles, engine, 1, true);
  }

  /** An NPU with the PPU. */
  public NpuConfig(int rows, int spadKiB, int spadBanks, int extMemMiB, int mTile, int accWidth, int icAccumDepth,
                   int maxM, int maxK, int maxN, int memLatency, int memBytesPerCycle, int watchdogCycles,
                   int dspLanes, int dspRows, int dspProgramDepth, long dspMaxRunCycles, String engine,
                   int weightRowsPerCycle) {
    this(rows, spadKiB, spadBanks, extMemMiB, mTile, accWidth, icAccumDepth, maxM, maxK, maxN, memLatency,
        memBytesPerCycle, watchdogCycles, dspLanes, dspRows, dspProgramDepth, dspMaxRunCycles, engine,
        weightRowsPerCycle, true);
  }

  /** An NPU that copies one W row per cycle. */
  public NpuConfig(int rows, int spadKiB, int spadBanks, int extMemMiB, int mTile, int accWidth, int icAccumDepth,
                   int maxM, int maxK, int maxN, int memLatency, int memBytesPerCycle, int watchdogCycles,
                   int dspLanes, int dspRows, int dspProgramDepth, long dspMaxRunCycles, String engine, boolean ppu) {
    this(rows, spadKiB, spadBanks, extMemMiB, mTile, accWidth, icAccumDepth, maxM, maxK, maxN, memLatency,
        memBytesPerCycle, watchdogCycles, dspLanes, dspRows, dspProgramDepth, dspMaxRunCycles, engine, 1, ppu);
  }

  /** An NPU with the default Vector DSP (16 lanes, 512 rows, 256 program words, runs of at most 2^24 cycles). */
  public NpuConfig(int rows, int spadKiB, int spadBanks, int extMemMiB, int mTile, int accWidth, int icAccumDepth,
                   int maxM, int maxK, int maxN, int memLatency, int memBytesPerCycle, int watchdogCycles) {
    this(rows, spadKiB, spadBanks, extMemMiB, mTile, accWidth, icAccumDepth, maxM, maxK, maxN, memLatency,
        memBytesPerCycle, watchdogCycles, 16, 512, 256, 1L << 24, "systolic");
  }

  /** An NPU with the systolic GEMM engine. */
  public NpuConfig(int rows, int spadKiB, int spadBanks, int extMemMiB, int mTile, int accWidth, int icAccumDepth,
                   int maxM, int maxK, int maxN, int memLatency, int memBytesPerCycle, int watchdogCycles,
                   int dspLanes, int dspRows, int dspProgramDepth, long dspMaxRunCycles) {
    this(rows, spadKiB, spadBanks, extMemMiB, mTile, accWidth, icAccumDepth, maxM, maxK, maxN, memLatency,
        memBytesPerCycle, watchdogCycles, dspLanes, dspRows, dspProgramDepth, dspMaxRunCycles, "systolic");
  }

  private static MachineParams.DspParams dspParams(int lanes, int rows, int programDepth, long maxRunCycles,
                                                   int stages) {
    try {
      return new MachineParams.DspParams(lanes, rows, programDepth, DSP_TABLE_SEGMENTS, DSP_TABLE_DEGREE,
          maxRunCycles, stages);
    } catch (IllegalArgumentException e) {
      // name the NpuConfig parameter
      throw new IllegalArgumentException(e.getMessage().replace("dsp lanes", "dspLanes").replace("dsp rows", "dspRows")
          .replace("dsp programDepth", "dspProgramDepth").replace("dsp maxRunCycles", "dspMaxRunCycles"), e);
    }
  }

  /** The Vector DSP inside. */
  public VectorDsp.Config dsp() {
    return new VectorDsp.Config(dspLanes, dspRows, dspProgramDepth, DSP_TABLE_SEGMENTS, DSP_TABLE_DEGREE, dspStages);
  }

  /**
   * The default: 16×16 array, 256 KiB scratchpad in 4 banks, 16 MiB memory, latency 32, 16 B/cycle,
   * a 16-lane DSP of 512 rows and 256 program words;
   * GEMM tiles up to 64×512×128 (engine buffers 32 + 64 KiB, results 32 KiB; larger GEMMs are tiled by the program).
   */
  public static NpuConfig defaults() {
    return new NpuConfig(16, 256, 4, 16, 16, 32, 0, 64, 512, 128, 32, 16, 4096);
  }

  /**
   * A small configuration for tests: 4×4 array, 4 KiB scratchpad in 2 banks, 1 MiB memory, a 4-lane DSP of
   * 128 rows and 256 program words whose runs may take 2^16 cycles.
   */
  public static NpuConfig small() {
    return new NpuConfig(4, 4, 2, 1, 8, 32, 0, 64, 128, 64, 3, 4, 256, 4, 128, 256, 1L << 16);
  }

  /**
   * {@link #small()} with a 2 KiB scratchpad, a 1-lane DSP of 16 rows and 16 program words, no PPU: the NPU the PPA,
   * calibration and {@code npu report npu} tests share (one synthesis, about 4 minutes at 180 nm).
   */
  public static NpuConfig tiny() {
    return new NpuConfig(4, 2, 2, 1, 8, 32, 0, 64, 128, 64, 3, 4, 256, 1, 16, 16, 1L << 16).withPpu(false);
  }

  private static MachineParams machine(int rows, int spadKiB, int spadBanks, int extMemMiB, int mTile, int accWidth,
                                       int icAccumDepth, int maxM, int maxK, int maxN, int memLatency,
                                       int memBytesPerCycle, int watchdogCycles, MachineParams.DspParams dsp,
                                       int weightRowsPerCycle) {
    return new MachineParams(rows, rows, spadKiB * 1024, spadBanks, extMemMiB * (1L << 20), mTile, accWidth,
        icAccumDepth, maxM, maxK, maxN, memLatency, memBytesPerCycle, watchdogCycles, dsp, weightRowsPerCycle);
  }

  /**
   * The engine's parameters. An N:M engine gets {@code maxK·2}: it runs a dense GEMM of K as an N:M one of
   * {@code 2K} (see {@link NpuGemm}), and its K tiles of {@code 2·rows} then cover the dense tiles of {@code rows}.
   */
  private static GemmEngineConfig gemm(int rows, int accWidth, int mTile, int icAccumDepth, int maxM, int maxK,
                                       int maxN, WeightSparsity sp) {
    return new GemmEngineConfig(new MacArrayConfig(rows, rows, accWidth, mTile, icAccumDepth, sp),
        maxM, sp.sparse() ? 2 * maxK : maxK, maxN);
  }

  /** What programs may assume about this NPU (the contract with the golden ISA simulator). */
  public MachineParams machine() {
    return machine(rows, spadKiB, spadBanks, extMemMiB, mTile, accWidth, icAccumDepth, maxM, maxK, maxN, memLatency,
        memBytesPerCycle, watchdogCycles, dspParams(dspLanes, dspRows, dspProgramDepth, dspMaxRunCycles, dspStages),
        weightRowsPerCycle).withUnits(ppm().latency() + NpuPpm.INPUT_LATENCY, ppu, sparsityCode()).withMxLoad(mxLoad)
        .withCommandQueueDepth(commandQueueDepth);
  }

  /**
   * The PPM inside: {@code rows/4} lanes (one INT32 line a cycle), INT8 codes, the default PPU table shape when
   * {@code ppu}, else requantization alone.
   */
  public PpmConfig ppm() {
    return new PpmConfig(Math.max(1, rows / 4), 8, ppu ? PpmConfig.Activation.PPU : PpmConfig.Activation.NONE, 16, 2, 16);
  }

  /** A builder holding this configuration, to change several fields at once. */
  public NpuConfigBuilder toBuilder() {
    return new NpuConfigBuilder(this);
  }

  /** The same NPU with or without the PPU. */
  public NpuConfig withPpu(boolean on) {
    return toBuilder().ppu(on).build();
  }

  /** The GEMM engine inside. */
  public GemmEngineConfig gemm() {
    return gemm(rows, accWidth, mTile, icAccumDepth, maxM, maxK, maxN, weightSparsity());
  }

  /** The same NPU with another memory timing (a simulation parameter: the RTL does not change). */
  public NpuConfig withMemory(int latency, int bytesPerCycle) {
    return toBuilder().memory(latency, bytesPerCycle).build();
  }

  /** The same NPU with another GEMM engine (one of {@link #ENGINES}). */
  public NpuConfig withEngine(String e) {
    return toBuilder().engine(e).build();
  }

  /** The same NPU with another W copy width (W rows per cycle, see {@code weightRowsPerCycle}). */
  public NpuConfig withWeightRowsPerCycle(int r) {
    return toBuilder().weightRowsPerCycle(r).build();
  }

  /** The same NPU with ({@code true}) or without MX element decoding on the load path ({@code loadmx}). */
  public NpuConfig withMxLoad(boolean on) {
    return toBuilder().mxLoad(on).build();
  }

  /** The same NPU with its MAC array built for another N:M mode ({@code dense}, {@code 2:4}, {@code 4:8}). */
  public NpuConfig withSparsity(String s) {
    return toBuilder().sparsity(s).build();
  }

  /** The same NPU with a command queue of {@code depth} commands (see {@code commandQueueDepth}). */
  public NpuConfig withCommandQueueDepth(int depth) {
    return toBuilder().commandQueueDepth(depth).build();
  }

  /** The same NPU with a Vector DSP of {@code stages} execute stages (1..4, see {@code dspStages}). */
  public NpuConfig withDspStages(int stages) {
    return toBuilder().dspStages(stages).build();
  }

  /** The same NPU with clock gating {@code on}, {@code off} or {@code checked} (see {@code clockGating}). */
  public NpuConfig withClockGating(String mode) {
    return toBuilder().clockGating(mode).build();
  }

  /** How the units' clocks are gated ({@code clockGating}). */
  public ClockGating clockGatingMode() {
    return ClockGating.parse("clockGating", clockGating);
  }

  /** The GEMM engine's timing for the golden cycle model ({@code npu-isa}). */
  public org.llmnpu.isa.EngineTiming engineTiming() {
    if (engine.equals("systolic")) {
      return org.llmnpu.isa.EngineTiming.SYSTOLIC;
    }
    return org.llmnpu.isa.EngineTiming.pim(engine.equals("pim") ? 1 : Integer.parseInt(engine.substring(5)));
  }

  /** The GEMM engine this NPU instantiates: the systolic {@link GemmEngine} or the {@link PimGemmBackend}. */
  org.llmnpu.rtl.mac.GemmBackend gemmEngine() {
    org.llmnpu.isa.EngineTiming t = engineTiming();
    return t.pim() ? new PimGemmBackend(gemm(), t.bitsPerCycle(), weightRowsPerCycle)
        : weightSparsity().sparse() ? (weightStream() ? org.llmnpu.rtl.mac.GemmEngine.withDenseModeAndWeightStream(gemm())
            : org.llmnpu.rtl.mac.GemmEngine.withDenseMode(gemm()))
        : weightStream() ? org.llmnpu.rtl.mac.GemmEngine.withWeightStream(gemm())
        : new org.llmnpu.rtl.mac.GemmEngine(gemm(), weightRowsPerCycle);
  }

  /**
   * Whether this NPU streams weights from the memory into its GEMM engine ({@code gemm wStream=1}): the systolic
   * engine with one W row a cycle, dense or N:M ({@code MachineParams.weightStream()} and
   * {@code EngineTiming.weightStream()}); elsewhere a streamed GEMM halts with UNSUPPORTED.
   */
  public boolean weightStream() {
    return machine().weightStream() && engineTiming().weightStream();
  }

  /** Reads a configuration from a {@code .json}, {@code .yaml} or {@code .yml} file; absent fields take the defaults. */
  public static NpuConfig load(Path file) {
    String name = file.getFileName().toString().toLowerCase(java.util.Locale.ROOT);
    ObjectMapper mapper = name.endsWith(".yaml") || name.endsWith(".yml") ? new ObjectMapper(new YAMLFactory())
        : new ObjectMapper();
    mapper.configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, true);
    try {
      NpuConfig d = defaults();
      var tree = mapper.readTree(file.toFile());
      var merged = mapper.valueToTree(d);
      ((com.fasterxml.jackson.databind.node.ObjectNode) merged).setAll(
          (com.fasterxml.jackson.databind.node.ObjectNode) tree);
      return mapper.treeToValue(merged, NpuConfig.class);
    } catch (com.fasterxml.jackson.databind.exc.ValueInstantiationException e) {
      throw new IllegalArgumentException(file + ": " + e.getCause().getMessage(), e);
    } catch (IOException | ClassCastException e) {
      throw new IllegalArgumentException(file + ": not a valid NPU configuration: " + e.getMessage(), e);
    }
  }
}
