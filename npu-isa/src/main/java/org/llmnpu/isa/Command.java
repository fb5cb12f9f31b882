package org.llmnpu.isa;

/**
 * One NPU command. Binary form: {@link #BYTES} bytes, eight little-endian 32-bit words; word 0
 * bits 7:0 hold the opcode, the other bits of word 0 are reserved (zero). The operand words of
 * each command are listed in {@code npu-isa/README.md} and in {@link CommandCodec}.
 *
 * <p>The commands are records declared by family in {@link DmaCommands}, {@link GemmCommands}, {@link DspCommands}
 * and {@link ControlCommands}; this interface extends them, so each record and constant is a member of
 * {@code Command} ({@code Command.Gemm}, {@code Command.DENSE}, ...).
 */
public sealed interface Command extends DmaCommands, GemmCommands, DspCommands, ControlCommands
    permits DmaCommands.Load, DmaCommands.Store, GemmCommands.Gemm, ControlCommands.Fence, ControlCommands.Halt,
    DmaCommands.Load4, DspCommands.DspTab, DspCommands.DspIn, DspCommands.DspOut, DspCommands.DspRun,
    DspCommands.DspLoad, ControlCommands.Snapshot, GemmCommands.PpmCfg, GemmCommands.PpuTab, GemmCommands.Ppm,
    DmaCommands.LoadMx {
  /** Bytes per command in memory. */
  int BYTES = 32;

  Opcode opcode();

  /** Calls {@code visitor}'s method for this command's kind and returns its result. */
  <R> R accept(Visitor<R> visitor);

  /**
   * A computation over commands with one method per command kind. Code that treats each kind its own way (encode,
   * check, execute, disassemble, cost) implements it instead of testing kinds one by one, so that a new kind does
   * not compile until every such place handles it.
   *
   * @param <R> the result of a visit
   */
  interface Visitor<R> {
    R visitLoad(Load c);

    R visitStore(Store c);

    R visitGemm(Gemm c);

    R visitFence(Fence c);

    R visitHalt(Halt c);

    R visitLoad4(Load4 c);

    R visitDspTab(DspTab c);

    R visitDspIn(DspIn c);

    R visitDspOut(DspOut c);

    R visitDspRun(DspRun c);

    R visitDspLoad(DspLoad c);

    R visitSnapshot(Snapshot c);

    R visitPpmCfg(PpmCfg c);

    R visitPpuTab(PpuTab c);

    R visitPpm(Ppm c);

    R visitLoadMx(LoadMx c);
  }
}
