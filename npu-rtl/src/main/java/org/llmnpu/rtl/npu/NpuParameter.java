package org.llmnpu.rtl.npu;

import static org.llmnpu.rtl.npu.NpuParameterDomain.bool;
import static org.llmnpu.rtl.npu.NpuParameterDomain.choice;
import static org.llmnpu.rtl.npu.NpuParameterDomain.powersOfTwo;
import static org.llmnpu.rtl.npu.NpuParameterDomain.range;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.llmnpu.hdl.gen.ParamSpec;

/**
 * Every parameter of the {@link NpuConfig}, declared once: its flat name (the YAML/JSON key, the {@code -p} name and
 * the {@code npu} block's parameter), the group of the nested configuration it belongs to and its name there, its
 * allowed values, its default and what it means. The builder, the file loader ({@link NpuConfigFiles}), the
 * {@code npu} block's parameter specs ({@link NpuGenerator}), the CLI's {@code -p} and the parameter listings all
 * read this table; {@link NpuConfig#defaults()} is its defaults.
 */
public enum NpuParameter {
  ROWS("rows", Group.ENGINE, "rows", powersOfTwo(4, 64), "16", true,
      "MAC array rows = columns; also the bytes of a scratchpad line and of an external-memory beat", c -> c.rows()),
  SPAD_KIB("spadKiB", Group.MEMORY, "spadKiB", powersOfTwo(1, 65536), "256", true,
      "scratchpad capacity, KiB", c -> c.spadKiB()),
  SPAD_BANKS("spadBanks", Group.MEMORY, "spadBanks", powersOfTwo(1, 16), "4", true,
      "scratchpad banks (lines interleaved across banks)", c -> c.spadBanks()),
  EXT_MEM_MIB("extMemMiB", Group.MEMORY, "extMemMiB", range(1, 4096), "16", true,
      "external-memory size, MiB (addresses are 32 bits)", c -> c.extMemMiB()),
  M_TILE("mTile", Group.ENGINE, "mTile", range(2, 1024), "16", true,
      "periphery accumulator depth (M rows per chunk)", c -> c.mTile()),
  ACC_WIDTH("accWidth", Group.ENGINE, "accWidth", range(2, 32), "32", true,
      "accumulator width, bits", c -> c.accWidth()),
  IC_ACCUM_DEPTH("icAccumDepth", Group.ENGINE, "icAccumDepth", range(0, 65535), "0", true,
      "K tiles folded before a partial-sum write-back, 0 = all", c -> c.icAccumDepth()),
  MAX_M("maxM", Group.ENGINE, "maxM", range(1, 65535), "64", true,
      "largest GEMM M (engine X buffer and result memories)", c -> c.maxM()),
  MAX_K("maxK", Group.ENGINE, "maxK", range(1, 65535), "512", true,
      "largest GEMM K (engine X and W buffers; 1..32768 with an N:M sparsity)", c -> c.maxK()),
  MAX_N("maxN", Group.ENGINE, "maxN", range(1, 65535), "128", true,
      "largest GEMM N (engine W buffer and result memories)", c -> c.maxN()),
  MEM_LATENCY("memLatency", Group.MEMORY, "latency", range(1, 1_000_000), "32", false,
      "external-memory read latency, cycles (simulation model: the RTL does not change)", c -> c.memLatency()),
  MEM_BYTES_PER_CYCLE("memBytesPerCycle", Group.MEMORY, "bytesPerCycle", range(1, 1024), "16", false,
      "external-memory bandwidth, bytes per cycle (simulation model: the RTL does not change)",
      c -> c.memBytesPerCycle()),
  WATCHDOG_CYCLES("watchdogCycles", Group.MEMORY, "watchdogCycles", range(2, 1 << 24), "4096", true,
      "cycles a memory wait may last before the NPU halts with a watchdog error", c -> c.watchdogCycles()),
  DSP_LANES("dspLanes", Group.DSP, "lanes", powersOfTwo(1, 64), "16", true,
      "Vector DSP lanes (FP16 elements a buffer row holds)", c -> c.dspLanes()),
  DSP_ROWS("dspRows", Group.DSP, "rows", powersOfTwo(16, 65536), "512", true,
      "Vector DSP buffer rows", c -> c.dspRows()),
  DSP_PROGRAM_DEPTH("dspProgramDepth", Group.DSP, "programDepth", powersOfTwo(16, 4096), "256", true,
      "Vector DSP program words", c -> c.dspProgramDepth()),
  DSP_MAX_RUN_CYCLES("dspMaxRunCycles", Group.DSP, "maxRunCycles", range(16, 1L << 32), "16777216", true,
      "cycles one dsprun may take before the NPU halts with a watchdog error", c -> c.dspMaxRunCycles()),
  DSP_STAGES("dspStages", Group.DSP, "stages", range(1, 4), "4", true,
      "Vector DSP execute stages (4 meets the 5.75 ns target clock; its interlock stalls count in dsprun's cycles)",
      c -> c.dspStages()),
  DSP_PERMUTE("dspPermute", Group.DSP, "permute", bool(), "false", true,
      "the Vector DSP's buffer permutations (LDS/STS skewed rows, ROT lane rotation, LDG/STG row gather/scatter): "
          + "Kᵀ a lanes×lanes block at a time (3·lanes + 1 cycles) instead of one element a row", c -> c.dspPermute()),
  ENGINE("engine", Group.ENGINE, "kind", choice(NpuEngineKind.keys(), Map.of()), "systolic", true,
      "GEMM engine: the systolic MAC array, or the PiM macro (bit-serial, or k input bits a cycle)", c -> c.engine()),
  WEIGHT_ROWS_PER_CYCLE("weightRowsPerCycle", Group.ENGINE, "weightRowsPerCycle", powersOfTwo(1, 16), "1", true,
      "W rows a GEMM copies into the engine a cycle (scratchpad read ports; at most rows)",
      c -> c.weightRowsPerCycle()),
  X_KEEP("xKeep", Group.ENGINE, "xKeep", bool(), "false", true,
      "the engine keeps its X buffer across GEMMs: gemm xKeep=1 copies no X (the N tiles after the first of the same X; "
          + "needs engine systolic)", c -> c.xKeep()),
  PPU("ppu", Group.PPM, "ppu", bool(), "true", true,
      "the PPM's PPU (table nonlinearity after requantization); the PPM itself is always built", c -> c.ppu()),
  PPM_GATE("ppmGate", Group.PPM, "gate", bool(), "false", true,
      "the PPM's gate operand (gemm ppm=1 gate=1, the SwiGLU gate: each result times the INT8 code at its Y byte, "
          + "read by the drain); needs ppu", c -> c.ppmGate()),
  PPM_WIDE("ppmWide", Group.PPM, "wide", bool(), "false", true,
      "a PPM of rows lanes instead of rows/4: a gemm ppm=1 drains a whole N tile of a row (rows INT32 results) a cycle "
          + "and writes its rows INT8 codes as one line, M*ceil(N/rows) drain cycles instead of M*ceil(4N/rows); "
          + "false keeps rows/4 lanes", c -> c.ppmWide()),
  MX_LOAD("mxLoad", Group.MEMORY, "mxLoad", bool(), "false", true,
      "MX element decoding on the load path (loadmx: E4M3, E5M2, INT8 elements to INT8 codes)", c -> c.mxLoad()),
  SPARSITY("sparsity", Group.ENGINE, "sparsity", choice(List.of("dense", "2:4", "4:8"),
      Map.of("none", "dense", "s2_4", "2:4", "2_4", "2:4", "s4_8", "4:8", "4_8", "4:8")), "dense", true,
      "N:M mode the MAC array is built for (dense GEMMs always run; needs engine systolic, weightRowsPerCycle 1)",
      c -> c.sparsity()),
  COMMAND_QUEUE_DEPTH("commandQueueDepth", Group.FETCH, "commandQueueDepth", range(1, 64), "4", true,
      "commands in the command queue: the running one and up to depth - 1 read ahead (1 = no prefetch)",
      c -> c.commandQueueDepth()),
  CLOCK_GATING("clockGating", Group.TOP, "clockGating", choice(List.of("on", "off", "checked"),
      Map.of("true", "on", "false", "off")), "on", true,
      "clock gates on the GEMM engine, Vector DSP and PPM (checked: ungated, with simulation checks of the enables)",
      c -> c.clockGating()),
  BUS("bus", Group.MEMORY, "bus", choice(List.of("native", "axi"), Map.of()), "native", true,
      "the NPU's system interface: native (the mem_* request/response port, start and status pins) or axi (an AXI4 "
          + "master for the memory, AXI4-Lite control registers and an irq: org.llmnpu.rtl.npu.axi.NpuAxi)",
      c -> c.bus());

  /** The nested record of {@link NpuConfig} a parameter lives in, and the key of that record in a nested file. */
  public enum Group {
    MEMORY("memory"), FETCH("fetch"), ENGINE("engine"), DSP("dsp"), PPM("ppm"), TOP(null);

    private final String key;

    Group(String key) {
      this.key = key;
    }

    /** The group's key in a nested YAML/JSON file; null for the top level. */
    public String key() {
      return key;
    }
  }

  private final String key;
  private final Group group;
  private final String nestedName;
  private final NpuParameterDomain domain;
  private final String defaultValue;
  private final boolean rtl;
  private final String description;
  private final Function<NpuConfig, Object> value;

  NpuParameter(String key, Group group, String nestedName, NpuParameterDomain domain, String defaultValue,
               boolean rtl, String description, Function<NpuConfig, Object> value) {
    this.key = key;
    this.group = group;
    this.nestedName = nestedName;
    this.domain = domain;
    this.defaultValue = defaultValue;
    this.rtl = rtl;
    this.description = description;
    this.value = value;
  }

  /** The flat name: YAML/JSON key, {@code -p} name, {@code npu} block parameter. */
  public String key() {
    return key;
  }

  /** The nested record it belongs to. */
  public Group group() {
    return group;
  }

  /** Its name inside its group in a nested file ({@code dsp: {lanes: 16}}); the flat name at the top level. */
  public String nestedName() {
    return nestedName;
  }

  /** Its allowed values. */
  public NpuParameterDomain domain() {
    return domain;
  }

  /** Its default, as canonical text. */
  public String defaultValue() {
    return defaultValue;
  }

  /** Whether it changes the generated Verilog (else it is a parameter of the simulation model only). */
  public boolean rtl() {
    return rtl;
  }

  /** What it means, with its unit. */
  public String description() {
    return description;
  }

  /** Its value in {@code c}, as canonical text. */
  public String valueIn(NpuConfig c) {
    return String.valueOf(value.apply(c));
  }

  /** The canonical text of {@code text}; an error naming the parameter and its allowed values when not allowed. */
  public String canonical(String text) {
    return domain.canonical(key, text);
  }

  /** Checks an integer value; an error naming the parameter and its allowed values when not allowed. */
  void check(long v) {
    domain.check(key, v);
  }

  /** The parameter spec the {@code npu} block and {@code npu blocks} show. */
  public ParamSpec spec() {
    return switch (domain.kind()) {
      case INT -> domain.powerOfTwo()
          ? ParamSpec.powerOfTwo(key, Long.parseLong(defaultValue), domain.min(), domain.max(), description)
          : ParamSpec.integer(key, Long.parseLong(defaultValue), domain.min(), domain.max(), description);
      // booleans as the choices true/false, as the npu block has always listed them (params.json keeps "true")
      case BOOL, CHOICE -> ParamSpec.choice(key, defaultValue, domain.choices(), description);
    };
  }

  /** The parameter named {@code key}; an error listing every name when there is none. */
  public static NpuParameter of(String key) {
    for (NpuParameter p : values()) {
      if (p.key.equals(key)) {
        return p;
      }
    }
    throw new IllegalArgumentException("unknown NPU parameter '" + key + "'; allowed: " + String.join(", ", keys()));
  }

  /** Every flat name, in declaration order. */
  public static List<String> keys() {
    return Arrays.stream(values()).map(NpuParameter::key).toList();
  }

  /**
   * The values of {@code c} by flat name, as canonical text, in declaration order: every parameter, or with
   * {@code rtlOnly} those that shape the Verilog (the {@code npu} block's parameters).
   */
  public static Map<String, String> valuesOf(NpuConfig c, boolean rtlOnly) {
    Map<String, String> m = new LinkedHashMap<>();
    for (NpuParameter p : values()) {
      if (p.rtl || !rtlOnly) {
        m.put(p.key, p.valueIn(c));
      }
    }
    return m;
  }

  /**
   * The parameter table of the README, one row per parameter: flat name, nested name, default, allowed values, whether
   * it shapes the Verilog, meaning.
   */
  public static String markdownTable() {
    StringBuilder s = new StringBuilder("| parameter | nested | default | allowed | RTL | meaning |\n"
        + "|---|---|---|---|---|---|\n");
    for (NpuParameter p : values()) {
      String nested = p.group.key == null ? p.nestedName : p.group.key + "." + p.nestedName;
      s.append("| `").append(p.key).append("` | `").append(nested).append("` | `").append(p.defaultValue)
          .append("` | ").append(p.domain.allowed()).append(" | ").append(p.rtl ? "yes" : "no (simulation)")
          .append(" | ").append(p.description).append(" |\n");
    }
    return s.toString();
  }

  /** The parameters of {@code group}, in declaration order. */
  public static List<NpuParameter> of(Group group) {
    return Arrays.stream(values()).filter(p -> p.group == group).toList();
  }
}
