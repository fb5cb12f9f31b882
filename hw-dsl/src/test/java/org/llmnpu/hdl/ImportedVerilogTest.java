package org.llmnpu.hdl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.llmnpu.hdl.emit.Verilog;
import org.llmnpu.hdl.emit.VerilogDesign;
import org.llmnpu.hdl.tools.DesignChecks;

/** Hand-written Verilog imported with its header read from the file, checked by the real tools. */
class ImportedVerilogTest {
  @TempDir
  Path dir;

  @Test
  void headerGivesPortsWithWidthsFromParameterDefaultsAndOverrides() {
    String text = read(ImportedDesigns.SAT_ACCUM);
    VerilogHeader h = VerilogHeader.parse("sat_accum.v", text, "sat_accum");
    assertEquals(Map.of("WIDTH", "8", "ACC", "WIDTH + 4"), h.parameterDefaults());
    assertEquals(List.of(new VerilogHeader.Port("clk", false, false, 1), new VerilogHeader.Port("rst_n", false,
            false, 1), new VerilogHeader.Port("clear", false, false, 1), new VerilogHeader.Port("en", false, false, 1),
        new VerilogHeader.Port("din", false, true, 8), new VerilogHeader.Port("acc", true, true, 12),
        new VerilogHeader.Port("overflow", true, false, 1)), h.resolve(Map.of()));
    List<VerilogHeader.Port> wide = h.resolve(Map.of("WIDTH", 16));
    assertEquals(16, wide.get(4).width());
    assertEquals(20, wide.get(5).width());
    assertEquals(7, h.resolve(Map.of("ACC", 7)).get(5).width());
  }

  @Test
  void expressionsFollowVerilogPrecedenceAndClog2() {
    String text = "module m #(parameter N = 2 + 3 * 4, parameter D = $clog2(N) << 1, parameter H = 8'h1f)\n"
        + "(input [N-1:0] a, b, output wire [D - 1 : 0] c, output reg [H:0] d);\nendmodule\n";
    List<VerilogHeader.Port> p = VerilogHeader.parse("m.v", text, "m").resolve(Map.of());
    assertEquals(List.of(14, 14, 8, 32), p.stream().map(VerilogHeader.Port::width).toList());
  }

  @Test
  void unsupportedHeadersAreRefusedNamingFileLineAndConstruct() {
    assertRefused("module m(a, b);\n input a;\n output b;\nendmodule", "not ANSI");
    assertRefused("module m(\n  inout wire [3:0] pad\n);\nendmodule", "m.v:2: module m: inout ports are not supported");
    assertRefused("module m(input wire [7:0] mem [0:3]);\nendmodule", "unpacked dimension");
    assertRefused("module m #(parameter real R = 1.0) ();\nendmodule", "real parameters are not supported");
    assertRefused("module m(\n`ifdef X\n input a\n`endif\n);\nendmodule", "m.v:2: directive `ifdef is not supported");
    assertRefused("module other(input a);\nendmodule", "m.v has no module `m`");
    var e = assertThrows(IllegalArgumentException.class, () -> VerilogHeader.parse("m.v",
        "module m(input [3:1] a);\nendmodule", "m").resolve(Map.of()));
    assertTrue(e.getMessage().contains("only [w-1:0] ranges"), e.getMessage());
    var p = assertThrows(IllegalArgumentException.class, () -> ImportedDesigns.satAccumWith("DEPTH", 4));
    assertTrue(p.getMessage().contains("has no parameter `DEPTH`; its parameters are WIDTH, ACC"), p.getMessage());
  }

  @Test
  void importedModuleIsInstancedWithParametersAndItsFileIsInTheDesign() {
    VerilogDesign d = Verilog.emit(new ImportedDesigns.DifferenceAccumulator());
    assertEquals(List.of("sat_accum.v", "DifferenceAccumulator.v"), List.copyOf(d.files().keySet()));
    assertEquals(read(ImportedDesigns.SAT_ACCUM), d.files().get("sat_accum.v"));
    assertTrue(d.filelist().contains("sat_accum.v"), d.filelist());
    String parent = d.files().get("DifferenceAccumulator.v");
    assertTrue(parent.contains("sat_accum #(\n    .WIDTH(10)\n  ) accumulator ("), parent);
    assertTrue(parent.contains(".rst_n((~reset))"), parent);
  }

  @Test
  void designWithImportIsLintCleanAndSynthesizes() {
    ToolsForTests.require("verilator");
    ToolsForTests.require("yosys");
    VerilogDesign d = Verilog.emit(new ImportedDesigns.DifferenceAccumulator());
    d.writeTo(dir);
    assertEquals(List.of(), DesignChecks.lint(d, dir), "verilator -Wall findings");
    assertTrue(DesignChecks.synthesize(d, dir) > 0, "yosys produced no cells");
  }

  @Test
  void tooWideValueAtTheImportedInputNamesTheJavaLine() {
    var e = assertThrows(ElaborationException.class, ImportedDesigns.TooWideForImport::new);
    assertTrue(e.getMessage().contains("ImportedDesigns.java:" + lineOf("// line named by the test")),
        e.getMessage());
    assertTrue(e.getMessage().contains("11") && e.getMessage().contains("10"), e.getMessage());
  }

  @Test
  void sameDesignGivesByteIdenticalFiles() {
    VerilogDesign first = Verilog.emit(new ImportedDesigns.DifferenceAccumulator());
    VerilogDesign second = Verilog.emit(new ImportedDesigns.DifferenceAccumulator());
    assertEquals(first.files(), second.files());
    assertEquals(first.filelist(), second.filelist());
  }

  /** Two imports whose texts differ but are written under one file name. */
  static final class TwoTextsOneName extends HwModule {
    final UInt a = in(Hw.uint(4));

    TwoTextsOneName() {
      String first = "module inv(input wire [3:0] a, output wire [3:0] y);\n  assign y = ~a;\nendmodule\n";
      ImportedVerilog one = instance("one", ImportedVerilog.source("inv.v", first).module("inv").build());
      ImportedVerilog two = instance("two", ImportedVerilog.source("inv.v", first.replace("~a", "a")).module("inv")
          .build());
      one.uintPort("a").set(a);
      two.uintPort("a").set(a);
    }
  }

  @Test
  void twoDifferentTextsUnderOneFileNameAreAnError() {
    var e = assertThrows(ElaborationException.class, () -> Verilog.emit(new TwoTextsOneName()));
    assertTrue(e.getMessage().contains("two different Verilog sources are named inv.v"), e.getMessage());
  }

  private static void assertRefused(String text, String expected) {
    var e = assertThrows(IllegalArgumentException.class, () -> VerilogHeader.parse("m.v", text, "m").resolve(Map.of()));
    assertTrue(e.getMessage().contains(expected), e.getMessage());
  }

  private static String read(String resource) {
    try (var in = ImportedDesigns.class.getResourceAsStream(resource)) {
      return new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static int lineOf(String marker) {
    try {
      List<String> lines = Files.readAllLines(Path.of("src/test/java/org/llmnpu/hdl/ImportedDesigns.java"));
      for (int i = 0; i < lines.size(); i++) {
        if (lines.get(i).contains(marker)) {
          return i + 1;
        }
      }
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    throw new AssertionError(marker);
  }
}
