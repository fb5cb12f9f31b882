package org.llmnpu.hdl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.llmnpu.hdl.emit.Verilog;
import org.llmnpu.hdl.emit.VerilogDesign;
import org.llmnpu.hdl.tools.DesignChecks;

class LanguageFeaturesTest {
  @TempDir
  Path dir;

  static Stream<Arguments> designs() {
    return Stream.of(
        Arguments.of("sections, switch, Vec, bundle", (Supplier<HwModule>) FeatureDesigns.Sections::new),
        Arguments.of("async active-low reset with enable", (Supplier<HwModule>) FeatureDesigns.AsyncDomain::new),
        Arguments.of("stream bulk connect", (Supplier<HwModule>) FeatureDesigns.StreamChain::new),
        Arguments.of("black box", (Supplier<HwModule>) FeatureDesigns.UsesBlackBox::new),
        Arguments.of("masked memory", (Supplier<HwModule>) FeatureDesigns.MaskedMemory::new),
        Arguments.of("bundle of ports shared by parent and child", (Supplier<HwModule>) FeatureDesigns.SharedPortsParent::new),
        Arguments.of("parent reads the inputs it drives into a child",
            (Supplier<HwModule>) FeatureDesigns.ReadsChildInputs::new));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("designs")
  void featureDesignIsLintCleanAndSynthesizes(String name, Supplier<HwModule> design) {
    ToolsForTests.require("verilator");
    ToolsForTests.require("yosys");
    VerilogDesign d = Verilog.emit(design.get());
    d.writeTo(dir);
    assertEquals(List.of(), DesignChecks.lint(d, dir), "verilator -Wall findings");
    assertTrue(DesignChecks.synthesize(d, dir) > 0);
  }

  @Test
  void sectionsPrefixNamesAndFieldsNameBundles() {
    String v = Verilog.emit(new FeatureDesigns.Sections()).files().get("Sections.v");
    for (String n : List.of("tickCounter_value", "alu_wide", "alu_out", "req_addr", "req_ack", "table_3")) {
      assertTrue(v.contains(n), n + " missing in\n" + v);
    }
    assertTrue(v.contains("case (opcode)"), v);
  }

  @Test
  void anUnnamedBundlePortNamesItsLeavesByFieldAlone() {
    VerilogDesign d = Verilog.emit(new FeatureDesigns.SharedPortsParent());
    assertEquals(List.of("addr", "data", "ack"), d.ports().stream().map(VerilogDesign.PortInfo::name)
        .filter(n -> !n.equals("clk") && !n.equals("reset")).toList());
    assertTrue(d.files().get("SharedPortsParent.v").contains(".addr(addr)"), d.files().get("SharedPortsParent.v"));
  }

  @Test
  void aChildInputTheParentReadsIsADeclaredWire() {
    String v = Verilog.emit(new FeatureDesigns.ReadsChildInputs()).files().get("ReadsChildInputs.v");
    assertTrue(v.contains("wire fifo_push_valid;"), v);
    assertTrue(v.contains("assign fifo_push_valid = in_valid;"), v);
    assertTrue(v.contains(".push_valid(fifo_push_valid)"), v);
    assertTrue(v.contains("if (fifo_push_valid & fifo_push_ready) begin"), v);
    assertTrue(v.contains(".pop_ready(out_ready)"), "a child input only driven stays in the connection:\n" + v);
  }

  @Test
  void asyncActiveLowResetAndEnableAreEmitted() {
    String v = Verilog.emit(new FeatureDesigns.AsyncDomain()).files().get("AsyncDomain.v");
    assertTrue(v.contains("always @(posedge fast_clk or negedge fast_reset_n)"), v);
    assertTrue(v.contains("if (!fast_reset_n)"), v);
    assertTrue(v.contains("else if (fast_clk_en)"), v);
    assertTrue(v.contains("r <= 8'd90;"), v);
  }

  @Test
  void blackBoxIsInstancedWithParametersAndItsSourceIsIncluded() {
    VerilogDesign d = Verilog.emit(new FeatureDesigns.UsesBlackBox());
    assertEquals(List.of("ext_adder.v", "UsesBlackBox.v"), List.copyOf(d.files().keySet()));
    assertTrue(d.files().get("UsesBlackBox.v").contains("ext_adder #(\n    .WIDTH(8)\n  ) add ("));
  }

  @Test
  void maskedWritesAreWrittenPerLane() {
    String v = Verilog.emit(new FeatureDesigns.MaskedMemory()).files().get("MaskedMemory.v");
    assertTrue(v.contains("if (mask[1]) ram[addr][15:8] <= wdata[15:8];"), v);
    assertTrue(v.contains("ram[2] = 16'd3;"), v);
  }
}
