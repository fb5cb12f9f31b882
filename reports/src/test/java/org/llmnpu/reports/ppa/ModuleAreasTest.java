package org.llmnpu.reports.ppa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.llmnpu.hdl.emit.VerilogDesign;
import org.llmnpu.reports.RequiredTools;
import org.llmnpu.reports.TestDesigns;

/** A module's share of a real hierarchical Yosys run: shares plus the top's own cells give the top exactly. */
class ModuleAreasTest {
  /** Two {@code dual_fifo}s (each two {@code fifo}s with their memory) and a register of the top's own. */
  private static VerilogDesign quad() {
    VerilogDesign dual = TestDesigns.dualFifo();
    Map<String, String> files = new LinkedHashMap<>(dual.files());
    files.put("quad.v", """
        module quad(input clk, input rst, input push, input [31:0] din, input pop, output reg [31:0] dout,
                    output full, output empty);
          wire [31:0] d;
          wire f0, f1, e0, e1;
          dual_fifo u_a(.clk(clk), .rst(rst), .push(push), .din(din[15:0]), .pop(pop), .dout(d[15:0]),
                        .full(f0), .empty(e0));
          dual_fifo u_b(.clk(clk), .rst(rst), .push(push), .din(din[31:16]), .pop(pop), .dout(d[31:16]),
                        .full(f1), .empty(e1));
          always @(posedge clk) dout <= d ^ din;
          assign full = f0 | f1;
          assign empty = e0 & e1;
        endmodule
        """);
    return new VerilogDesign("quad", files, dual.memories());
  }

  @Test
  void sharesOfTheTopsInstancesPlusItsOwnCellsAreTheTop() {
    RequiredTools.require("yosys", "sta");
    PpaResult top = PpaFlow.run(quad(), TestDesigns.options());
    SynthesisResult t = top.synthesis();
    ModuleAreas areas = ModuleAreas.parse(t.yosysLog());
    SynthesisResult dual = areas.of("dual_fifo", t).orElseThrow();
    SynthesisResult fifo = areas.of("fifo", t).orElseThrow();
    SynthesisResult own = areas.of("quad", t).orElseThrow();
    assertEquals(t.chipAreaUm2(), own.chipAreaUm2(), 1e-6, "the top's share is the whole top");
    assertEquals(t.cellCount(), own.cellCount());
    assertEquals(t.flipFlops(), own.flipFlops());
    assertTrue(2 * dual.chipAreaUm2() < t.chipAreaUm2(), "the top has cells of its own (32 flip-flops)");
    assertEquals(10, fifo.flipFlops(), "a fifo's two 5-bit pointers");
    assertTrue(dual.chipAreaUm2() >= 2 * fifo.chipAreaUm2(), dual.chipAreaUm2() + " vs " + fifo.chipAreaUm2());
    assertEquals(20, dual.flipFlops(), "two pairs of 5-bit pointers");
    assertEquals(t.flipFlops(), 2 * dual.flipFlops() + 32, t.cellsByType().toString());
    assertEquals(List.of(2), dual.macros().stream().map(SramMacro::instances).toList(), "two fifos' memories");
    assertEquals(4, own.macros().get(0).instances());
    double byType = dual.areaByTypeUm2().values().stream().mapToDouble(Double::doubleValue).sum();
    assertEquals(dual.chipAreaUm2(), byType, 1e-3 * dual.chipAreaUm2(), "per-type areas add up to the share");
    assertFalse(areas.has("dual_fifo_flattened"));
    assertTrue(areas.of("nothing", t).isEmpty());
    assertFalse(PpaResult.share("dual_fifo", dual).timed());
  }
}
