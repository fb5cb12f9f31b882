package org.llmnpu.reports.ppa;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.llmnpu.hdl.tools.ProcessCleanup;
import org.llmnpu.hdl.emit.VerilogDesign;

/**
 * Synthesizes a {@link VerilogDesign} with Yosys to a standard-cell library and returns area,
 * cell counts and the gate netlist.
 *
 * <p>Memories listed in {@link VerilogDesign#memories()} become SRAM macros, not flip-flops:
 * after coarse synthesis ({@code synth -run begin:fine}, which ends with {@code memory -nomap}),
 * each such memory's {@code $mem_v2} cell is retyped to a black-box cell
 * {@code LLMNPU_SRAM_<module>_<name>} ({@code chtype}), its shape is dumped, its parameters are
 * dropped, and fine synthesis, {@code dfflibmap}, {@code abc -D <clock period> -constr} (delay-driven
 * mapping, then ABC's {@code buffer; upsize; dnsize}: high-fanout nets are buffered and gates
 * sized for the period, inputs driven by a BUFX2, outputs loaded with 10 fF), {@code opt_clean} and
 * {@code stat -liberty -top} run, and {@code write_verilog -simple-lhs} writes a netlist OpenSTA
 * can read.
 *
 * <p>By default the hierarchy is kept: each distinct module (the emitter deduplicates them) is
 * synthesized once and {@code stat -top} multiplies by the instance counts, so a 16 × 16 array
 * of identical PEs costs one PE; optimization across module boundaries is lost (a few percent of
 * area), except for the modules the design lists as {@link VerilogDesign#flattened} (the units of a controller,
 * whose paths cross their ports), which are flattened into their parents before fine synthesis. With
 * {@code flatten} the design is flattened before fine synthesis. Either way the
 * mapped netlist handed to OpenSTA is flat and has no undriven nets ({@code setundef -undriven
 * -zero}): OpenSTA 2.0.17 crashes in {@code report_power} on hierarchical netlists and on
 * undriven nets when it propagates input activities. Black boxes have no liberty area, so the
 * chip area counts standard cells only. Memories that are not listed are synthesized to
 * flip-flops as usual. Results are cached by content hash.
 */
public final class YosysSynthesis {
  private static final long TIMEOUT_SECONDS = 3600;
  private static final Pattern CHIP_AREA = Pattern.compile("Chip area for (?:module|top module) '\\\\?([^']+)': ([0-9.eE+-]+)");
  private static final Pattern CELL_LINE = Pattern.compile("^\\s+(\\S+)\\s+(\\d+)\\s*$");
  private static final Pattern DUMP_CELL = Pattern.compile("^\\s*cell \\\\?(LLMNPU_SRAM_\\S+) \\\\?(\\S+)\\s*$");
  private static final Pattern DUMP_PARAM = Pattern.compile("^\\s*parameter \\\\(\\S+) (\\S+)\\s*$");
  private static final List<String> MEM_PARAMS = List.of("INIT", "MEMID", "ABITS", "SIZE", "OFFSET", "WIDTH",
      "RD_PORTS", "WR_PORTS", "RD_CLK_ENABLE", "RD_CLK_POLARITY", "RD_TRANSPARENCY_MASK", "RD_COLLISION_X_MASK",
      "RD_WIDE_CONTINUATION", "RD_CE_OVER_SRST", "RD_ARST_VALUE", "RD_SRST_VALUE", "RD_INIT_VALUE",
      "WR_CLK_ENABLE", "WR_CLK_POLARITY", "WR_PRIORITY_MASK", "WR_WIDE_CONTINUATION");

  private final Path liberty;
  private final ContentCache cache;
  private final boolean flatten;
  private final long targetDelayPs;
  /**
   * ABC's timing constraints: inputs driven by a BUFX2, outputs loaded with 10 fF. With them ABC
   * runs {@code buffer; upsize; dnsize} after mapping.
   */
  static final String ABC_CONSTRAINTS = "set_driving_cell BUFX2\nset_load 0.01\n";

  /**
   * @param targetDelayPs the clock period ABC maps for ({@code abc -D}): delay-oriented mapping
   *     with buffering of high-fanout nets and gate sizing, as a timing-driven synthesis does
   */
  public YosysSynthesis(Path liberty, ContentCache cache, boolean flatten, long targetDelayPs) {
    this.liberty = liberty;
    this.cache = cache;
    this.flatten = flatten;
    this.targetDelayPs = targetDelayPs;
  }

  /** The Yosys script for a design whose files are in the working directory. */
  String script(VerilogDesign design) {
    StringBuilder s = new StringBuilder();
    for (String file : design.files().keySet()) {
      s.append("read_verilog -sv ").append(file).append('\n');
    }
    s.append("synth -top ").append(design.top()).append(" -run begin:fine\n");
    for (VerilogDesign.MemoryInfo m : design.memories()) {
      s.append("chtype -set ").append(SramMacro.cellTypeFor(m.module(), m.name()))
          .append(' ').append(m.module()).append('/').append(m.name()).append('\n');
    }
    s.append("dump -o macros.il t:LLMNPU_SRAM_*\n");
    s.append("setparam");
    MEM_PARAMS.forEach(p -> s.append(" -unset ").append(p));
    s.append(" t:LLMNPU_SRAM_*\n");
    if (flatten) {
      s.append("flatten\n");
    } else {
      // the units of a larger module (HwModule#flattenInSynthesis) go into their parents, so the gate mapping
      // optimizes the paths that cross their ports whole
      for (String module : design.flattened()) {
        s.append("flatten t:").append(module).append('\n');
      }
      for (String module : design.flattened()) {
        s.append("delete ").append(module).append('\n');
      }
    }
    s.append("synth -top ").append(design.top()).append(" -run fine:check\n");
    s.append("dfflibmap -liberty lib.lib\n");
    if (hasLatches(design)) {
      // the clock gates' latches: dfflibmap maps flip-flops only
      s.append("techmap -map latch_map.v\n");
    }
    s.append("abc -D ").append(targetDelayPs).append(" -constr abc.constr -liberty lib.lib\n");
    s.append("opt_clean\n");
    s.append("stat -liberty lib.lib -top ").append(design.top()).append('\n');
    // OpenSTA 2.0.17 crashes propagating input activities through hierarchical netlists, so the
    // mapped netlist is flattened (no re-optimization) before it is written
    s.append("flatten\n");
    // undriven nets (left by flattening the mapped hierarchy) crash OpenSTA's activity propagation
    s.append("setundef -undriven -zero\n");
    // OpenSTA's Verilog reader rejects concatenations on the left of an assign
    s.append("write_verilog -noattr -noexpr -simple-lhs netlist.v\n");
    return s.toString();
  }

  /** Whether the design has clock-gating cells, whose latches need the library's latch cell. */
  static boolean hasLatches(VerilogDesign design) {
    return design.files().containsKey(org.llmnpu.hdl.ClockGateCell.MODULE + ".v");
  }

  /** Runs (or fetches from the cache) the synthesis of {@code design}. */
  public SynthesisResult run(VerilogDesign design) {
    String script = script(design);
    String lib = read(liberty);
    Map<String, String> out = cache.getOrCompute(key(design), () -> runYosys(design, script, lib));
    return parse(design, out.get("yosys.log"), out.get("macros.il"), out.get("netlist.v"), LibertyAreas.parse(lib));
  }

  /**
   * The cache key of this synthesis of {@code design}: everything that determines it (Yosys's version, the script
   * with the target delay, the ABC constraints, the library, the Verilog files).
   */
  public String key(VerilogDesign design) {
    List<String> keyParts = new ArrayList<>(List.of("yosys", ToolVersions.yosys(), script(design), ABC_CONSTRAINTS,
        read(liberty)));
    design.files().forEach((name, text) -> {
      keyParts.add(name);
      keyParts.add(text);
    });
    return ContentCache.key(keyParts);
  }

  private Map<String, String> runYosys(VerilogDesign design, String script, String lib) {
    Path work = null;
    try {
      work = ProcessCleanup.tempDirectory("llmnpu-yosys-");
      for (var f : design.files().entrySet()) {
        Files.writeString(work.resolve(f.getKey()), f.getValue(), StandardCharsets.UTF_8);
      }
      Files.writeString(work.resolve("lib.lib"), lib, StandardCharsets.UTF_8);
      Files.writeString(work.resolve("abc.constr"), ABC_CONSTRAINTS, StandardCharsets.UTF_8);
      Files.writeString(work.resolve("synth.ys"), script, StandardCharsets.UTF_8);
      if (hasLatches(design)) {
        Files.writeString(work.resolve("latch_map.v"), LibertyLatch.find(lib).orElseThrow(() -> new ToolFailure(
            "yosys", design.top() + " has clock-gating latches but the library " + liberty + " has no latch cell",
            List.of())).techmap(), StandardCharsets.UTF_8);
      }
      String log = ToolRunner.run(List.of("yosys", "-q", "-l", "yosys.log", "-s", "synth.ys"), work, TIMEOUT_SECONDS);
      Map<String, String> files = new LinkedHashMap<>();
      files.put("yosys.log", read(work.resolve("yosys.log")) + log);
      Path macros = work.resolve("macros.il");
      files.put("macros.il", Files.exists(macros) ? read(macros) : "");
      files.put("netlist.v", read(work.resolve("netlist.v")));
      ProcessCleanup.delete(work);
      return files;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot prepare the Yosys run in " + work + ": " + e.getMessage(), e);
    } finally {
      ProcessCleanup.keep(work); // deleted above on success; a failed run's files stay for inspection
    }
  }

  static SynthesisResult parse(VerilogDesign design, String log, String macroDump, String netlist,
                               Map<String, Double> cellAreas) {
    Matcher area = CHIP_AREA.matcher(log);
    double chipArea = Double.NaN;
    while (area.find()) {
      chipArea = Double.parseDouble(area.group(2));
    }
    if (Double.isNaN(chipArea)) {
      throw new ToolFailure("yosys", "Yosys printed no 'Chip area' line for " + design.top(), List.of());
    }
    TreeMap<String, Integer> cells = new TreeMap<>();
    String stats = log.substring(log.lastIndexOf("Number of cells:"));
    for (String line : stats.split("\n")) {
      if (line.contains("Chip area") || line.isBlank() && !cells.isEmpty()) {
        break;
      }
      Matcher m = CELL_LINE.matcher(line);
      if (m.matches()) {
        cells.put(m.group(1), Integer.parseInt(m.group(2)));
      }
    }
    List<SramMacro> macros = new ArrayList<>();
    List<String> notes = new ArrayList<>();
    for (SramMacro shape : parseMacroDump(design, macroDump)) {
      Integer copies = cells.remove(shape.cellType());
      macros.add(shape.withInstances(copies == null ? 0 : copies));
    }
    for (VerilogDesign.MemoryInfo m : design.memories()) {
      String type = SramMacro.cellTypeFor(m.module(), m.name());
      if (macros.stream().noneMatch(x -> x.cellType().equals(type))) {
        notes.add(String.format("memory %s.%s (%d x %d bit) was not inferred as a memory by Yosys; "
            + "it is synthesized as flip-flops and counted in the standard-cell area", m.module(), m.name(),
            m.depth(), m.width()));
      }
    }
    int cellCount = cells.values().stream().mapToInt(Integer::intValue).sum();
    TreeMap<String, Double> areaByType = new TreeMap<>();
    cells.forEach((type, n) -> areaByType.put(type, n * cellAreas.getOrDefault(type, 0.0)));
    return new SynthesisResult(chipArea, cellCount, cells, areaByType, macros, notes, netlist, log);
  }

  /** Shapes of the retyped memory cells from Yosys's {@code dump} output. */
  static List<SramMacro> parseMacroDump(VerilogDesign design, String dump) {
    Map<String, SramMacro> out = new TreeMap<>();
    String type = null;
    Map<String, String> params = new LinkedHashMap<>();
    for (String line : dump.split("\n")) {
      Matcher cell = DUMP_CELL.matcher(line);
      Matcher param = DUMP_PARAM.matcher(line);
      if (cell.matches()) {
        type = cell.group(1);
        params.clear();
      } else if (type != null && param.matches()) {
        params.put(param.group(1), param.group(2));
      } else if (type != null && line.strip().equals("end")) {
        String t = type;
        VerilogDesign.MemoryInfo info = design.memories().stream()
            .filter(m -> SramMacro.cellTypeFor(m.module(), m.name()).equals(t)).findFirst().orElseThrow();
        String clocked = params.get("RD_CLK_ENABLE");
        int readPorts = intParam(params, "RD_PORTS");
        out.put(t, new SramMacro(t, info.module(), info.name(), intParam(params, "WIDTH"), intParam(params, "SIZE"),
            intParam(params, "ABITS"), readPorts, intParam(params, "WR_PORTS"),
            readPorts > 0 && clocked != null && !clocked.contains("0"), 0));
        type = null;
      }
    }
    return new ArrayList<>(out.values());
  }

  /** A Yosys parameter value: decimal, or {@code N'bits} binary. */
  static int intParam(Map<String, String> params, String name) {
    String v = params.get(name);
    if (v == null) {
      throw new ToolFailure("yosys", "memory cell dump has no parameter " + name, List.of());
    }
    int tick = v.indexOf('\'');
    return tick < 0 ? Integer.parseInt(v) : Integer.parseInt(v.substring(tick + 1), 2);
  }

  static String read(Path file) {
    try {
      return Files.readString(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file + ": " + e.getMessage(), e);
    }
  }
}
