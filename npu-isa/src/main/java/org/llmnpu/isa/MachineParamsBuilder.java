package org.llmnpu.isa;

import java.util.ArrayList;
import java.util.List;
import org.llmnpu.isa.MachineParams.DspParams;

/**
 * The builder of {@link MachineParams}: from nothing ({@link MachineParams#builder()}) or from a machine
 * ({@link MachineParams#toBuilder()}, {@link MachineParams#with}), one setter per record component, named as the
 * component. {@link #build} checks what the record checks. From nothing, the fourteen sizes and timings from
 * {@code rows} to {@code watchdogCycles} must be set; the units default to the plainest machine: the
 * {@link DspParams#DEFAULT default DSP}, one W row a cycle, no PPM (so no PPU, gate or wide PPM), a dense array, no MX
 * decoding, no command read ahead ({@code commandQueueDepth} 1), no kept X.
 *
 * <p>A new machine parameter is a record component of {@link MachineParams} (with its {@code @param}), a field here
 * with its default, its setter, its line in {@link #MachineParamsBuilder(MachineParams)} and its argument in
 * {@link #build}; callers that do not set it are unchanged (a {@code withX} on the record is optional:
 * {@code p.with(b -> b.x(v))} reads as well).
 */
public final class MachineParamsBuilder {
  private static final int UNSET = Integer.MIN_VALUE;

  private int rows = UNSET;
  private int lineBytes = UNSET;
  private int spadBytes = UNSET;
  private int spadBanks = UNSET;
  private long extMemBytes = UNSET;
  private int mTile = UNSET;
  private int accWidth = UNSET;
  private int icAccumDepth = UNSET;
  private int maxM = UNSET;
  private int maxK = UNSET;
  private int maxN = UNSET;
  private int memLatency = UNSET;
  private int memBytesPerCycle = UNSET;
  private int watchdogCycles = UNSET;
  private DspParams dsp = DspParams.DEFAULT;
  private int weightRowsPerCycle = 1;
  private int ppmLatency;
  private boolean ppu;
  private int sparsity = Command.DENSE;
  private boolean mxLoad;
  private int commandQueueDepth = 1;
  private boolean ppmGate;
  private boolean xKeep;
  private boolean ppmWide;

  MachineParamsBuilder() {
  }

  MachineParamsBuilder(MachineParams p) {
    rows = p.rows();
    lineBytes = p.lineBytes();
    spadBytes = p.spadBytes();
    spadBanks = p.spadBanks();
    extMemBytes = p.extMemBytes();
    mTile = p.mTile();
    accWidth = p.accWidth();
    icAccumDepth = p.icAccumDepth();
    maxM = p.maxM();
    maxK = p.maxK();
    maxN = p.maxN();
    memLatency = p.memLatency();
    memBytesPerCycle = p.memBytesPerCycle();
    watchdogCycles = p.watchdogCycles();
    dsp = p.dsp();
    weightRowsPerCycle = p.weightRowsPerCycle();
    ppmLatency = p.ppmLatency();
    ppu = p.ppu();
    sparsity = p.sparsity();
    mxLoad = p.mxLoad();
    commandQueueDepth = p.commandQueueDepth();
    ppmGate = p.ppmGate();
    xKeep = p.xKeep();
    ppmWide = p.ppmWide();
  }

  /** The machine; an {@link IllegalStateException} names the sizes and timings never set. */
  public MachineParams build() {
    List<String> unset = new ArrayList<>();
    String[] names = {"rows", "lineBytes", "spadBytes", "spadBanks", "extMemBytes", "mTile", "accWidth",
        "icAccumDepth", "maxM", "maxK", "maxN", "memLatency", "memBytesPerCycle", "watchdogCycles"};
    long[] values = {rows, lineBytes, spadBytes, spadBanks, extMemBytes, mTile, accWidth, icAccumDepth, maxM, maxK,
        maxN, memLatency, memBytesPerCycle, watchdogCycles};
    for (int i = 0; i < names.length; i++) {
      if (values[i] == UNSET) {
        unset.add(names[i]);
      }
    }
    if (!unset.isEmpty()) {
      throw new IllegalStateException("MachineParams.builder(): set " + String.join(", ", unset));
    }
    return new MachineParams(rows, lineBytes, spadBytes, spadBanks, extMemBytes, mTile, accWidth, icAccumDepth, maxM,
        maxK, maxN, memLatency, memBytesPerCycle, watchdogCycles, dsp, weightRowsPerCycle, ppmLatency, ppu, sparsity,
        mxLoad, commandQueueDepth, ppmGate, xKeep, ppmWide);
  }

  /** See {@link MachineParams#rows}. */
  public MachineParamsBuilder rows(int v) {
    rows = v;
    return this;
  }

  /** See {@link MachineParams#lineBytes} (must equal {@code rows}). */
  public MachineParamsBuilder lineBytes(int v) {
    lineBytes = v;
    return this;
  }

  /** See {@link MachineParams#spadBytes}. */
  public MachineParamsBuilder spadBytes(int v) {
    spadBytes = v;
    return this;
  }

  /** See {@link MachineParams#spadBanks}. */
  public MachineParamsBuilder spadBanks(int v) {
    spadBanks = v;
    return this;
  }

  /** See {@link MachineParams#extMemBytes}. */
  public MachineParamsBuilder extMemBytes(long v) {
    extMemBytes = v;
    return this;
  }

  /** See {@link MachineParams#mTile}. */
  public MachineParamsBuilder mTile(int v) {
    mTile = v;
    return this;
  }

  /** See {@link MachineParams#accWidth}. */
  public MachineParamsBuilder accWidth(int v) {
    accWidth = v;
    return this;
  }

  /** See {@link MachineParams#icAccumDepth}. */
  public MachineParamsBuilder icAccumDepth(int v) {
    icAccumDepth = v;
    return this;
  }

  /** See {@link MachineParams#maxM}. */
  public MachineParamsBuilder maxM(int v) {
    maxM = v;
    return this;
  }

  /** See {@link MachineParams#maxK}. */
  public MachineParamsBuilder maxK(int v) {
    maxK = v;
    return this;
  }

  /** See {@link MachineParams#maxN}. */
  public MachineParamsBuilder maxN(int v) {
    maxN = v;
    return this;
  }

  /** See {@link MachineParams#memLatency}. */
  public MachineParamsBuilder memLatency(int v) {
    memLatency = v;
    return this;
  }

  /** See {@link MachineParams#memBytesPerCycle}. */
  public MachineParamsBuilder memBytesPerCycle(int v) {
    memBytesPerCycle = v;
    return this;
  }

  /** See {@link MachineParams#watchdogCycles}. */
  public MachineParamsBuilder watchdogCycles(int v) {
    watchdogCycles = v;
    return this;
  }

  /** See {@link MachineParams#dsp}. */
  public MachineParamsBuilder dsp(DspParams v) {
    dsp = v;
    return this;
  }

  /** See {@link MachineParams#weightRowsPerCycle}. */
  public MachineParamsBuilder weightRowsPerCycle(int v) {
    weightRowsPerCycle = v;
    return this;
  }

  /** See {@link MachineParams#ppmLatency} (0: no PPM). */
  public MachineParamsBuilder ppmLatency(int v) {
    ppmLatency = v;
    return this;
  }

  /** See {@link MachineParams#ppu}. */
  public MachineParamsBuilder ppu(boolean v) {
    ppu = v;
    return this;
  }

  /** See {@link MachineParams#sparsity}: {@link Command#DENSE}, {@link Command#S2_4} or {@link Command#S4_8}. */
  public MachineParamsBuilder sparsity(int v) {
    sparsity = v;
    return this;
  }

  /** See {@link MachineParams#mxLoad}. */
  public MachineParamsBuilder mxLoad(boolean v) {
    mxLoad = v;
    return this;
  }

  /** See {@link MachineParams#commandQueueDepth}. */
  public MachineParamsBuilder commandQueueDepth(int v) {
    commandQueueDepth = v;
    return this;
  }

  /** See {@link MachineParams#ppmGate}. */
  public MachineParamsBuilder ppmGate(boolean v) {
    ppmGate = v;
    return this;
  }

  /** See {@link MachineParams#xKeep}. */
  public MachineParamsBuilder xKeep(boolean v) {
    xKeep = v;
    return this;
  }

  /** See {@link MachineParams#ppmWide}. */
  public MachineParamsBuilder ppmWide(boolean v) {
    ppmWide = v;
    return this;
  }
}
