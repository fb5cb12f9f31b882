package org.llmnpu.rtl.npu;

/**
 * A copy of an {@link NpuConfig} with some fields changed: {@code config.toBuilder().ppu(false).build()}.
 * {@link #build} validates the result as the record's constructor does (clear errors naming the parameter).
 */
public final class NpuConfigBuilder {
  private int rows;
  private int spadKiB;
  private int spadBanks;
  private int extMemMiB;
  private int mTile;
  private int accWidth;
  private int icAccumDepth;
  private int maxM;
  private int maxK;
  private int maxN;
  private int memLatency;
  private int memBytesPerCycle;
  private int watchdogCycles;
  private int dspLanes;
  private int dspRows;
  private int dspProgramDepth;
  private long dspMaxRunCycles;
  private String engine;
  private int weightRowsPerCycle;
  private boolean ppu;
  private boolean mxLoad;
  private String sparsity;
  private int commandQueueDepth;
  private int dspStages;
  private String clockGating;

  NpuConfigBuilder(NpuConfig c) {
    rows = c.rows();
    spadKiB = c.spadKiB();
    spadBanks = c.spadBanks();
    extMemMiB = c.extMemMiB();
    mTile = c.mTile();
    accWidth = c.accWidth();
    icAccumDepth = c.icAccumDepth();
    maxM = c.maxM();
    maxK = c.maxK();
    maxN = c.maxN();
    memLatency = c.memLatency();
    memBytesPerCycle = c.memBytesPerCycle();
    watchdogCycles = c.watchdogCycles();
    dspLanes = c.dspLanes();
    dspRows = c.dspRows();
    dspProgramDepth = c.dspProgramDepth();
    dspMaxRunCycles = c.dspMaxRunCycles();
    engine = c.engine();
    weightRowsPerCycle = c.weightRowsPerCycle();
    ppu = c.ppu();
    mxLoad = c.mxLoad();
    sparsity = c.sparsity();
    commandQueueDepth = c.commandQueueDepth();
    dspStages = c.dspStages();
    clockGating = c.clockGating();
  }

  /** External memory timing: first-byte latency in cycles and bytes per cycle after it. */
  public NpuConfigBuilder memory(int latency, int bytesPerCycle) {
    memLatency = latency;
    memBytesPerCycle = bytesPerCycle;
    return this;
  }

  public NpuConfigBuilder engine(String e) {
    engine = e;
    return this;
  }

  public NpuConfigBuilder weightRowsPerCycle(int r) {
    weightRowsPerCycle = r;
    return this;
  }

  public NpuConfigBuilder ppu(boolean on) {
    ppu = on;
    return this;
  }

  public NpuConfigBuilder mxLoad(boolean on) {
    mxLoad = on;
    return this;
  }

  public NpuConfigBuilder sparsity(String s) {
    sparsity = s;
    return this;
  }

  public NpuConfigBuilder commandQueueDepth(int depth) {
    commandQueueDepth = depth;
    return this;
  }

  public NpuConfigBuilder dspStages(int stages) {
    dspStages = stages;
    return this;
  }

  /** Clock gating of the units: {@code on}, {@code off} or {@code checked}. */
  public NpuConfigBuilder clockGating(String mode) {
    clockGating = mode;
    return this;
  }

  /** The configuration, validated. */
  public NpuConfig build() {
    return new NpuConfig(rows, spadKiB, spadBanks, extMemMiB, mTile, accWidth, icAccumDepth, maxM, maxK, maxN,
        memLatency, memBytesPerCycle, watchdogCycles, dspLanes, dspRows, dspProgramDepth, dspMaxRunCycles, engine,
        weightRowsPerCycle, ppu, mxLoad, sparsity, commandQueueDepth, dspStages, clockGating);
  }
}
