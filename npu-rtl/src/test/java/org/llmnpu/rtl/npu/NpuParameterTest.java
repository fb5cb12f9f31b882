package org.llmnpu.rtl.npu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.llmnpu.hdl.gen.ParamSpec;

/** The parameter table: complete, the one source of defaults, names and allowed values, and what files round-trip. */
class NpuParameterTest {
  @TempDir
  Path dir;

  @Test
  void everyParameterHasMetadataAFlatAccessorAndABuilderSetter() throws Exception {
    Set<String> keys = new HashSet<>();
    for (NpuParameter p : NpuParameter.values()) {
      assertTrue(keys.add(p.key()), "one declaration per name: " + p.key());
      assertFalse(p.description().isBlank(), p.key());
      assertEquals(p.defaultValue(), p.canonical(p.defaultValue()), "the default is allowed: " + p.key());
      Method flat = NpuConfig.class.getMethod(p.key());
      assertEquals(p.valueIn(NpuConfig.defaults()), String.valueOf(flat.invoke(NpuConfig.defaults())), p.key());
      assertTrue(java.util.Arrays.stream(NpuConfigBuilder.class.getMethods()).anyMatch(m -> m.getName().equals(p.key())
          && m.getParameterCount() == 1), "builder setter " + p.key());
    }
    int nestedFields = 0;
    for (var component : NpuConfig.class.getRecordComponents()) {
      Class<?> type = component.getType();
      nestedFields += type.isRecord() ? type.getRecordComponents().length : 1;
    }
    assertEquals(NpuParameter.values().length, nestedFields, "each nested field is one parameter");
  }

  @Test
  void theDefaultsAreTheTablesDefaults() {
    NpuConfig d = NpuConfig.defaults();
    for (NpuParameter p : NpuParameter.values()) {
      assertEquals(p.defaultValue(), p.valueIn(d), p.key());
    }
    assertEquals(16, d.rows());
    assertEquals(1L << 24, d.dspMaxRunCycles());
    assertEquals("on", d.clockGating());
    assertEquals(org.llmnpu.isa.MachineParams.DspParams.DEFAULT, d.machine().dsp(),
        "the ISA's stand-alone default DSP is this NPU's");
  }

  @Test
  void everyParameterRoundTripsThroughFlatAndNestedYaml() throws Exception {
    NpuConfig c = NpuConfig.builder().rows(8).spadKiB(64).spadBanks(2).extMemMiB(64).mTile(32).accWidth(24)
        .icAccumDepth(3).maxM(32).maxK(1024).maxN(256).memory(9, 4).watchdogCycles(999).dspLanes(8).dspRows(256)
        .dspProgramDepth(128).dspMaxRunCycles(1L << 32).dspStages(2).dspPermute(true)
        .engine("systolic").weightRowsPerCycle(1).ppu(false).mxLoad(true).sparsity("2:4").commandQueueDepth(2)
        .clockGating("checked").bus("axi").xKeep(true).ppmWide(true).build();
    for (NpuParameter p : NpuParameter.values()) {
      // ppmGate needs ppu, which this configuration turns off: its round trip is below
      if (p != NpuParameter.ENGINE && p != NpuParameter.WEIGHT_ROWS_PER_CYCLE && p != NpuParameter.PPM_GATE) {
        assertNotEquals(p.defaultValue(), p.valueIn(c), "the test changes every other parameter: " + p.key());
      }
    }
    for (boolean nested : new boolean[] {false, true}) {
      Path yaml = dir.resolve(nested ? "nested.yaml" : "flat.yaml");
      Files.writeString(yaml, NpuConfigFiles.yaml(c, nested));
      assertEquals(c, NpuConfig.load(yaml), Files.readString(yaml));
    }
    assertEquals(NpuConfigFiles.yaml(c, false), NpuConfigFiles.yaml(c, false), "same bytes");
    Path written = dir.resolve("written.yaml");
    NpuConfigFiles.writeYaml(c, written);
    assertEquals(c, NpuConfig.load(written));
    Path json = dir.resolve("c.json");
    Files.writeString(json, new com.fasterxml.jackson.databind.ObjectMapper().writeValueAsString(
        NpuConfigFiles.toMap(c, true)));
    assertEquals(c, NpuConfig.load(json));
    String permute = assertThrows(IllegalArgumentException.class,
        () -> NpuConfig.builder().set(NpuParameter.DSP_PERMUTE, "sometimes").build()).getMessage();
    assertTrue(permute.contains("dspPermute") && permute.contains("true or false"), permute);
    assertTrue(c.dsp().permute() && c.machine().dsp().permute(), "the DSP and the golden's machine carry it");
    String wide = assertThrows(IllegalArgumentException.class,
        () -> NpuConfig.builder().set(NpuParameter.PPM_WIDE, "quarter").build()).getMessage();
    assertTrue(wide.contains("ppmWide") && wide.contains("true or false"), wide);
    assertTrue(c.machine().ppmWide() && c.ppm().cols() == c.rows(), "the golden's machine and the PPM carry ppmWide");
    NpuConfig gated = NpuConfig.builder().ppmGate(true).build();
    assertNotEquals(NpuParameter.PPM_GATE.defaultValue(), NpuParameter.PPM_GATE.valueIn(gated));
    for (boolean nested : new boolean[] {false, true}) {
      Path yaml = dir.resolve(nested ? "gated-nested.yaml" : "gated-flat.yaml");
      Files.writeString(yaml, NpuConfigFiles.yaml(gated, nested));
      assertEquals(gated, NpuConfig.load(yaml), Files.readString(yaml));
    }
  }

  @Test
  void nestedAndFlatKeysMixAndUnknownKeysNameTheAllowedOnes() throws Exception {
    Path yaml = dir.resolve("mixed.yaml");
    Files.writeString(yaml, "engine:\n  kind: pim-k4\n  rows: 8\ndsp: {lanes: 4, stages: 1}\nmemLatency: 7\n"
        + "clockGating: off\n");
    NpuConfig c = NpuConfig.load(yaml);
    assertEquals("pim-k4", c.engine());
    assertEquals(8, c.rows());
    assertEquals(4, c.dspLanes());
    assertEquals(1, c.dspStages());
    assertEquals(7, c.memLatency());
    assertEquals("off", c.clockGating(), "YAML 1.1's unquoted off");
    Files.writeString(yaml, "arrayRows: 8\n");
    String flat = assertThrows(IllegalArgumentException.class, () -> NpuConfig.load(yaml)).getMessage();
    assertTrue(flat.contains("unknown NPU parameter 'arrayRows'; allowed: rows, spadKiB"), flat);
    Files.writeString(yaml, "dsp:\n  laness: 8\n");
    String nested = assertThrows(IllegalArgumentException.class, () -> NpuConfig.load(yaml)).getMessage();
    assertTrue(nested.contains("unknown key 'laness' in dsp; allowed: lanes, rows, programDepth, maxRunCycles, stages"),
        nested);
    Files.writeString(yaml, "dsp:\n  lanes: 12\n");
    String value = assertThrows(IllegalArgumentException.class, () -> NpuConfig.load(yaml)).getMessage();
    assertTrue(value.contains("dspLanes must be a power of two in 1..64, got 12"), value);
    Files.writeString(yaml, "rows: [8]\n");
    String list = assertThrows(IllegalArgumentException.class, () -> NpuConfig.load(yaml)).getMessage();
    assertTrue(list.contains("rows must be a single value"), list);
    Files.writeString(yaml, "rows: eight\n");
    String text = assertThrows(IllegalArgumentException.class, () -> NpuConfig.load(yaml)).getMessage();
    assertTrue(text.contains("rows must be a power of two in 4..64, got 'eight'"), text);
  }

  @Test
  void theNpuBlockSpecsAreTheRtlParametersOfTheTable() {
    var specs = new NpuGenerator().params();
    assertEquals(NpuParameter.valuesOf(NpuConfig.defaults(), true).keySet(),
        new java.util.LinkedHashSet<>(specs.stream().map(ParamSpec::name).toList()));
    ParamSpec rows = specs.stream().filter(s -> s.name().equals("rows")).findFirst().orElseThrow();
    assertEquals("a power of two in 4..64", rows.allowed());
    assertEquals("16", rows.defaultValue());
    assertFalse(specs.stream().anyMatch(s -> s.name().equals("memLatency")), "simulation-only: the RTL does not change");
    assertEquals(NpuConfig.defaults().withDspStages(2).withMxLoad(true),
        NpuGenerator.config(org.llmnpu.hdl.gen.Params.resolve(new NpuGenerator(),
            java.util.Map.of("dspStages", "2", "mxLoad", "true"))));
  }

  @Test
  void thePositionalConstructorsKeptForCompatibilityMeanWhatTheyMeant() {
    assertEquals(NpuConfig.defaults(), new NpuConfig(16, 256, 4, 16, 16, 32, 0, 64, 512, 128, 32, 16, 4096));
    assertEquals(NpuConfig.small(), new NpuConfig(4, 4, 2, 1, 8, 32, 0, 64, 128, 64, 3, 4, 256, 4, 128, 256,
        1L << 16));
    assertEquals(NpuConfig.tiny(), new NpuConfig(4, 2, 2, 1, 8, 32, 0, 64, 128, 64, 3, 4, 256, 1, 16, 16, 1L << 16,
        "systolic", 1, false, false, "dense"));
    assertEquals(NpuConfig.small().withEngine("pim-k4").withDspStages(2).withCommandQueueDepth(2),
        new NpuConfig(4, 4, 2, 1, 8, 32, 0, 64, 128, 64, 3, 4, 256, 4, 128, 256, 1L << 16, "pim-k4", 1, true, false,
            "dense", 2, 2));
  }

  @Test
  void crossParameterChecksNameBothParameters() {
    String weights = assertThrows(IllegalArgumentException.class,
        () -> NpuConfig.builder().rows(4).weightRowsPerCycle(8).build()).getMessage();
    assertTrue(weights.contains("weightRowsPerCycle must be one of [1, 2, 4]") && weights.contains("rows = 4"), weights);
    String sparse = assertThrows(IllegalArgumentException.class,
        () -> NpuConfig.builder().sparsity("s4_8").engine("pim").build()).getMessage();
    assertTrue(sparse.contains("sparsity 4:8 needs engine systolic"), sparse);
    assertEquals("dense", NpuConfig.builder().sparsity("none").build().sparsity(), "an alias");
  }

  @Test
  void theReadmeTableIsTheParameterTable() throws Exception {
    String readme = Files.readString(Path.of("README.md"));
    assertTrue(readme.contains(NpuParameter.markdownTable()),
        "npu-rtl/README.md must hold NpuParameter.markdownTable():\n" + NpuParameter.markdownTable());
  }
}
