// Signed 8 x 8-bit multiply-accumulate into a 32-bit accumulator, inputs registered.
module mac8(input clk, input rst, input en, input signed [7:0] a, input signed [7:0] b,
            output reg signed [31:0] acc);
  reg signed [7:0] a_q, b_q;
  reg en_q;
  always @(posedge clk) begin
    a_q <= a;
    b_q <= b;
    en_q <= en;
    if (rst) acc <= 0;
    else if (en_q) acc <= acc + a_q * b_q;
  end
endmodule
