package org.llmnpu.hdl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The "Your first generator" section of hw-dsl/README.md compiles as written and its
 * file-writing program writes the Verilog it promises. Its simulation block needs
 * verilator-harness and is compiled and run by that module's UserGuideSimulationTest.
 */
class UserGuideTest {
  static final String SECTION = "## Your first generator";
  static final String NEXT_SECTION = "## Types and width rules";

  /** The guide's Java blocks, qualified class name to source. */
  static Map<String, String> guideUnits(Path readme) throws IOException {
    Map<String, String> units = new LinkedHashMap<>();
    for (String block : GuideCompiler.javaBlocks(Files.readString(readme), SECTION, NEXT_SECTION)) {
      units.put(GuideCompiler.qualifiedName(block), block);
    }
    return units;
  }

  @Test
  void guideCodeCompilesAndWritesTheVerilog(@TempDir Path dir) throws Exception {
    Map<String, String> units = guideUnits(Path.of("README.md"));
    assertEquals(List.of("com.example.mac.Mac", "com.example.mac.MacGenerator", "com.example.mac.WriteMac",
        "com.example.mac.MacTest"), List.copyOf(units.keySet()), "the guide's code blocks");
    units.remove("com.example.mac.MacTest");  // needs verilator-harness
    Path classes = Files.createDirectories(dir.resolve("classes"));
    assertEquals("", GuideCompiler.compile(units, classes).errors());

    Path out = dir.resolve("out");
    try (URLClassLoader loader = new URLClassLoader(new URL[] {classes.toUri().toURL()}, getClass().getClassLoader())) {
      loader.loadClass("com.example.mac.WriteMac").getMethod("main", String[].class)
          .invoke(null, (Object) new String[] {out.toString()});
    }
    assertEquals("Mac_a32.v\n", Files.readString(out.resolve("Mac_a32.f")));
    String v = Files.readString(out.resolve("Mac_a32.v"));
    assertTrue(v.contains("output wire signed [31:0] acc"), v);
    assertTrue(v.contains("input  wire reset"), v);
  }

  @Test
  void guideNamesTheServiceFileLine() throws IOException {
    String readme = Files.readString(Path.of("README.md"));
    assertTrue(readme.contains("META-INF/services/org.llmnpu.hdl.gen.BlockGenerator")
        && readme.contains("`com.example.mac.MacGenerator`"), "the guide tells how to register the generator");
  }
}
