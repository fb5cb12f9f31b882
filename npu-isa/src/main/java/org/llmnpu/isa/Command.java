package org.llmnpu.isa;

/**
 * One NPU command. Binary form: {@link #BYTES} bytes, eight little-endian 32-bit words; word 0
 * bits 7:0 hold the opcode, the other bits of word 0 are reserved (zero). The operand words of
 * each command are listed in {@code npu-isa/README.md} and in {@link CommandCodec}.
 */
public sealed interface Command permits Command.Load, Command.Store, Command.Gemm, Command.Fence, Command.Halt {
  /** Bytes per command in memory. */
  int BYTES = 32;

  Opcode opcode();

  /**
   * DMA external memory → scratchpad: {@code rows} rows of {@code rowBytes} bytes; row r is read at
   * {@code ext + r·extStride} and written at {@code spad + r·spadStride}. Addresses and strides
   * are bytes and must be multiples of the line (the memory port width).
   */
  record Load(long ext, long extStride, long spad, long spadStride, long rowBytes, long rows) implements Command {
    @Override
    public Opcode opcode() {
      return Opcode.LOAD;
    }
  }

  /** DMA scratchpad → external memory, fields as in {@link Load}. */
  record Store(long ext, long extStride, long spad, long spadStride, long rowBytes, long rows) implements Command {
    @Override
    public Opcode opcode() {
      return Opcode.STORE;
    }
  }

  /**
   * GEMM: X is M rows of K INT8 at scratchpad byte {@code x} (row stride {@code xStride}), W is K rows
   * of N INT8 at {@code w} (stride {@code wStride}); Y (M rows of N little-endian INT32) goes to
   * {@code y} (stride {@code yStride}).
   */
  record Gemm(long m, long k, long n, long x, long xStride, long w, long wStride, long y, long yStride)
      implements Command {
    @Override
    public Opcode opcode() {
      return Opcode.GEMM;
    }
  }

  /** Waits for all earlier commands. */
  record Fence() implements Command {
    @Override
    public Opcode opcode() {
      return Opcode.FENCE;
    }
  }

  /** Ends the program. */
  record Halt() implements Command {
    @Override
    public Opcode opcode() {
      return Opcode.HALT;
    }
  }
}
