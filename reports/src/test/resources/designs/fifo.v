// 16 x 8-bit synchronous FIFO on a memory array (the array stands for an SRAM macro).
module fifo(input clk, input rst, input push, input [7:0] din, input pop,
            output [7:0] dout, output full, output empty);
  reg [7:0] storage [0:15];
  reg [4:0] wr_ptr, rd_ptr;
  assign full = (wr_ptr - rd_ptr) == 5'd16;
  assign empty = wr_ptr == rd_ptr;
  assign dout = storage[rd_ptr[3:0]];
  always @(posedge clk) begin
    if (rst) begin
      wr_ptr <= 0;
      rd_ptr <= 0;
    end else begin
      if (push && !full) begin
        storage[wr_ptr[3:0]] <= din;
        wr_ptr <= wr_ptr + 1;
      end
      if (pop && !empty) rd_ptr <= rd_ptr + 1;
    end
  end
endmodule
