// 16 x 16-bit memory with a clocked read port (the read register goes into the array) and logic behind its data.
module syncram(input clk, input we, input [3:0] waddr, input [15:0] wdata, input [3:0] raddr,
               output [15:0] sum);
  reg [15:0] mem [0:15];
  reg [15:0] rdata;
  always @(posedge clk) begin
    if (we) mem[waddr] <= wdata;
    rdata <= mem[raddr];
  end
  assign sum = rdata + wdata;
endmodule
