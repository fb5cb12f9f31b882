package org.llmnpu.reports.ppa;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Each module's share of a hierarchical synthesis ({@link YosysSynthesis} without {@code flatten}), read from the
 * per-module sections of its {@code stat -liberty -top} log: a module's section lists its own standard cells, the
 * SRAM black boxes it holds and the submodules it instantiates (counts), and its own cells' area
 * ({@code Chip area for module}). A module's hierarchical share is its own area plus, for every submodule, the
 * instance count times that submodule's hierarchical share — the same sum by which Yosys's {@code stat -top} gives
 * the top's area, so the shares of the top's direct instances plus the top's own cells add up to the top exactly.
 *
 * <p>This is how {@code npu report npu} and {@code npu demo} get the area of every unit the NPU top keeps as a
 * module (GEMM engine, PPM, Vector DSP) without synthesizing it a second time. A module the top flattens into its
 * parent ({@code HwModule#flattenInSynthesis}) has no section: {@link #of} returns empty for it.
 */
public final class ModuleAreas {
  private static final Pattern SECTION = Pattern.compile("(?m)^=== (\\S+) ===$");
  private static final Pattern CELL_LINE = Pattern.compile("^\\s+(\\S+)\\s+(\\d+)\\s*$");
  private static final Pattern MODULE_AREA = Pattern.compile("Chip area for module '\\\\?([^']+)': ([0-9.eE+-]+)");

  /** One module's own content: cells by type (standard cells, SRAM boxes, submodules) and its own cells' area. */
  private record Own(Map<String, Integer> cells, double areaUm2) {
  }

  private final Map<String, Own> modules;

  private ModuleAreas(Map<String, Own> modules) {
    this.modules = modules;
  }

  /** Parses the last {@code stat} of a Yosys log (a hierarchical run's per-module sections). */
  public static ModuleAreas parse(String yosysLog) {
    int start = yosysLog.lastIndexOf("Printing statistics.");
    String stats = start < 0 ? "" : yosysLog.substring(start);
    Map<String, Own> modules = new LinkedHashMap<>();
    List<java.util.regex.MatchResult> sections = SECTION.matcher(stats).results().toList();
    int[] bounds = sections.stream().mapToInt(java.util.regex.MatchResult::start).toArray();
    for (int i = 0; i < bounds.length; i++) {
      String name = sections.get(i).group(1);
      String body = stats.substring(bounds[i], i + 1 < bounds.length ? bounds[i + 1] : stats.length());
      Matcher area = MODULE_AREA.matcher(body);
      if (!area.find() || !area.group(1).equals(name)) {
        continue; // the top's section ends with "Chip area for top module" only after the hierarchy: not a unit
      }
      Map<String, Integer> cells = new TreeMap<>();
      int from = body.indexOf("Number of cells:");
      if (from >= 0) {
        boolean seen = false;
        for (String line : body.substring(from).split("\n", -1)) {
          if (line.contains("Number of cells:")) {
            continue;
          }
          Matcher c = CELL_LINE.matcher(line);
          if (c.matches()) {
            cells.put(c.group(1), Integer.parseInt(c.group(2)));
            seen = true;
          } else if (seen || line.isBlank()) {
            break;
          }
        }
      }
      modules.put(name, new Own(cells, Double.parseDouble(area.group(2))));
    }
    return new ModuleAreas(modules);
  }

  /** Whether the log has a section of {@code module} (a module the top kept, not flattened). */
  public boolean has(String module) {
    return modules.containsKey(module);
  }

  /**
   * The hierarchical share of {@code module} in {@code top}'s synthesis (whose log this is): its standard-cell area
   * and cells summed over everything below it, and its SRAM macros (shapes from the top's macro dump) with their
   * instance counts below it. Netlist and log are empty: the share is a part of the top's run, not a run of its own.
   * Empty when the module has no section (flattened into its parent, or not in the design).
   */
  public Optional<SynthesisResult> of(String module, SynthesisResult top) {
    if (!has(module)) {
      return Optional.empty();
    }
    Map<String, Double> memo = new LinkedHashMap<>();
    double area = area(module, memo);
    TreeMap<String, Integer> cells = new TreeMap<>();
    cells(module, 1, cells);
    Map<String, Integer> macroCounts = new TreeMap<>();
    cells.entrySet().removeIf(e -> {
      if (e.getKey().startsWith(SramMacro.CELL_PREFIX)) {
        macroCounts.put(e.getKey(), e.getValue());
        return true;
      }
      return false;
    });
    List<SramMacro> macros = top.macros().stream().filter(s -> macroCounts.containsKey(s.cellType()))
        .map(s -> s.withInstances(macroCounts.get(s.cellType()))).toList();
    TreeMap<String, Double> areaByType = new TreeMap<>();
    cells.forEach((type, n) -> {
      Integer topCount = top.cellsByType().get(type);
      Double topArea = top.areaByTypeUm2().get(type);
      areaByType.put(type, topCount == null || topArea == null || topCount == 0 ? 0.0 : n * topArea / topCount);
    });
    int count = cells.values().stream().mapToInt(Integer::intValue).sum();
    return Optional.of(new SynthesisResult(area, count, cells, areaByType, macros, List.of(module
        + ": its share of the top's hierarchical synthesis (Yosys per-module stat), not synthesized on its own"),
        "", ""));
  }

  private double area(String module, Map<String, Double> memo) {
    Double known = memo.get(module);
    if (known != null) {
      return known;
    }
    Own own = modules.get(module);
    double sum = own.areaUm2();
    for (var c : own.cells().entrySet()) {
      if (modules.containsKey(c.getKey())) {
        sum += c.getValue() * area(c.getKey(), memo);
      }
    }
    memo.put(module, sum);
    return sum;
  }

  /** Standard cells and SRAM boxes below {@code module}, times {@code copies}, added into {@code out}. */
  private void cells(String module, int copies, Map<String, Integer> out) {
    for (var c : modules.get(module).cells().entrySet()) {
      if (modules.containsKey(c.getKey())) {
        cells(c.getKey(), copies * c.getValue(), out);
      } else {
        out.merge(c.getKey(), copies * c.getValue(), Integer::sum);
      }
    }
  }
}
