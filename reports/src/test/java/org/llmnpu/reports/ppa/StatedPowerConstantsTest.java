package org.llmnpu.reports.ppa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.llmnpu.reports.RequiredTools;
import org.llmnpu.reports.TestDesigns;

/**
 * A stated-activity power run holds the netlist's constants still ({@code OpenSta.statedPower}, {@link ConstantTies}):
 * an AND gate with a literal 0 on one input passes nothing on, so the inverter chain behind it draws no switching
 * power, while the same chain behind an AND whose second input is a data port (at the stated 0.1) does. Left as a
 * literal, OpenSTA 2.0.17 gave the constant's pin the {@code -input} default and the chain switched as in the second
 * netlist. Timing is of the netlist as synthesized (the tie ports are not timed).
 */
class StatedPowerConstantsTest {
  private static final String CHAIN = """
        INVX1 i0 (.A(y), .Y(n0));
        INVX1 i1 (.A(n0), .Y(n1));
        INVX1 i2 (.A(n1), .Y(n2));
        INVX1 i3 (.A(n2), .Y(n3));
        INVX1 i4 (.A(n3), .Y(n4));
        INVX1 i5 (.A(n4), .Y(n5));
        DFFPOSX1 r (.CLK(clk), .D(n5), .Q(q));
      endmodule
      """;

  @BeforeEach
  void tools() {
    RequiredTools.require("sta");
  }

  private static OpenSta.StaResult run(String netlist) {
    SynthesisResult synth = new SynthesisResult(1, 8, new TreeMap<>(Map.of("DFFPOSX1", 1)), new TreeMap<>(), List.of(),
        List.of(), netlist, "");
    PpaOptions o = TestDesigns.options();
    return new OpenSta(o.liberty(), o.cache()).run("T", synth, o);
  }

  @Test
  void aConstantInputSwitchesNothingBehindIt() {
    String header = "module T(clk, a, b, q);\n  input clk;\n  input a;\n  input b;\n  output q;\n"
        + "  wire y, n0, n1, n2, n3, n4, n5;\n";
    OpenSta.StaResult constant = run(header + "  AND2X2 g (.A(a), .B(1'h0), .Y(y));\n" + CHAIN);
    OpenSta.StaResult port = run(header + "  AND2X2 g (.A(a), .B(b), .Y(y));\n" + CHAIN);
    assertEquals(PowerResult.INPUTS, constant.power().activityModel(), "propagated, not one global activity");
    assertTrue(port.power().switchingMw() > 0, port.power().toString());
    assertTrue(constant.power().switchingMw() < 0.05 * port.power().switchingMw(),
        "the chain behind a constant 0 does not switch: " + constant.power() + " vs " + port.power());
    assertTrue(constant.timing().criticalDelayNs() > 0, constant.timing().toString());
  }
}
