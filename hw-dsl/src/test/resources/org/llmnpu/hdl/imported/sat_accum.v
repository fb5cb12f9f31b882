// A hand-written block for hw-dsl's import tests (not generated): a saturating signed accumulator.
`timescale 1ns / 1ps
`default_nettype none

/* acc <= clear ? 0 : saturate(acc + din) to ACC bits; overflow is sticky until clear. */
module sat_accum #(
  parameter integer WIDTH = 8,       // input bits
  parameter integer ACC = WIDTH + 4  // accumulator bits
) (
  input  wire                    clk,
  input  wire                    rst_n,
  input  wire                    clear,
  input  wire                    en,
  input  wire signed [WIDTH-1:0] din,
  output reg  signed [ACC-1:0]   acc,
  output reg                     overflow
);
  localparam signed [ACC:0] MAX = (1 <<< (ACC - 1)) - 1;
  localparam signed [ACC:0] MIN = -(1 <<< (ACC - 1));
  wire signed [ACC:0] sum = {acc[ACC-1], acc} + {{(ACC + 1 - WIDTH){din[WIDTH-1]}}, din};

  always @(posedge clk) begin
    if (!rst_n || clear) begin
      acc <= {ACC{1'b0}};
      overflow <= 1'b0;
    end else if (en) begin
      if (sum > MAX) begin
        acc <= MAX[ACC-1:0];
        overflow <= 1'b1;
      end else if (sum < MIN) begin
        acc <= MIN[ACC-1:0];
        overflow <= 1'b1;
      end else begin
        acc <= sum[ACC-1:0];
      end
    end
  end
endmodule

`default_nettype wire
