package org.llmnpu.hdl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.llmnpu.hdl.SynthesisProbe.Multiplier;
import org.llmnpu.hdl.emit.Verilog;
import org.llmnpu.hdl.emit.VerilogDesign;
import org.llmnpu.hdl.examples.MacArrayExample;
import org.llmnpu.hdl.tools.DesignChecks;

/**
 * Guards the emission that makes a generated MAC as small as hand-written Verilog (and as fast,
 * see bench.VerilogQualityBenchmark): Yosys must see each signed product as a signed multiplier of
 * the operands' own widths, never one widened by sign bits written out as concatenations (which
 * made a 16x16 multiplier out of an INT8 PE: 1.21x the hand-written area).
 */
class SignedProductEmissionTest {
  @TempDir
  Path dir;

  /** The hand-written PE of the peer benchmark: {@code p_out <= p_in + a_in * w}, signed 8-bit operands. */
  private static final String HAND_WRITTEN_PE = """
      module HandPe (
        input  wire signed [7:0] actIn,
        input  wire signed [7:0] weightIn,
        input  wire load,
        input  wire signed [31:0] psumIn,
        output reg  signed [7:0] actOut,
        output reg  signed [7:0] weightOut,
        output reg  signed [31:0] psumOut,
        input  wire clk
      );
        always @(posedge clk) begin
          if (load) weightOut <= weightIn;
          actOut <= actIn;
          psumOut <= psumIn + actIn * weightOut;
        end
      endmodule
      """;

  @Test
  void theInt8PeMultipliesSignedEightByEight() {
    ToolsForTests.require("yosys");
    VerilogDesign pe = Verilog.emit(new MacArrayExample(new MacArrayExample.Config(1, 1)));
    assertEquals(List.of(new Multiplier(8, true, 8, true, 16)), SynthesisProbe.multipliers(pe, "MacPe", dir));
  }

  @Test
  void theInt8PeIsNoLargerThanTheHandWrittenOne() throws Exception {
    ToolsForTests.require("yosys");
    ToolsForTests.requireReady(Files.exists(SynthesisProbe.OSU018), "osu018 cells " + SynthesisProbe.OSU018,
        "run scripts/setup-tools.sh, or apt-get install -y qflow-tech-osu018");
    VerilogDesign generated = Verilog.emit(new org.llmnpu.hdl.examples.MacPe());
    VerilogDesign hand = new VerilogDesign("HandPe", java.util.Map.of("HandPe.v", HAND_WRITTEN_PE), List.of());
    double generatedArea = SynthesisProbe.area(generated, dir.resolve("generated"));
    double handArea = SynthesisProbe.area(hand, dir.resolve("hand"));
    assertTrue(generatedArea <= 1.02 * handArea, String.format(
        "generated PE %.0f um^2 > 1.02 x hand-written PE %.0f um^2", generatedArea, handArea));
  }

  /**
   * Every product keeps its operands' widths: 8x8 (five of them: sign-extended, truncated, used
   * twice...), 8x4, the constant's 3 bits, the low 6 bits of an 8x4 product as 6x4, 12x12, 4x8.
   */
  @Test
  void everySignedProductIsASignedMultiplierOfItsOperandsWidths() {
    ToolsForTests.require("yosys");
    VerilogDesign d = Verilog.emit(new SignedProducts());
    List<String> shapes = SynthesisProbe.multipliers(d, "SignedProducts", dir).stream().map(Multiplier::toString)
        .sorted().toList();
    assertEquals(List.of("signed 12x12->24", "signed 12x4->16", "signed 6x4->6", "signed 8x3->11",
        "signed 8x4->12", "signed 8x4->12", "signed 8x4->12", "signed 8x4->12", "signed 8x8->16", "signed 8x8->16",
        "signed 8x8->16", "signed 8x8->8"), shapes, String.join("\n", d.files().values()));
  }

  @Test
  void signedProductsAreLintClean() {
    ToolsForTests.require("verilator");
    VerilogDesign d = Verilog.emit(new SignedProducts());
    d.writeTo(dir);
    assertEquals(List.of(), DesignChecks.lint(d, dir), "verilator -Wall findings");
  }
}
