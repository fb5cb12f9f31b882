package org.llmnpu.sw.lower;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.llmnpu.isa.Counter;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.sw.io.ModelCatalog;
import org.llmnpu.sw.model.ModelWeights;
import org.llmnpu.sw.model.SyntheticWeights;

/**
 * The lowered programs read only what they wrote: every program of a prefill and a decode step, run on the golden
 * simulator with the NPU's memories without reset (scratchpad, DSP buffer, registers and program memory, PPM
 * parameter banks) filled with random values ({@link NpuEngine#goldenOnStaleState}, two different fills), gives the
 * zero-started golden's memory image, halt and every counter. A difference is a read of state the program never wrote:
 * on a Verilated model that ran other programs first, such a program differs from the golden (cosim's
 * {@code Edge64CosimTest}, where the stories260K prefill's K cache row of layer 0 differed after the class's random
 * programs). stories260K and the GQA hidden-172 shape on DSPs of 16, 32 and 64 lanes (the RoPE halves padded to whole
 * rows from 32 lanes on), unfused and at {@code --fusion full}, and on edge-64's structure (64-byte line, 64 lanes).
 */
class UnwrittenStateTest {
  private static final int CONTEXT = 12;
  private static final long[] FILLS = {0x5EED_0001L, 0x5EED_0002L};

  /** Runs the golden on zeros and on each stale fill; records the first run whose results differ. */
  private static final class ComparingEngine implements NpuEngine {
    final List<String> differences = new ArrayList<>();
    private final LoweredModel model;

    ComparingEngine(LoweredModel model) {
      this.model = model;
    }

    @Override
    public Run run(MachineParams machine, byte[] image, long programAddress, String label) {
      Run clean = GOLDEN.run(machine, image, programAddress, label);
      for (long fill : FILLS) {
        Run stale = NpuEngine.goldenOnStaleState(fill).run(machine, image, programAddress, label);
        String d = difference(clean, stale);
        if (d != null) {
          differences.add(label + ", fill " + Long.toHexString(fill) + ": " + d);
        }
      }
      return clean;
    }

    private String difference(Run a, Run b) {
      if (a.error() != b.error() || a.errorCommand() != b.errorCommand()) {
        return "halt " + a.error() + " at " + a.errorCommand() + " vs " + b.error() + " at " + b.errorCommand();
      }
      // the differing bytes by region, layers and slots together (e.g. "k cache layer L": the K rows' padding)
      byte[] x = a.memory();
      byte[] y = b.memory();
      java.util.Map<String, long[]> regions = new java.util.TreeMap<>();
      for (int i = 0; i < x.length; i++) {
        if (x[i] != y[i]) {
          String kind = model.describe(i).replaceAll(" slot \\d+", "").replaceAll("(layer|row) \\d+", "$1 L");
          long at = i;
          regions.computeIfAbsent(kind, k -> new long[] {0, at})[0]++;
        }
      }
      if (!regions.isEmpty()) {
        StringBuilder s = new StringBuilder("memory differs:");
        regions.forEach((kind, n) -> s.append(' ').append(kind).append(": ").append(n[0]).append(" bytes from 0x")
            .append(Long.toHexString(n[1])).append(';'));
        return s.toString();
      }
      for (Counter c : Counter.values()) {
        if (a.counters()[c.ordinal()] != b.counters()[c.ordinal()]) {
          return c + " " + a.counters()[c.ordinal()] + " vs " + b.counters()[c.ordinal()];
        }
      }
      return null;
    }
  }

  @ParameterizedTest
  @CsvSource({"stories260K, 16, none", "stories260K, 32, none", "stories260K, 64, none", "stories260K, 16, full",
      "stories260K, 64, full", "gqa, 16, none", "gqa, 32, none", "gqa, 64, none", "gqa, 64, full",
      "stories260K, edge64, none", "gqa, edge64, none", "stories260K, edge64, full", "gqa, edge64, full"})
  void everyProgramReadsOnlyWhatItWrote(String shape, String dsp, String fusion) throws Exception {
    ModelWeights w = shape.equals("gqa") ? SyntheticWeights.generate(NarrowRopeHalvesTest.GQA, 7)
        : ModelCatalog.load("stories260K", 1);
    MachineParams m = dsp.equals("edge64") ? NarrowRopeHalvesTest.edge64Structure()
        : NarrowRopeHalvesTest.withLanes(Integer.parseInt(dsp));
    LoweredModel model = new LoweredModel(w, m, CONTEXT, 8);
    ComparingEngine engine = new ComparingEngine(model);
    NpuDecoder npu = new NpuDecoder(model, DecoderLowering.largestBlock(model, 4, Fusion.parse(fusion)), engine,
        Fusion.parse(fusion));
    npu.prefill(new int[] {1, 403, 407, 261}, false);
    npu.decode(378);
    assertEquals(List.of(), engine.differences, "runs whose results depend on state the program did not write");
  }
}
