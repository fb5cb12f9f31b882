// 8 x 16-bit register file with one asynchronous read port and one write port.
module regfile(input clk, input we, input [2:0] waddr, input [15:0] wdata,
               input [2:0] raddr, output [15:0] rdata, output reg [15:0] last);
  reg [15:0] regs [0:7];
  assign rdata = regs[raddr];
  always @(posedge clk) begin
    if (we) regs[waddr] <= wdata;
    last <= regs[raddr] ^ wdata;
  end
endmodule
