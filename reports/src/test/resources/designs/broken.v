// Not Verilog: Yosys must reject it.
module broken(input clk, output q);
  assign q = clk +;
endmodule
