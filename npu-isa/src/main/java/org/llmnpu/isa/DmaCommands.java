package org.llmnpu.isa;

/**
 * The DMA commands between external memory and the scratchpad. They are declared here and inherited by
 * {@link Command}, so callers name them {@code Command.Load}, {@code Command.Store}, {@code Command.Load4} and
 * {@code Command.LoadMx}. Only {@code Command} extends this interface; it holds the family's records, nothing else.
 */
public sealed interface DmaCommands permits Command {
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

    @Override
    public <R> R accept(Visitor<R> visitor) {
      return visitor.visitLoad(this);
    }
  }

  /** DMA scratchpad → external memory, fields as in {@link Load}. */
  record Store(long ext, long extStride, long spad, long spadStride, long rowBytes, long rows) implements Command {
    @Override
    public Opcode opcode() {
      return Opcode.STORE;
    }

    @Override
    public <R> R accept(Visitor<R> visitor) {
      return visitor.visitStore(this);
    }
  }

  /**
   * DMA external memory → scratchpad with INT4 unpacking: {@code rows} rows of {@code rowBytes} source
   * bytes; each source byte holds two signed INT4 values, the low nibble first, which land as two
   * sign-extended INT8 bytes, so row r fills {@code 2·rowBytes} bytes from {@code spad + r·spadStride}.
   * Alignment rules as for {@link Load}.
   */
  record Load4(long ext, long extStride, long spad, long spadStride, long rowBytes, long rows) implements Command {
    @Override
    public Opcode opcode() {
      return Opcode.LOAD4;
    }

    @Override
    public <R> R accept(Visitor<R> visitor) {
      return visitor.visitLoad4(this);
    }
  }

  /**
   * DMA external memory → scratchpad with MX element decoding: {@code rows} rows of {@code rowBytes}
   * bytes as {@link Load}, every byte an MX element of {@code format} ({@link MxLoad#E4M3},
   * {@link MxLoad#E5M2}, {@link MxLoad#INT8}) that lands as the INT8 code {@link MxLoad#code}: the
   * element's value aligned to the format's top binade (7 magnitude bits), rounded to nearest even.
   * The blocks' E8M0 scales are not read: the software applies them with the alignment
   * ({@link MxLoad#codeExponent}) to each block's INT32 partial. Only on an NPU built with
   * {@link MachineParams#mxLoad()}.
   */
  record LoadMx(long ext, long extStride, long spad, long spadStride, long rowBytes, long rows, long format)
      implements Command {
    @Override
    public Opcode opcode() {
      return Opcode.LOADMX;
    }

    @Override
    public <R> R accept(Visitor<R> visitor) {
      return visitor.visitLoadMx(this);
    }
  }
}
