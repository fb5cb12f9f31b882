package org.llmnpu.rtl.ppm;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.llmnpu.numerics.ppu.Ppm;
import org.llmnpu.numerics.ppu.PpuError;
import org.llmnpu.numerics.ppu.PpuEvaluator;
import org.llmnpu.numerics.ppu.PpuFitter;
import org.llmnpu.numerics.ppu.PpuFunction;
import org.llmnpu.numerics.ppu.PpuTable;
import org.llmnpu.numerics.requant.RequantParams;

/**
 * Verilator: the programmable PPU equals {@code PpuEvaluator} (and the whole lane equals
 * {@code numerics.ppu.Ppm.process}) bit for bit at every Horner depth (3, 4 and the default 5
 * stages per step: one product or two partial products; one rounding shift or a floor shift and a
 * rounding increment). Tables are loaded through the C-LUT write port
 * into one model per configuration, one after another, as software would at run time.
 */
class PpmPpuTest {

  static Stream<PpmConfig> configurations() {
    return Stream.of(
        PpmConfig.of(8, 8, PpmConfig.Activation.PPU),
        new PpmConfig(3, 8, PpmConfig.Activation.PPU, 6, 4, 24),
        PpmConfig.of(2, 8, PpmConfig.Activation.PPU).withStages(7, 3),
        new PpmConfig(1, 8, PpmConfig.Activation.PPU, 6, 3, 24).withStages(6, 4));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("configurations")
  void everyInt8InputOfEveryShippedFunctionEqualsTheGolden(PpmConfig config) {
    try (PpmBench bench = new PpmBench(config)) {
      bench.loadChannels(new int[config.cols()], identityChannels(config));
      for (PpuFunction f : PpuFunction.values()) {
        PpuTable table = PpuFitter.fit(f, PpuTables.formatOf(config));
        bench.loadTable(table);
        checkEveryInput(bench, table);
        PpuError e = PpuError.measure(table, f);
        System.out.printf("PPU %s %s: max error %d LSB vs correctly rounded, %.3f LSB vs exact, %d/256 exact%n",
            config.moduleName(), f, e.maxCodeError(), e.maxRealError(), e.exactCodes());
      }
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("configurations")
  void randomTablesThatSaturateTheHornerStepsEqualTheGolden(PpmConfig config) {
    Random rnd = new Random(config.segments() * 101L + config.degree());
    try (PpmBench bench = new PpmBench(config)) {
      bench.loadChannels(new int[config.cols()], identityChannels(config));
      for (int i = 0; i < 6; i++) {
        PpuTable table = PpuTables.random(PpuTables.formatOf(config), rnd);
        bench.loadTable(table);
        checkEveryInput(bench, table);
      }
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("configurations")
  void requantizationFeedsThePpuAsPpmProcessDefines(PpmConfig config) {
    RequantCases cases = new RequantCases(config.cols() * 7L, config);
    int cols = config.cols();
    PpuTable gelu = PpuFitter.fit(PpuFunction.GELU, PpuTables.formatOf(config));
    try (PpmBench bench = new PpmBench(config)) {
      bench.loadTable(gelu);
      for (int batch = 0; batch < 12; batch++) {
        int[] bias = new int[cols];
        RequantParams[] params = new RequantParams[cols];
        for (int j = 0; j < cols; j++) {
          bias[j] = cases.bias();
          params[j] = cases.params();
        }
        bench.loadChannels(bias, params);
        List<int[]> rows = cases.rows(16, cols);
        List<int[]> out = bench.stream(rows, new boolean[] {true, true, false});
        for (int i = 0; i < rows.size(); i++) {
          for (int j = 0; j < cols; j++) {
            int expected = Ppm.process(rows.get(i)[j], bias[j], params[j], gelu);
            assertEquals(expected, out.get(i)[j], "row " + i + " lane " + j + " acc " + rows.get(i)[j]
                + " bias " + bias[j] + " " + params[j]);
          }
        }
      }
    }
  }

  private static RequantParams[] identityChannels(PpmConfig config) {
    RequantParams[] params = new RequantParams[config.cols()];
    java.util.Arrays.fill(params, PpuTables.identity());
    return params;
  }

  /** Streams all 256 INT8 codes (as accumulators through the identity requantization) and compares each output. */
  private static void checkEveryInput(PpmBench bench, PpuTable table) {
    int cols = bench.config().cols();
    List<int[]> rows = new ArrayList<>();
    for (int first = 0; first < 256; first += cols) {
      int[] row = new int[cols];
      for (int j = 0; j < cols; j++) {
        row[j] = (first + j) % 256 - 128;
      }
      rows.add(row);
    }
    List<int[]> out = bench.stream(rows);
    assertEquals(rows.size(), out.size());
    for (int i = 0; i < rows.size(); i++) {
      for (int j = 0; j < cols; j++) {
        int q = rows.get(i)[j];
        assertEquals(PpuEvaluator.evaluate(table, q), out.get(i)[j], table.name() + " input " + q);
      }
    }
  }
}
