package org.llmnpu.hdl.ir;

/** An asynchronous (combinational) read of a memory word. */
public final class MemRead extends Expr {
  public final MemoryNode memory;
  public final Expr address;

  public MemRead(MemoryNode memory, Expr address) {
    super(memory.width, memory.kind);
    this.memory = memory;
    this.address = address;
  }
}
