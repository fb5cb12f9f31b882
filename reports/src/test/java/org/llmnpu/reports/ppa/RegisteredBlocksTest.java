package org.llmnpu.reports.ppa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;
import org.llmnpu.hdl.gen.BlockGenerator;
import org.llmnpu.hdl.gen.BlockRegistry;
import org.llmnpu.hdl.gen.ParamSpec;
import org.llmnpu.hdl.gen.Params;
import org.llmnpu.reports.RequiredTools;
import org.llmnpu.reports.TestDesigns;
import org.llmnpu.reports.html.PpaReport;
import org.llmnpu.reports.html.ReportWriter;

/**
 * The flow runs on every registered block and its numbers reach the JSON. Blocks run in a small
 * configuration (integer parameters at most 4, or their minimum) so the suite stays fast as
 * blocks are added; {@code ./npu report ppa} covers the defaults.
 */
class RegisteredBlocksTest {
  @TempDir
  Path tmp;

  @TestFactory
  Stream<DynamicTest> everyRegisteredBlockHasAreaACriticalPathAndJsonNumbers() {
    return blocks(0, tmp);
  }

  /**
   * The dynamic tests of every other registered block from {@code first} (0 or 1): this class runs the even ones,
   * {@link RegisteredBlocksOddTest} the odd ones, so that the two halves run in parallel test forks beside the
   * NPU's and the calibration's long classes. fp32-fma is left out: its small configuration ({@code stages} 0, the
   * whole FMA as one cone of logic) takes about a minute of synthesis, and {@code TargetClockRegressionTest} runs the
   * flow on its defaults (about 16 s). npu runs in {@link NpuBlockPpaTest}, a class of its own.
   */
  static Stream<DynamicTest> blocks(int first, Path tmp) {
    List<BlockGenerator> blocks = BlockRegistry.all().stream()
        .filter(g -> !g.name().equals("fp32-fma") && !g.name().equals(NpuBlockPpaTest.BLOCK)).toList();
    assertFalse(blocks.size() < 2, "hw-dsl registers example blocks");
    return java.util.stream.IntStream.range(0, blocks.size()).filter(i -> half(blocks.get(i), i) == first)
        .mapToObj(blocks::get)
        .map(gen -> DynamicTest.dynamicTest(gen.name(), () -> checkBlock(gen, tmp)));
  }

  /**
   * The half (0 or 1) block {@code i} runs in: alternating, except that the Vector DSP (the longest synthesis, about
   * 80 s cold) runs in the odd half, since the even half also holds the PPM (about 50 s): measured cold, the halves
   * took 192 s and 42 s with plain alternation.
   */
  private static int half(BlockGenerator gen, int i) {
    return gen.name().equals("vector-dsp") ? 1 : i % 2;
  }

  /** The flow on {@code gen} in its {@link #smallConfiguration}: area, critical path, JSON numbers. */
  static void checkBlock(BlockGenerator gen, Path tmp) throws Exception {
    checkBlock(gen, smallConfiguration(gen), tmp);
  }

  /** The flow on {@code gen} with {@code params}: area, critical path, JSON numbers; the flow's result. */
  static PpaResult checkBlock(BlockGenerator gen, Map<String, String> params, Path tmp) throws Exception {
    RequiredTools.require("yosys", "sta");
    PpaOptions o = TestDesigns.options();
    PpaResult r = PpaSweep.run(BlockDesigns.of(gen), params, null, List.of(), o).get(0);
    assertTrue(r.synthesis().chipAreaUm2() > 0, "area");
    assertTrue(r.timing().criticalDelayNs() > 0 && r.timing().fmaxMhz() > 0, "critical path " + r.timing());
    assertFalse(r.timing().startpoint().isBlank() || r.timing().endpoint().isBlank());
    assertTrue(r.synthesis().notes().isEmpty(), "every listed memory became a macro: " + r.synthesis().notes());
    Path out = tmp.resolve(gen.name());
    ReportWriter.write(PpaReport.of(gen.name(), null, List.of(r), o), out);
    JsonNode p = new ObjectMapper().readTree(out.resolve("ppa.json").toFile()).get("points").get(0);
    assertEquals(r.synthesis().chipAreaUm2(), p.get("synthesis").get("stdCellAreaUm2").asDouble());
    assertEquals(r.timing().fmaxMhz(), p.get("timing").get("fmaxMhz").asDouble());
    assertEquals(r.power().totalMw(), p.get("power").get("totalMw").asDouble());
    return r;
  }

  @Test
  void largerMacArrayHasMoreAreaAndPower() {
    RequiredTools.require("yosys", "sta");
    List<PpaResult> sweep = PpaSweep.run(BlockDesigns.of(BlockRegistry.find("pe-array")), Map.of("cols", "2"),
        "rows", List.of("1", "2", "4"), TestDesigns.options());
    for (int i = 1; i < sweep.size(); i++) {
      assertTrue(sweep.get(i).synthesis().chipAreaUm2() > 1.5 * sweep.get(i - 1).synthesis().chipAreaUm2(),
          "area grows with rows");
      assertTrue(sweep.get(i).power().totalMw() > sweep.get(i - 1).power().totalMw(), "power grows with rows");
    }
  }

  @Test
  void macArray8x8PowerIsPropagatedFromItsInputsWithoutCrashingOpenSta() {
    RequiredTools.require("yosys", "sta");
    PpaResult r = PpaSweep.run(BlockDesigns.of(BlockRegistry.find("pe-array")), Map.of("rows", "8", "cols", "8"),
        null, List.of(), TestDesigns.options()).get(0);
    assertTrue(r.power().totalMw() > 100, "64 MACs at 200 MHz: " + r.power());
    assertEquals(PowerResult.INPUTS, r.power().activityModel(), "undriven nets are tied off for OpenSTA");
    assertEquals(0, r.synthesis().flipFlops() % 64, "identical PEs: flip-flops a multiple of 64");
  }

  /** Pipeline-depth parameters, which {@link #smallConfiguration} sets to their minimum. */
  static final java.util.Set<String> PIPELINE_DEPTHS = java.util.Set.of("stages", "executeStages");

  /**
   * Integer parameters at min(default, max(minimum, 4)) (an allowed choice), pipeline depths ({@code stages},
   * {@code executeStages}) at their minimum (the fastest synthesis; {@code TargetClockRegressionTest} checks the
   * default depths), others at their default; a parameter whose small value the block's own rules refuse in combination with the
   * others (e.g. the PPM's 4-bit output with its PPU) goes back to its default.
   */
  static Map<String, String> smallConfiguration(BlockGenerator gen) {
    Map<String, String> out = new LinkedHashMap<>();
    for (ParamSpec spec : gen.params()) {
      if (spec.kind() != ParamSpec.Kind.INT) {
        continue;
      }
      long want = PIPELINE_DEPTHS.contains(spec.name()) ? spec.min()
          : Math.min(Long.parseLong(spec.defaultValue()), Math.max(spec.min(), 4));
      long value = want;
      if (!spec.choices().isEmpty()) {
        value = spec.choices().stream().mapToLong(Long::parseLong).filter(c -> c <= want).max()
            .orElse(Long.parseLong(spec.choices().get(0)));
      }
      out.put(spec.name(), Long.toString(value));
    }
    for (ParamSpec spec : gen.params()) {
      try {
        gen.build(Params.resolve(gen, out));
        return out;
      } catch (IllegalArgumentException refused) {
        out.remove(spec.name());
      }
    }
    Params.resolve(gen, out);
    return out;
  }
}
