package org.llmnpu.spinal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The SpinalHDL export is reproducible: two elaborations give the same bytes as the one the build shipped. */
class SpinalExportTest {
  @TempDir
  Path dir;

  @Test
  void twoExportsAndTheShippedResourceAreByteIdentical() throws Exception {
    ExportVerilog.export(dir.resolve("first"));
    ExportVerilog.export(dir.resolve("second"));
    byte[] first = Files.readAllBytes(dir.resolve("first").resolve(SpinalIp.NPU_CONTROL_REGS));
    byte[] second = Files.readAllBytes(dir.resolve("second").resolve(SpinalIp.NPU_CONTROL_REGS));
    assertArrayEquals(first, second);
    try (var shipped = SpinalIp.class.getResourceAsStream(SpinalIp.NPU_CONTROL_REGS)) {
      assertArrayEquals(first, shipped.readAllBytes(), "the jar's Verilog is the export of these sources");
    }
    String text = new String(first, java.nio.charset.StandardCharsets.UTF_8);
    assertTrue(text.startsWith("// Generator : SpinalHDL v1.14.2 "), text.substring(0, 80));
    assertFalse(text.contains("Date"), "no date in the header");
    assertFalse(text.contains(dir.toString()), "no path in the output");
  }
}
