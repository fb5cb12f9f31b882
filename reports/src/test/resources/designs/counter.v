// Free-running counter with enable and synchronous clear; WIDTH is substituted by the test.
module counter(input clk, input clear, input en, output reg [WIDTH-1:0] count);
  always @(posedge clk) begin
    if (clear) count <= 0;
    else if (en) count <= count + 1;
  end
endmodule
