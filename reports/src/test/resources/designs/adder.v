// Purely combinational 16-bit adder: no clock port, so timing uses a virtual clock.
module adder(input [15:0] a, input [15:0] b, output [16:0] sum);
  assign sum = a + b;
endmodule
