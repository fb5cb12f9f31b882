package org.llmnpu.rtl.npu;

import static org.llmnpu.rtl.npu.NpuParameter.ACC_WIDTH;
import static org.llmnpu.rtl.npu.NpuParameter.CLOCK_GATING;
import static org.llmnpu.rtl.npu.NpuParameter.COMMAND_QUEUE_DEPTH;
import static org.llmnpu.rtl.npu.NpuParameter.DSP_LANES;
import static org.llmnpu.rtl.npu.NpuParameter.DSP_MAX_RUN_CYCLES;
import static org.llmnpu.rtl.npu.NpuParameter.DSP_PROGRAM_DEPTH;
import static org.llmnpu.rtl.npu.NpuParameter.DSP_ROWS;
import static org.llmnpu.rtl.npu.NpuParameter.DSP_STAGES;
import static org.llmnpu.rtl.npu.NpuParameter.ENGINE;
import static org.llmnpu.rtl.npu.NpuParameter.EXT_MEM_MIB;
import static org.llmnpu.rtl.npu.NpuParameter.IC_ACCUM_DEPTH;
import static org.llmnpu.rtl.npu.NpuParameter.MAX_K;
import static org.llmnpu.rtl.npu.NpuParameter.MAX_M;
import static org.llmnpu.rtl.npu.NpuParameter.MAX_N;
import static org.llmnpu.rtl.npu.NpuParameter.MEM_BYTES_PER_CYCLE;
import static org.llmnpu.rtl.npu.NpuParameter.MEM_LATENCY;
import static org.llmnpu.rtl.npu.NpuParameter.MX_LOAD;
import static org.llmnpu.rtl.npu.NpuParameter.M_TILE;
import static org.llmnpu.rtl.npu.NpuParameter.PPU;
import static org.llmnpu.rtl.npu.NpuParameter.ROWS;
import static org.llmnpu.rtl.npu.NpuParameter.SPAD_BANKS;
import static org.llmnpu.rtl.npu.NpuParameter.SPAD_KIB;
import static org.llmnpu.rtl.npu.NpuParameter.SPARSITY;
import static org.llmnpu.rtl.npu.NpuParameter.WATCHDOG_CYCLES;
import static org.llmnpu.rtl.npu.NpuParameter.WEIGHT_ROWS_PER_CYCLE;

import java.util.EnumMap;
import java.util.Map;
import org.llmnpu.hdl.ClockGating;

/**
 * The one builder of {@link NpuConfig}: starts from the defaults ({@link NpuConfig#builder()}) or from a configuration
 * ({@code config.toBuilder().ppu(false).build()}), sets any {@link NpuParameter} by its setter or by name and text
 * ({@link #set(NpuParameter, String)}, what files and {@code -p} use). {@link #build} validates the result; errors name
 * the flat parameter and its allowed values.
 */
public final class NpuConfigBuilder {
  private final Map<NpuParameter, String> values = new EnumMap<>(NpuParameter.class);

  NpuConfigBuilder() {
    for (NpuParameter p : NpuParameter.values()) {
      values.put(p, p.defaultValue());
    }
  }

  NpuConfigBuilder(NpuConfig c) {
    for (NpuParameter p : NpuParameter.values()) {
      values.put(p, p.valueIn(c));
    }
  }

  /** Sets {@code p} from text ({@code 16}, {@code true}, {@code 2:4}); checked at {@link #build}. */
  public NpuConfigBuilder set(NpuParameter p, String text) {
    values.put(p, text == null ? "" : text.strip());
    return this;
  }

  private NpuConfigBuilder set(NpuParameter p, long v) {
    return set(p, Long.toString(v));
  }

  public NpuConfigBuilder rows(int v) {
    return set(ROWS, v);
  }

  public NpuConfigBuilder spadKiB(int v) {
    return set(SPAD_KIB, v);
  }

  public NpuConfigBuilder spadBanks(int v) {
    return set(SPAD_BANKS, v);
  }

  public NpuConfigBuilder extMemMiB(int v) {
    return set(EXT_MEM_MIB, v);
  }

  public NpuConfigBuilder mTile(int v) {
    return set(M_TILE, v);
  }

  public NpuConfigBuilder accWidth(int v) {
    return set(ACC_WIDTH, v);
  }

  public NpuConfigBuilder icAccumDepth(int v) {
    return set(IC_ACCUM_DEPTH, v);
  }

  public NpuConfigBuilder maxM(int v) {
    return set(MAX_M, v);
  }

  public NpuConfigBuilder maxK(int v) {
    return set(MAX_K, v);
  }

  public NpuConfigBuilder maxN(int v) {
    return set(MAX_N, v);
  }

  /** External memory timing: first-byte latency in cycles and bytes per cycle after it. */
  public NpuConfigBuilder memory(int latency, int bytesPerCycle) {
    return set(MEM_LATENCY, latency).set(MEM_BYTES_PER_CYCLE, bytesPerCycle);
  }

  public NpuConfigBuilder memLatency(int v) {
    return set(MEM_LATENCY, v);
  }

  public NpuConfigBuilder memBytesPerCycle(int v) {
    return set(MEM_BYTES_PER_CYCLE, v);
  }

  public NpuConfigBuilder watchdogCycles(int v) {
    return set(WATCHDOG_CYCLES, v);
  }

  /** The Vector DSP's lanes, buffer rows, program words and longest run. */
  public NpuConfigBuilder dsp(int lanes, int rows, int programDepth, long maxRunCycles) {
    return dspLanes(lanes).dspRows(rows).dspProgramDepth(programDepth).dspMaxRunCycles(maxRunCycles);
  }

  public NpuConfigBuilder dspLanes(int v) {
    return set(DSP_LANES, v);
  }

  public NpuConfigBuilder dspRows(int v) {
    return set(DSP_ROWS, v);
  }

  public NpuConfigBuilder dspProgramDepth(int v) {
    return set(DSP_PROGRAM_DEPTH, v);
  }

  public NpuConfigBuilder dspMaxRunCycles(long v) {
    return set(DSP_MAX_RUN_CYCLES, v);
  }

  public NpuConfigBuilder dspStages(int stages) {
    return set(DSP_STAGES, stages);
  }

  /** {@code dspPermute}: the Vector DSP's buffer permutations (Kᵀ by lanes×lanes blocks). */
  public NpuConfigBuilder dspPermute(boolean on) {
    return set(NpuParameter.DSP_PERMUTE, Boolean.toString(on));
  }

  /** The GEMM engine: one of {@link NpuConfig#ENGINES}. */
  public NpuConfigBuilder engine(String e) {
    return set(ENGINE, e);
  }

  public NpuConfigBuilder engine(NpuEngineKind e) {
    return set(ENGINE, e.key());
  }

  public NpuConfigBuilder weightRowsPerCycle(int r) {
    return set(WEIGHT_ROWS_PER_CYCLE, r);
  }

  public NpuConfigBuilder ppu(boolean on) {
    return set(PPU, Boolean.toString(on));
  }

  /** {@code ppmWide}: a PPM of {@code rows} lanes (a fused drain of one N tile of a row a cycle). */
  public NpuConfigBuilder ppmWide(boolean on) {
    return set(NpuParameter.PPM_WIDE, Boolean.toString(on));
  }

  /** {@code ppmGate}: the PPM's gate operand ({@code gemm ppm=1 gate=1}); needs {@code ppu}. */
  public NpuConfigBuilder ppmGate(boolean on) {
    return set(NpuParameter.PPM_GATE, Boolean.toString(on));
  }

  /** {@code xKeep}: the engine keeps its X buffer across GEMMs ({@code gemm xKeep=1}); needs the systolic engine. */
  public NpuConfigBuilder xKeep(boolean on) {
    return set(NpuParameter.X_KEEP, Boolean.toString(on));
  }

  /** {@code bus}: {@code native} or {@code axi}. */
  public NpuConfigBuilder bus(String bus) {
    return set(NpuParameter.BUS, bus);
  }

  public NpuConfigBuilder mxLoad(boolean on) {
    return set(MX_LOAD, Boolean.toString(on));
  }

  /** The MAC array's N:M mode: {@code dense}, {@code 2:4} or {@code 4:8} (also {@code none}, {@code s2_4}, ...). */
  public NpuConfigBuilder sparsity(String s) {
    return set(SPARSITY, s);
  }

  public NpuConfigBuilder commandQueueDepth(int depth) {
    return set(COMMAND_QUEUE_DEPTH, depth);
  }

  /** Clock gating of the units: {@code on}, {@code off} or {@code checked}. */
  public NpuConfigBuilder clockGating(String mode) {
    return set(CLOCK_GATING, mode);
  }

  public NpuConfigBuilder clockGating(ClockGating mode) {
    return set(CLOCK_GATING, mode.key());
  }

  /** The configuration, validated: errors name the flat parameter and its allowed values. */
  public NpuConfig build() {
    NpuMemoryConfig memory = new NpuMemoryConfig(integer(SPAD_KIB), integer(SPAD_BANKS), integer(EXT_MEM_MIB),
        integer(MEM_LATENCY), integer(MEM_BYTES_PER_CYCLE), integer(WATCHDOG_CYCLES), bool(MX_LOAD),
        NpuParameter.BUS.canonical(values.get(NpuParameter.BUS)));
    NpuEngineConfig engine = new NpuEngineConfig(NpuEngineKind.of(ENGINE.canonical(values.get(ENGINE))),
        integer(ROWS), integer(M_TILE), integer(ACC_WIDTH), integer(IC_ACCUM_DEPTH), integer(MAX_M), integer(MAX_K),
        integer(MAX_N), NpuEngineConfig.sparsityOf(values.get(SPARSITY)), integer(WEIGHT_ROWS_PER_CYCLE),
        bool(NpuParameter.X_KEEP));
    NpuDspConfig dsp = new NpuDspConfig(integer(DSP_LANES), integer(DSP_ROWS), integer(DSP_PROGRAM_DEPTH),
        number(DSP_MAX_RUN_CYCLES), integer(DSP_STAGES), bool(NpuParameter.DSP_PERMUTE));
    ClockGating gating = ClockGating.parse(CLOCK_GATING.key(), CLOCK_GATING.canonical(values.get(CLOCK_GATING)));
    return new NpuConfig(memory, new NpuFetchConfig(integer(COMMAND_QUEUE_DEPTH)), engine, dsp,
        new NpuPpmConfig(bool(PPU), bool(NpuParameter.PPM_GATE), bool(NpuParameter.PPM_WIDE)), gating);
  }

  /** The value as a number; its range is checked by the record that holds it. */
  private long number(NpuParameter p) {
    String text = values.get(p);
    try {
      return Long.parseLong(text);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(p.key() + " must be " + p.domain().allowed() + ", got '" + text + "'", e);
    }
  }

  private int integer(NpuParameter p) {
    long v = number(p);
    if (v != (int) v) {
      p.check(v);
    }
    return (int) v;
  }

  private boolean bool(NpuParameter p) {
    return Boolean.parseBoolean(p.canonical(values.get(p)));
  }
}
