package org.llmnpu.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.llmnpu.hdl.gen.ParamException;
import org.llmnpu.rtl.npu.NpuConfig;

/**
 * The NPU options every NPU-building command shares: {@code -p} over {@code --config}, a parameter given twice
 * refused, a bad name or value one line naming the parameter and the allowed values with exit status 2, in
 * {@code generate}, {@code report ppa}, {@code report npu}, {@code cosim program} and {@code cosim decoder}.
 */
class NpuParametersTest {
  @TempDir
  Path dir;

  private Path config(String yaml) throws Exception {
    Path c = dir.resolve("npu.yaml");
    Files.writeString(c, yaml);
    return c;
  }

  @Test
  void pOverridesTheConfigFileAndKeepsTheRest() throws Exception {
    Path file = config("rows: 8\nengine: pim\nppu: false\nmemLatency: 7\n");
    NpuConfig c = NpuParameters.resolve(file, List.of("rows=16", "dspStages=2"), NpuConfig.defaults());
    assertEquals(16, c.rows(), "-p wins over the file");
    assertEquals(2, c.dspStages());
    assertEquals("pim", c.engine(), "the file's where -p is silent");
    assertFalse(c.ppu());
    assertEquals(7, c.memLatency(), "the file's simulation timing");
    assertEquals(NpuConfig.load(file), NpuParameters.resolve(file, List.of(), NpuConfig.defaults()));
    assertEquals(NpuConfig.defaults().withMxLoad(true),
        NpuParameters.resolve(null, List.of("mxLoad=true"), NpuConfig.defaults()), "no file: over the base");
  }

  @Test
  void pTakesEveryNpuParameterAndTheFileMayBeNested() throws Exception {
    Path file = config("engine:\n  kind: pim\n  rows: 8\nmemory: {latency: 7}\n");
    NpuConfig c = NpuParameters.resolve(file, List.of("memBytesPerCycle=4", "rows=16"), NpuConfig.defaults());
    assertEquals(16, c.rows());
    assertEquals("pim", c.engine());
    assertEquals(7, c.memLatency(), "the nested file's");
    assertEquals(4, c.memBytesPerCycle(), "a simulation parameter by -p");
    String bad = assertThrows(ParamException.class,
        () -> NpuParameters.resolve(null, List.of("memLatency=0"), NpuConfig.defaults())).getMessage();
    assertEquals("npu: parameter 'memLatency' = '0' is not allowed; allowed: in 1..1000000", bad);
    String cross = assertThrows(IllegalArgumentException.class,
        () -> NpuParameters.resolve(null, List.of("engine=pim", "sparsity=2:4"), NpuConfig.defaults())).getMessage();
    assertTrue(cross.contains("sparsity 2:4 needs engine systolic"), cross);
  }

  @Test
  void aParameterGivenTwiceIsRefused() {
    ParamException e = assertThrows(ParamException.class,
        () -> NpuParameters.resolve(null, List.of("rows=8", "rows=16"), NpuConfig.defaults()));
    assertEquals("npu: parameter 'rows' is given twice (8 and 16); give it once", e.getMessage());
  }

  @Test
  void badNamesAndValuesNameTheParameterAndTheAllowedValues() {
    String name = assertThrows(IllegalArgumentException.class,
        () -> NpuParameters.resolve(null, List.of("rowz=8"), NpuConfig.defaults())).getMessage();
    assertTrue(name.contains("'rowz'") && name.contains("rows, spadKiB"), name);
    String value = assertThrows(IllegalArgumentException.class,
        () -> NpuParameters.resolve(null, List.of("engine=gpu"), NpuConfig.defaults())).getMessage();
    assertTrue(value.contains("engine") && value.contains("systolic"), value);
    String form = assertThrows(IllegalArgumentException.class,
        () -> NpuParameters.resolve(null, List.of("rows"), NpuConfig.defaults())).getMessage();
    assertTrue(form.contains("'rows' must be written name=value"), form);
  }

  @Test
  void everyNpuCommandRefusesABadParameterWithExitTwoAndOneLine() throws Exception {
    Path file = config("rows: 8\n");
    Path prog = dir.resolve("p.npu");
    Files.writeString(prog, "halt\n");
    String out = dir.resolve("out").toString();
    for (String[] args : new String[][] {
        {"generate", "npu", "--config", file.toString(), "-p", "rowz=4", "-o", out},
        {"report", "ppa", "npu", "--config", file.toString(), "-p", "rowz=4", "-o", out},
        {"report", "npu", "--config", file.toString(), "-p", "rowz=4", "-o", out},
        {"cosim", "program", prog.toString(), "--config", file.toString(), "-p", "rowz=4"},
        {"cosim", "decoder", "--config", file.toString(), "-p", "rowz=4"},
        {"estimate", "--model", "stories260K", "--config", file.toString(), "-p", "rowz=4"}}) {
      String err = CliRun.capture(false, 2, args);
      assertTrue(err.contains("'rowz'") && err.contains("rows, spadKiB"), String.join(" ", args) + ": " + err);
      assertEquals(1, err.strip().lines().count(), String.join(" ", args) + ": " + err);
      err = CliRun.capture(false, 2, replace(args, "rowz=4", "rows=8", "-p", "rows=16"));
      assertTrue(err.contains("'rows' is given twice (8 and 16)"), String.join(" ", args) + ": " + err);
      assertEquals(1, err.strip().lines().count(), err);
    }
    assertFalse(Files.exists(dir.resolve("out")), "nothing written");
    String timing = CliRun.capture(false, 2, "generate", "npu", "-p", "memLatency=5", "-o", out);
    assertTrue(timing.contains("unknown parameter 'memLatency'"), "a simulation parameter does not shape the RTL: "
        + timing);
  }

  /** {@code args} with {@code old} replaced by {@code with...}. */
  private static String[] replace(String[] args, String old, String... with) {
    List<String> out = new java.util.ArrayList<>();
    for (String a : args) {
      if (a.equals(old)) {
        out.addAll(List.of(with));
      } else {
        out.add(a);
      }
    }
    return out.toArray(String[]::new);
  }

  @Test
  void generateNpuTakesTheConfigFileUnderP() throws Exception {
    Path file = config("rows: 8\nspadKiB: 16\ndspStages: 3\n");
    Path out = dir.resolve("npu");
    CliRun.capture(true, 0, "generate", "npu", "--config", file.toString(), "-p", "rows=4", "-o", out.toString());
    JsonNode p = new ObjectMapper().readTree(out.resolve("params.json").toFile()).get("parameters");
    assertEquals(4, p.get("rows").asInt(), "-p over the file");
    assertEquals(16, p.get("spadKiB").asInt(), "the file's");
    assertEquals(3, p.get("dspStages").asInt(), "the file's");
  }

  @Test
  void configIsRefusedForBlocksOtherThanTheNpu() throws Exception {
    Path file = config("rows: 8\n");
    String err = CliRun.capture(false, 2, "generate", "mac-array", "--config", file.toString(), "-o",
        dir.resolve("m").toString());
    assertTrue(err.contains("--config") && err.contains("npu block only"), err);
    assertEquals(1, err.strip().lines().count(), err);
  }

  @Test
  void cosimDecoderTakesPOverItsConfigFile() throws Exception {
    // mxfp8 weights need the NPU's loadmx; the file switches it off, -p back on
    Path file = config("mxLoad: false\n");
    String err = CliRun.capture(false, 2, "cosim", "decoder", "--quant", "mxfp8", "--prompt-len", "2", "--max-new", "1",
        "--config", file.toString());
    assertTrue(err.contains("mxLoad"), err);
    String out = CliRun.capture(true, 0, "cosim", "decoder", "--quant", "mxfp8", "--prompt-len", "2", "--max-new", "1",
        "--config", file.toString(), "-p", "mxLoad=true", "--clock-mhz", "100", "--json");
    assertEquals(1, new ObjectMapper().readTree(out).get("tokens").size(), out);
  }
}
