package org.llmnpu.reports.ppa;

import java.util.List;
import java.util.SortedMap;

/**
 * What Yosys synthesis of one design to the OSU 0.18 µm library produced.
 *
 * @param chipAreaUm2  standard-cell area from {@code stat -liberty}, µm², SRAM macros excluded
 * @param cellCount    standard cells (macros excluded)
 * @param cellsByType  standard-cell type to count, sorted by name
 * @param areaByTypeUm2 standard-cell type to the area of all its instances, µm²
 * @param macros       memories kept as SRAM macro black boxes
 * @param notes        remarks for the reader (e.g. a listed memory Yosys turned into flip-flops)
 * @param netlist      gate-level Verilog ({@code write_verilog -noattr})
 * @param yosysLog     Yosys's log of the run
 */
public record SynthesisResult(double chipAreaUm2, int cellCount, SortedMap<String, Integer> cellsByType,
                              SortedMap<String, Double> areaByTypeUm2,
                              List<SramMacro> macros, List<String> notes, String netlist, String yosysLog) {
  public SynthesisResult {
    macros = List.copyOf(macros);
    notes = List.copyOf(notes);
  }

  /** Flip-flops among the standard cells (OSU018 names them {@code DFF*}). */
  public int flipFlops() {
    return cellsByType.entrySet().stream().filter(e -> e.getKey().startsWith("DFF"))
        .mapToInt(e -> e.getValue()).sum();
  }
}
