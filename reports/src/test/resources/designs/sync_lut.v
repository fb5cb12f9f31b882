// 16 x 4-bit table with a clocked read port (the read register merges into the port), its data XORed into a register:
// OpenSTA's activity search does not cross the port's clock-to-output arc.
module sync_lut(input clk, input we, input [3:0] waddr, input [3:0] wdata, input [3:0] raddr, output reg [3:0] out);
  reg [3:0] table_ [0:15];
  reg [3:0] rdata;
  always @(posedge clk) begin
    if (we) table_[waddr] <= wdata;
    rdata <= table_[raddr];
    out <= rdata ^ wdata;
  end
endmodule
