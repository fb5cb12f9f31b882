// Two instances of the FIFO module side by side: the memory is one module's, copied twice.
module dual_fifo(input clk, input rst, input push, input [15:0] din, input pop,
                 output [15:0] dout, output full, output empty);
  wire full0, full1, empty0, empty1;
  fifo u_lo(.clk(clk), .rst(rst), .push(push), .din(din[7:0]), .pop(pop), .dout(dout[7:0]),
            .full(full0), .empty(empty0));
  fifo u_hi(.clk(clk), .rst(rst), .push(push), .din(din[15:8]), .pop(pop), .dout(dout[15:8]),
            .full(full1), .empty(empty1));
  assign full = full0 | full1;
  assign empty = empty0 & empty1;
endmodule
