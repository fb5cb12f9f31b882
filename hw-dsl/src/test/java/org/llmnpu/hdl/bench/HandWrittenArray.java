package org.llmnpu.hdl.bench;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.llmnpu.hdl.emit.VerilogDesign;

/**
 * The weight-stationary INT8 PE array of {@code MacArrayExample} written by hand in Verilog,
 * with the same top-level ports and cycle behaviour: {@code psumOut <= psumIn + actIn * weight},
 * activations move right, partial sums and (while {@code load}) weights move down. The PE body
 * comes in the forms whose Verilator speed the benchmark compares.
 */
final class HandWrittenArray {
  /** How the PE writes its multiply-accumulate. */
  enum PeForm {
    /** {@code signed} ports, {@code psumIn + actIn * weight}: what a designer writes first. */
    SIGNED("""
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
        """),
    /** Unsigned vectors, the sign extension written out, a 16-bit product wire. */
    EXPLICIT_16("""
          input  wire [7:0] actIn,
          input  wire [7:0] weightIn,
          input  wire load,
          input  wire [31:0] psumIn,
          output reg  [7:0] actOut,
          output reg  [7:0] weightOut,
          output reg  [31:0] psumOut,
          input  wire clk
        );
          wire [15:0] product = {{8{actIn[7]}}, actIn} * {{8{weightOut[7]}}, weightOut};
          always @(posedge clk) begin
            if (load) weightOut <= weightIn;
            actOut <= actIn;
            psumOut <= psumIn + {{16{product[15]}}, product};
          end
        """),
    /** Unsigned vectors, operands sign-extended straight to the 32-bit accumulator. */
    EXPLICIT_32("""
          input  wire [7:0] actIn,
          input  wire [7:0] weightIn,
          input  wire load,
          input  wire [31:0] psumIn,
          output reg  [7:0] actOut,
          output reg  [7:0] weightOut,
          output reg  [31:0] psumOut,
          input  wire clk
        );
          always @(posedge clk) begin
            if (load) weightOut <= weightIn;
            actOut <= actIn;
            psumOut <= psumIn + {{24{actIn[7]}}, actIn} * {{24{weightOut[7]}}, weightOut};
          end
        """);

    final String body;

    PeForm(String body) {
      this.body = body;
    }
  }

  private HandWrittenArray() {
  }

  /** The array with {@code n x n} PEs of the given form; top named {@code top}. */
  static VerilogDesign of(int n, PeForm form, String top) {
    String pe = "module HandPe (\n" + form.body + "endmodule\n";
    StringBuilder t = new StringBuilder("module ").append(top).append(" (\n  input  wire clk,\n  input  wire load");
    String s = form == PeForm.SIGNED ? "signed " : "";
    for (int i = 0; i < n; i++) {
      t.append(",\n  input  wire ").append(s).append("[7:0] acts_").append(i);
    }
    for (int i = 0; i < n; i++) {
      t.append(",\n  input  wire ").append(s).append("[7:0] weights_").append(i);
    }
    for (int i = 0; i < n; i++) {
      t.append(",\n  output wire ").append(s).append("[31:0] psums_").append(i);
    }
    t.append("\n);\n");
    t.append("  localparam N = ").append(n).append(";\n");
    t.append("  wire [7:0] act [0:N-1][0:N];     // act[r][c] enters PE (r, c)\n");
    t.append("  wire [7:0] weight [0:N][0:N-1];  // weight[r][c] enters PE (r, c)\n");
    t.append("  wire [31:0] psum [0:N][0:N-1];   // psum[r][c] enters PE (r, c)\n");
    for (int i = 0; i < n; i++) {
      t.append("  assign act[").append(i).append("][0] = acts_").append(i).append(";\n");
      t.append("  assign weight[0][").append(i).append("] = weights_").append(i).append(";\n");
      t.append("  assign psum[0][").append(i).append("] = 32'd0;\n");
      t.append("  assign psums_").append(i).append(" = psum[N][").append(i).append("];\n");
    }
    t.append("""
          genvar r, c;
          generate
            for (r = 0; r < N; r = r + 1) begin : row
              for (c = 0; c < N; c = c + 1) begin : col
                HandPe pe (
                  .clk(clk), .load(load),
                  .actIn(act[r][c]), .weightIn(weight[r][c]), .psumIn(psum[r][c]),
                  .actOut(act[r][c + 1]), .weightOut(weight[r + 1][c]), .psumOut(psum[r + 1][c])
                );
              end
            end
          endgenerate
        endmodule
        """);
    Map<String, String> files = new LinkedHashMap<>();
    files.put("HandPe.v", pe);
    files.put(top + ".v", t.toString());
    return new VerilogDesign(top, files, List.of());
  }
}
