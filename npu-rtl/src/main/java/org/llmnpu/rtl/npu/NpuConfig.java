package org.llmnpu.rtl.npu;

import java.nio.file.Path;
import java.util.List;
import org.llmnpu.hdl.ClockGating;
import org.llmnpu.isa.EngineTiming;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.rtl.dsp.VectorDsp;
import org.llmnpu.rtl.mac.GemmEngineConfig;
import org.llmnpu.rtl.mac.WeightSparsity;
import org.llmnpu.rtl.ppm.PpmConfig;

/**
 * Parameters of the {@link Npu}: one record per part of the hardware, validated on construction (each message names
 * the flat parameter, e.g. {@code dspLanes}, and its allowed values). Every parameter — its flat name, allowed
 * values, default and meaning — is declared once, in {@link NpuParameter}; {@link NpuConfigBuilder} sets any of them,
 * {@link NpuConfigFiles} reads YAML/JSON files in the flat form ({@code dspLanes: 8}) or the nested one
 * ({@code dsp: {lanes: 8}}). The flat accessors ({@link #rows()}, {@link #dspLanes()}, ...) read the nested records.
 * The ISA's view of this NPU, {@link MachineParams}, and its units' configurations are derived from it
 * ({@link #machine()}, {@link #dsp()}, {@link #ppm()}: {@link NpuDerived}).
 *
 * @param memoryConfig    the scratchpad, the external memory, the watchdog on memory waits, MX decoding on loads
 * @param fetchConfig     the command fetch
 * @param engineConfig    the GEMM engine: kind, MAC array, GEMM limits, W copy width
 * @param dspConfig       the Vector DSP
 * @param ppmConfig       the post-processing module
 * @param clockGatingMode {@code clockGating}: the GEMM engine, the Vector DSP and the PPM run on clocks gated by their
 *                        busy signals ({@code on}: a latch-and-AND cell per unit), {@code off} is the ungated design,
 *                        {@code checked} the ungated design with simulation checks that stop a run in which a gated
 *                        register changed while its enable was low (tests). Results and cycles are the same in all
 */
public record NpuConfig(NpuMemoryConfig memoryConfig, NpuFetchConfig fetchConfig, NpuEngineConfig engineConfig,
                        NpuDspConfig dspConfig, NpuPpmConfig ppmConfig, ClockGating clockGatingMode) {

  /** The default {@code clockGating}. */
  public static final String DEFAULT_CLOCK_GATING = NpuParameter.CLOCK_GATING.defaultValue();
  /** The default {@link #commandQueueDepth}. */
  public static final int DEFAULT_COMMAND_QUEUE_DEPTH =
      Integer.parseInt(NpuParameter.COMMAND_QUEUE_DEPTH.defaultValue());
  /** The default {@code dspStages}: the four-stage DSP meets the target clock, the one-stage one runs at half of it. */
  public static final int DEFAULT_DSP_STAGES = Integer.parseInt(NpuParameter.DSP_STAGES.defaultValue());
  /** Largest {@code weightRowsPerCycle} (scratchpad read ports). */
  public static final int MAX_WEIGHT_ROWS_PER_CYCLE = (int) NpuParameter.WEIGHT_ROWS_PER_CYCLE.domain().max();
  /** Allowed values of {@code engine}. */
  public static final List<String> ENGINES = NpuEngineKind.keys();
  /** Allowed values of {@code sparsity}. */
  public static final List<String> SPARSITIES = NpuParameter.SPARSITY.domain().choices();

  public NpuConfig {
    if (memoryConfig == null || fetchConfig == null || engineConfig == null || dspConfig == null || ppmConfig == null
        || clockGatingMode == null) {
      throw new IllegalArgumentException("an NpuConfig needs its memory, fetch, engine, dsp and ppm parts and a"
          + " clockGating (one of on, off, checked); use NpuConfig.builder()");
    }
    // a KiB holds whole lines in every bank: rows·spadBanks ≤ 64·16 = 1024 bytes, both powers of two
    engineConfig.gemm();
  }

  private NpuConfig(NpuConfigBuilder b) {
    this(b.build());
  }

  private NpuConfig(NpuConfig c) {
    this(c.memoryConfig, c.fetchConfig, c.engineConfig, c.dspConfig, c.ppmConfig, c.clockGatingMode);
  }

  // The positional constructors below are kept for source compatibility; new code uses builder().

  /** The parameters in their flat order up to {@code watchdogCycles}; the rest take the defaults. */
  public NpuConfig(int rows, int spadKiB, int spadBanks, int extMemMiB, int mTile, int accWidth, int icAccumDepth,
                   int maxM, int maxK, int maxN, int memLatency, int memBytesPerCycle, int watchdogCycles) {
    this(positional(rows, spadKiB, spadBanks, extMemMiB, mTile, accWidth, icAccumDepth, maxM, maxK, maxN, memLatency,
        memBytesPerCycle, watchdogCycles));
  }

  /** The parameters in their flat order up to {@code dspMaxRunCycles}; the rest take the defaults. */
  public NpuConfig(int rows, int spadKiB, int spadBanks, int extMemMiB, int mTile, int accWidth, int icAccumDepth,
                   int maxM, int maxK, int maxN, int memLatency, int memBytesPerCycle, int watchdogCycles,
                   int dspLanes, int dspRows, int dspProgramDepth, long dspMaxRunCycles) {
    this(positional(rows, spadKiB, spadBanks, extMemMiB, mTile, accWidth, icAccumDepth, maxM, maxK, maxN, memLatency,
        memBytesPerCycle, watchdogCycles).dsp(dspLanes, dspRows, dspProgramDepth, dspMaxRunCycles));
  }

  /** The parameters in their flat order up to {@code engine}; the rest take the defaults. */
  public NpuConfig(int rows, int spadKiB, int spadBanks, int extMemMiB, int mTile, int accWidth, int icAccumDepth,
                   int maxM, int maxK, int maxN, int memLatency, int memBytesPerCycle, int watchdogCycles,
                   int dspLanes, int dspRows, int dspProgramDepth, long dspMaxRunCycles, String engine) {
    this(positional(rows, spadKiB, spadBanks, extMemMiB, mTile, accWidth, icAccumDepth, maxM, maxK, maxN, memLatency,
        memBytesPerCycle, watchdogCycles).dsp(dspLanes, dspRows, dspProgramDepth, dspMaxRunCycles).engine(engine));
  }

  /** The parameters in their flat order up to {@code sparsity}; the rest take the defaults. */
  public NpuConfig(int rows, int spadKiB, int spadBanks, int extMemMiB, int mTile, int accWidth, int icAccumDepth,
                   int maxM, int maxK, int maxN, int memLatency, int memBytesPerCycle, int watchdogCycles,
                   int dspLanes, int dspRows, int dspProgramDepth, long dspMaxRunCycles, String engine,
                   int weightRowsPerCycle, boolean ppu, boolean mxLoad, String sparsity) {
    this(positional(rows, spadKiB, spadBanks, extMemMiB, mTile, accWidth, icAccumDepth, maxM, maxK, maxN, memLatency,
        memBytesPerCycle, watchdogCycles).dsp(dspLanes, dspRows, dspProgramDepth, dspMaxRunCycles).engine(engine)
        .weightRowsPerCycle(weightRowsPerCycle).ppu(ppu).mxLoad(mxLoad).sparsity(sparsity));
  }

  /** The parameters in their flat order up to {@code dspStages}; clock gating takes the default. */
  public NpuConfig(int rows, int spadKiB, int spadBanks, int extMemMiB, int mTile, int accWidth, int icAccumDepth,
                   int maxM, int maxK, int maxN, int memLatency, int memBytesPerCycle, int watchdogCycles,
                   int dspLanes, int dspRows, int dspProgramDepth, long dspMaxRunCycles, String engine,
                   int weightRowsPerCycle, boolean ppu, boolean mxLoad, String sparsity, int commandQueueDepth,
                   int dspStages) {
    this(positional(rows, spadKiB, spadBanks, extMemMiB, mTile, accWidth, icAccumDepth, maxM, maxK, maxN, memLatency,
        memBytesPerCycle, watchdogCycles).dsp(dspLanes, dspRows, dspProgramDepth, dspMaxRunCycles).engine(engine)
        .weightRowsPerCycle(weightRowsPerCycle).ppu(ppu).mxLoad(mxLoad).sparsity(sparsity)
        .commandQueueDepth(commandQueueDepth).dspStages(dspStages));
  }

  private static NpuConfigBuilder positional(int rows, int spadKiB, int spadBanks, int extMemMiB, int mTile,
                                             int accWidth, int icAccumDepth, int maxM, int maxK, int maxN,
                                             int memLatency, int memBytesPerCycle, int watchdogCycles) {
    return builder().rows(rows).spadKiB(spadKiB).spadBanks(spadBanks).extMemMiB(extMemMiB).mTile(mTile)
        .accWidth(accWidth).icAccumDepth(icAccumDepth).maxM(maxM).maxK(maxK).maxN(maxN)
        .memory(memLatency, memBytesPerCycle).watchdogCycles(watchdogCycles);
  }

  /** A builder holding the defaults ({@link NpuParameter#defaultValue()}). */
  public static NpuConfigBuilder builder() {
    return new NpuConfigBuilder();
  }

  /**
   * The default NPU: 16×16 array, 256 KiB scratchpad in 4 banks, 16 MiB memory, latency 32, 16 B/cycle, a 16-lane DSP
   * of 512 rows and 256 program words; GEMM tiles up to 64×512×128 (larger GEMMs are tiled by the program).
   */
  public static NpuConfig defaults() {
    return builder().build();
  }

  /** For tests: 4×4 array, 4 KiB scratchpad in 2 banks, 1 MiB memory, a 4-lane DSP of 128 rows, 2^16-cycle runs. */
  public static NpuConfig small() {
    return builder().rows(4).spadKiB(4).spadBanks(2).extMemMiB(1).mTile(8).maxK(128).maxN(64).memory(3, 4)
        .watchdogCycles(256).dspLanes(4).dspRows(128).dspMaxRunCycles(1L << 16).build();
  }

  /**
   * {@link #small()} with a 2 KiB scratchpad, a 1-lane DSP of 16 rows and 16 program words, no PPU: the NPU the PPA,
   * calibration and {@code npu report npu} tests share (one synthesis, about 4 minutes at 180 nm). */
  public static NpuConfig tiny() {
    return small().toBuilder().spadKiB(2).dspLanes(1).dspRows(16).dspProgramDepth(16).ppu(false).build();
  }

  /** Reads a configuration from a {@code .json}, {@code .yaml} or {@code .yml} file; absent fields take the defaults. */
  public static NpuConfig load(Path file) {
    return NpuConfigFiles.load(file);
  }

  /** A builder holding this configuration, to change several fields at once. */
  public NpuConfigBuilder toBuilder() {
    return new NpuConfigBuilder(this);
  }

  public int rows() { // the flat views of the nested records, one per NpuParameter
    return engineConfig.rows();
  }

  public int spadKiB() {
    return memoryConfig.spadKiB();
  }

  public int spadBanks() {
    return memoryConfig.spadBanks();
  }

  public int extMemMiB() {
    return memoryConfig.extMemMiB();
  }

  public int mTile() {
    return engineConfig.mTile();
  }

  public int accWidth() {
    return engineConfig.accWidth();
  }

  public int icAccumDepth() {
    return engineConfig.icAccumDepth();
  }

  public int maxM() {
    return engineConfig.maxM();
  }

  public int maxK() {
    return engineConfig.maxK();
  }

  public int maxN() {
    return engineConfig.maxN();
  }

  public int memLatency() {
    return memoryConfig.latency();
  }

  public int memBytesPerCycle() {
    return memoryConfig.bytesPerCycle();
  }

  public int watchdogCycles() {
    return memoryConfig.watchdogCycles();
  }

  public int dspLanes() {
    return dspConfig.lanes();
  }

  public int dspRows() {
    return dspConfig.rows();
  }

  public int dspProgramDepth() {
    return dspConfig.programDepth();
  }

  public long dspMaxRunCycles() {
    return dspConfig.maxRunCycles();
  }

  public int dspStages() {
    return dspConfig.stages();
  }

  public boolean dspPermute() {
    return dspConfig.permute();
  }

  /** {@code systolic}, {@code pim}, {@code pim-k2}, {@code pim-k4} or {@code pim-k8}. */
  public String engine() {
    return engineConfig.kind().key();
  }

  public int weightRowsPerCycle() {
    return engineConfig.weightRowsPerCycle();
  }

  public boolean ppu() {
    return ppmConfig.ppu();
  }

  public boolean ppmGate() {
    return ppmConfig.gate();
  }

  /** {@code ppmWide}: the PPM has {@code rows} lanes ({@link NpuPpmConfig#wide}). */
  public boolean ppmWide() {
    return ppmConfig.wide();
  }

  public boolean xKeep() {
    return engineConfig.xKeep();
  }

  public boolean mxLoad() {
    return memoryConfig.mxLoad();
  }

  /** {@code bus}: {@code native} or {@code axi}. */
  public String bus() {
    return memoryConfig.bus();
  }

  /** Whether the NPU is built as the AXI top ({@code bus=axi}). */
  public boolean axiBus() {
    return memoryConfig.bus().equals("axi");
  }

  /** {@code dense}, {@code 2:4} or {@code 4:8}. */
  public String sparsity() {
    return NpuEngineConfig.sparsityKey(engineConfig.sparsity());
  }

  public int commandQueueDepth() {
    return fetchConfig.commandQueueDepth();
  }

  /** {@code on}, {@code off} or {@code checked}. */
  public String clockGating() {
    return clockGatingMode.key();
  }

  // what the parameters make

  /** The MAC array's N:M mode. */
  public WeightSparsity weightSparsity() {
    return engineConfig.sparsity();
  }

  /** The ISA code of {@link #sparsity} ({@code Command.DENSE}, {@code S2_4}, {@code S4_8}). */
  public int sparsityCode() {
    return engineConfig.sparsityCode();
  }

  /** The Vector DSP inside ({@link NpuDerived#dsp}). */
  public VectorDsp.Config dsp() {
    return NpuDerived.dsp(this);
  }

  /**
   * What programs may assume about this NPU (the contract with the golden ISA simulator): the only producer of the
   * toolkit's {@link MachineParams}, which repeats none of these parameters' defaults or checks
   * ({@link NpuDerived#machine}).
   */
  public MachineParams machine() {
    return NpuDerived.machine(this);
  }

  /** The PPM inside ({@link NpuDerived#ppm}). */
  public PpmConfig ppm() {
    return NpuDerived.ppm(this);
  }

  /** The engine's parameters ({@link NpuEngineConfig#gemm}). */
  public GemmEngineConfig gemm() {
    return engineConfig.gemm();
  }

  /** The GEMM engine's timing for the golden cycle model ({@code npu-isa}). */
  public EngineTiming engineTiming() {
    return engineConfig.kind().timing();
  }

  /** The GEMM engine this NPU instantiates ({@link NpuDerived#gemmEngine}). */
  org.llmnpu.rtl.mac.GemmBackend gemmEngine() {
    return NpuDerived.gemmEngine(this);
  }

  /**
   * Whether this NPU streams weights from the memory into its GEMM engine ({@code gemm wStream=1},
   * {@link NpuDerived#weightStream}); elsewhere a streamed GEMM halts with UNSUPPORTED.
   */
  public boolean weightStream() {
    return NpuDerived.weightStream(this);
  }

  /** The same NPU with or without the PPU. */
  public NpuConfig withPpu(boolean on) {
    return toBuilder().ppu(on).build();
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
}
