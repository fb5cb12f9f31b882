package org.llmnpu.isa;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Optional;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Every command kind visits its own method of {@link Command.Visitor}: the dispatch the codec, checks and simulator use. */
class CommandVisitorTest {

  /** Names the visited method by the opcode it is for. */
  private static final class VisitedKind implements Command.Visitor<Opcode> {
    @Override
    public Opcode visitLoad(Command.Load c) {
      return Opcode.LOAD;
    }

    @Override
    public Opcode visitStore(Command.Store c) {
      return Opcode.STORE;
    }

    @Override
    public Opcode visitGemm(Command.Gemm c) {
      return Opcode.GEMM;
    }

    @Override
    public Opcode visitFence(Command.Fence c) {
      return Opcode.FENCE;
    }

    @Override
    public Opcode visitHalt(Command.Halt c) {
      return Opcode.HALT;
    }

    @Override
    public Opcode visitLoad4(Command.Load4 c) {
      return Opcode.LOAD4;
    }

    @Override
    public Opcode visitDspTab(Command.DspTab c) {
      return Opcode.DSPTAB;
    }

    @Override
    public Opcode visitDspIn(Command.DspIn c) {
      return Opcode.DSPIN;
    }

    @Override
    public Opcode visitDspOut(Command.DspOut c) {
      return Opcode.DSPOUT;
    }

    @Override
    public Opcode visitDspRun(Command.DspRun c) {
      return Opcode.DSPRUN;
    }

    @Override
    public Opcode visitDspLoad(Command.DspLoad c) {
      return Opcode.DSPLD;
    }

    @Override
    public Opcode visitSnapshot(Command.Snapshot c) {
      return Opcode.SNAPSHOT;
    }

    @Override
    public Opcode visitPpmCfg(Command.PpmCfg c) {
      return Opcode.PPMCFG;
    }

    @Override
    public Opcode visitPpuTab(Command.PpuTab c) {
      return Opcode.PPUTAB;
    }

    @Override
    public Opcode visitPpm(Command.Ppm c) {
      return Opcode.PPM;
    }

    @Override
    public Opcode visitLoadMx(Command.LoadMx c) {
      return Opcode.LOADMX;
    }
  }

  @ParameterizedTest
  @EnumSource(Opcode.class)
  void eachKindVisitsItsOwnMethodAndEncodesBackToItsWords(Opcode op) {
    int[] words = new int[CommandCodec.WORDS];
    words[0] = op.code();
    for (int i = 1; i < words.length; i++) {
      words[i] = 0x40 * i;
    }
    Optional<Command> c = CommandCodec.decode(words);
    assertEquals(op, c.orElseThrow().opcode());
    assertEquals(op, c.get().accept(new VisitedKind()), "the method " + c.get().getClass().getSimpleName() + " visits");
    assertArrayEquals(CommandCodec.encode(c.get()), CommandCodec.encode(CommandCodec.decode(
        CommandCodec.encode(c.get())).orElseThrow()), "encode and decode agree");
  }
}
