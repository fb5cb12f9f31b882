// 16 x 4-bit table with an asynchronous read port whose address is as wide as its data (4 bits): Liberty's
// related_pin then gives OpenSTA an arc from each address bit to a data bit, which its activity propagation follows.
module lut(input clk, input we, input [3:0] waddr, input [3:0] wdata, input [3:0] raddr, output reg [3:0] out);
  reg [3:0] table_ [0:15];
  wire [3:0] rdata = table_[raddr];
  always @(posedge clk) begin
    if (we) table_[waddr] <= wdata;
    out <= rdata ^ wdata;
  end
endmodule
