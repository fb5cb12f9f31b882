package org.llmnpu.soc.dllm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.sw.dllm.DenoiserProgram;
import org.llmnpu.sw.lower.NpuTargets;
import org.llmnpu.sw.model.ModelConfig;

class DllmStaircaseTest {
  private static final Pattern POINT = Pattern.compile("cy=\"([0-9.]+)\"[^>]*><title>token rows \\(tile of (\\d+)\\) = (\\d+): (\\d+)</title>");

  @Test
  void plotsTheCycleModelWithAStepAtEachTileBoundary(@TempDir Path dir) throws Exception {
    ModelConfig c = ModelConfig.stories260K();
    Path file = dir.resolve("stair.svg");
    DllmStaircase.write(file, "stories260K", c, 144, "sd8gen3");
    String svg = Files.readString(file);
    MachineParams[] machines = {NpuTargets.defaultNpu(), DllmSoc.of("sd8gen3").machine()};
    Matcher m = POINT.matcher(svg);
    for (MachineParams p : machines) {
      int t = p.mTile();
      long[] program = points(m, t, 3 * t + 1);
      long[] array = points(m, t, 3 * t + 1);
      for (int r = 1; r <= 3 * t + 1; r++) {
        assertEquals(DenoiserProgram.gemmCycles(p, c, r, 144, r), program[r - 1], "program cycles at " + r + " rows");
        assertEquals(DenoiserProgram.engineCycles(p, c, r, 144, r), array[r - 1], "array cycles at " + r + " rows");
      }
      for (int b = t; b <= 3 * t; b += t) {
        long ramp = program[b - 1] - program[b - 2];
        long step = program[b] - program[b - 1];
        assertTrue(step > 3 * ramp, "program steps at row " + (b + 1) + ": " + step + " vs ramp " + ramp);
        long arrayRamp = array[b - 1] - array[b - 2];
        assertTrue(array[b] - array[b - 1] > 10 * arrayRamp, "array steps at row " + (b + 1) + " on mTile " + t);
      }
      assertTrue(svg.contains(">" + t + "</text>") && svg.contains(">" + 3 * t + "</text>"), "tile ticks of " + t);
    }
    assertTrue(!m.find(), "no points beyond the two machines' series");
    assertEquals(svg, DllmStaircase.svg("stories260K", c, 144, "sd8gen3"), "same inputs, same bytes");
    DllmStaircase.write(file, "stories260K", c, 144, "sd8gen3");
    assertEquals(svg, Files.readString(file), "a second write is byte-identical");
  }

  private static long[] points(Matcher m, int tile, int n) {
    List<Long> v = new ArrayList<>();
    List<Double> y = new ArrayList<>();
    for (int r = 1; r <= n; r++) {
      assertTrue(m.find(), "point " + r + " of " + n);
      assertEquals(tile, Integer.parseInt(m.group(2)));
      assertEquals(r, Integer.parseInt(m.group(3)));
      v.add(Long.parseLong(m.group(4)));
      y.add(Double.parseDouble(m.group(1)));
    }
    for (int i = 1; i < n; i++) {
      assertTrue(y.get(i) <= y.get(i - 1), "a point drawn no lower than the previous row's: row " + (i + 1));
    }
    for (int b = tile; b < n; b += tile) {
      assertTrue(y.get(b - 1) - y.get(b) > y.get(b - 2) - y.get(b - 1), "drawn step at row " + (b + 1));
    }
    return v.stream().mapToLong(Long::longValue).toArray();
  }
}
