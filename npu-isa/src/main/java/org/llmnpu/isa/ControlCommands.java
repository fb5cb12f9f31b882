package org.llmnpu.isa;

/**
 * The control commands: ordering, end of program, counter snapshot. They are declared here and inherited by
 * {@link Command}, so callers name them {@code Command.Fence}, {@code Command.Halt} and {@code Command.Snapshot}.
 * Only {@code Command} extends this interface; it holds the family's records, nothing else.
 */
public sealed interface ControlCommands permits Command {
  /** Waits for all earlier commands. */
  record Fence() implements Command {
    @Override
    public Opcode opcode() {
      return Opcode.FENCE;
    }

    @Override
    public <R> R accept(Visitor<R> visitor) {
      return visitor.visitFence(this);
    }
  }

  /** Ends the program. */
  record Halt() implements Command {
    @Override
    public Opcode opcode() {
      return Opcode.HALT;
    }

    @Override
    public <R> R accept(Visitor<R> visitor) {
      return visitor.visitHalt(this);
    }
  }

  /**
   * Waits for every earlier command, then writes every {@link Counter} (in {@code Counter} order, 64
   * bits little-endian each) to external memory at {@code ext} (line-aligned): the values as of the
   * snapshot's first execution cycle, its own fetch and decode counted, its own writes not.
   */
  record Snapshot(long ext) implements Command {
    @Override
    public Opcode opcode() {
      return Opcode.SNAPSHOT;
    }

    @Override
    public <R> R accept(Visitor<R> visitor) {
      return visitor.visitSnapshot(this);
    }
  }
}
