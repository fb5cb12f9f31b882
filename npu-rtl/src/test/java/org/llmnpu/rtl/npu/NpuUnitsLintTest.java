package org.llmnpu.rtl.npu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.llmnpu.hdl.DesignAssertions;
import org.llmnpu.hdl.emit.Verilog;
import org.llmnpu.hdl.emit.VerilogDesign;
import org.llmnpu.hdl.gen.BlockGenerator;
import org.llmnpu.hdl.gen.BlockRegistry;
import org.llmnpu.hdl.gen.Params;

/**
 * Every unit of the {@link Npu} is a module of its own that is -Wall clean alone, in the configurations that
 * change its ports (line width, banks, W rows a cycle, MX decoding), and is registered as a block
 * ({@code npu-<unit>}) that builds the same Verilog as the NPU's instance; the NPU's top instantiates the units.
 */
class NpuUnitsLintTest {
  static final List<String> UNITS = List.of("npu-counters", "npu-watchdog", "npu-snapshot", "npu-scratchpad",
      "npu-backend", "npu-predecode", "npu-load4", "npu-loadmx", "npu-ppm", "npu-controller",
      "npu-fetch", "npu-dma", "npu-dsp");

  private static final List<NpuConfig> CONFIGS = List.of(NpuConfig.small(), NpuConfig.defaults(),
      NpuConfig.small().withWeightRowsPerCycle(4), NpuConfig.small().withSparsity("2:4"),
      NpuConfig.defaults().withMxLoad(true).withPpu(false));

  @Test
  void everyUnitIsLintCleanAlone() {
    for (NpuConfig c : CONFIGS) {
      for (var unit : List.of(new NpuCounters(c), new NpuWatchdog(c), new NpuSnapshot(c), new NpuScratchpad(c),
          new NpuBackEnd(c), new NpuPredecode(c), new NpuLoad4(c), new NpuLoadMx(c), NpuPpm.module(c), new NpuController(c),
          new NpuFetchUnit(c), new NpuDmaUnit(c))) {
        DesignAssertions.assertLintClean(unit, false);
      }
    }
  }

  /**
   * The DSP of a 64-wide array with 64 lanes (edge-64's, with its buffer permutations {@code dspPermute}): a
   * 64-element buffer window (a 64-byte line of INT8, half of it read whole as FP16), an 8-word program port, a
   * 32-entry table port; and 64 lanes behind a 16-byte line (without them); and the default NPU's DSP with them.
   */
  @Test
  void aSixtyFourLaneDspIsLintCleanBehindWideAndNarrowLines() {
    for (int rows : new int[] {64, 16}) {
      NpuConfig c = NpuConfig.defaults().toBuilder().rows(rows).dspLanes(64).dspRows(1024).dspProgramDepth(512)
          .dspPermute(rows == 64).build();
      DesignAssertions.assertLintClean(NpuDsp.module(c), false);
    }
    DesignAssertions.assertLintClean(NpuDsp.module(NpuConfig.defaults().toBuilder().dspPermute(true).build()), false);
  }

  @Test
  void everyUnitIsARegisteredBlockWhoseDefaultsAreTheDefaultNpusInstance() {
    VerilogDesign npu = Verilog.emit(new Npu(NpuConfig.defaults()));
    // the loadmx decoders are built only with MX decoding on the load path (a block of their own either way)
    VerilogDesign mx = Verilog.emit(new Npu(NpuConfig.defaults().withMxLoad(true)));
    for (String name : UNITS) {
      BlockGenerator g = BlockRegistry.find(name);
      VerilogDesign unit = Verilog.emit(g.build(Params.resolve(g, Map.of())));
      String file = unit.top() + ".v";
      String inNpu = (name.equals("npu-loadmx") ? mx : npu).files().get(file);
      assertTrue(inNpu != null, name + ": " + file + " in the default NPU");
      assertEquals(unit.files().get(file), inNpu, name + ": the NPU's instance of " + unit.top());
    }
  }

  @Test
  void theTopInstantiatesTheUnits() {
    for (NpuConfig c : List.of(NpuConfig.small(), NpuConfig.defaults().withMxLoad(true))) {
      VerilogDesign d = Verilog.emit(new Npu(c));
      String top = d.files().get(d.top() + ".v");
      Matcher m = Pattern.compile("(?m)^  (\\w+) (\\w+) \\(").matcher(top);
      List<String> instances = new java.util.ArrayList<>();
      while (m.find()) {
        instances.add(m.group(1));
      }
      int units = c.mxLoad() ? 14 : 13;
      assertTrue(instances.size() >= units, c + ": " + instances);
      for (String unit : List.of("NpuScratchpad", "NpuWatchdog", "NpuLoad4", "NpuSnapshot", "NpuCounters",
          "NpuBackEnd", "NpuPredecode", "NpuController",
          "NpuFetchUnit", "NpuDmaUnit")) {
        assertTrue(instances.stream().anyMatch(i -> i.startsWith(unit + "_")), unit + " in " + instances);
      }
    }
  }

  /**
   * The top is a wiring list: the controller and at least seven units are instances of it, and its own module holds
   * no logic (no process, no register; its assignments are port connections and the clock gates' enables). The
   * flat top of 2026-12-03 had 2,178 lines with its state machine in processes; with the controller, fetcher and DMA
   * as units (13 instances, 3 clock gates) it has 784, its wires the units' connections.
   */
  @Test
  void theDefaultTopIsAWiringListOfUnits() {
    VerilogDesign d = Verilog.emit(new Npu(NpuConfig.defaults()));
    String top = d.files().get(d.top() + ".v");
    Matcher m = Pattern.compile("(?m)^  (\\w+) (\\w+) \\(").matcher(top);
    int instances = 0;
    while (m.find()) {
      instances++;
    }
    assertTrue(instances >= 13, "controller, fetcher, DMA and at least ten more units: " + instances);
    assertFalse(top.contains("always"), "the top has no processes");
    assertFalse(Pattern.compile("(?m)^\\s*reg\\b").matcher(top).find(), "the top has no registers");
    long lines = top.lines().count();
    assertTrue(lines < 900, "the top's Verilog is a wiring list of under 900 lines: " + lines);
  }
}
