package org.llmnpu.sw.lower;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.llmnpu.isa.Command;
import org.llmnpu.isa.Counter;
import org.llmnpu.isa.ErrorCause;
import org.llmnpu.isa.IsaSimulator;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.isa.Program;
import org.llmnpu.isa.dsp.DspAssembler;
import org.llmnpu.isa.dsp.DspOp;
import org.llmnpu.isa.dsp.DspProgram;

/**
 * The lowering's command stream with resident programs ({@link DspResidency}) after streamed GEMMs, costed by
 * {@link CommandCostSink} against the golden simulator's counters: the first run of a program loads it and waits for
 * the W stream; its second run is resident and goes beside the next GEMM's W stream
 * ({@code CycleModel.dispatchResidentRun}), fewer cycles than with a fence before it.
 */
class ResidentRunBesideStreamCostTest {
  private static final MachineParams P = NpuTargets.defaultNpu();
  private static final long POOL = 0x40000;

  @Test
  void aResidentRunAfterAStreamedGemmCostsAsTheGoldenAndGoesBesideTheStream() {
    assertTrue(P.weightStream(), "the default NPU streams weights");
    long[] cycles = new long[2];
    for (int fenced = 0; fenced < 2; fenced++) {
      cycles[fenced] = costedAsTheGolden(fenced == 1);
    }
    assertTrue(cycles[0] < cycles[1], "beside the stream " + cycles[0] + ", fenced " + cycles[1]);
  }

  /** Runs the stream on the golden simulator and through the cost sink; returns the cycles (counters equal). */
  private static long costedAsTheGolden(boolean fence) {
    DspProgram fill = fill(0x3C00, 4);
    Map<DspProgram, Long> placed = new HashMap<>();
    Program.Builder builder = Program.builder();
    CommandSink program = CommandStream.program(builder);
    CommandCostSink cost = new CommandCostSink(P);
    CommandStream s = new CommandStream(tee(program, cost), q -> placed.computeIfAbsent(q, x -> POOL),
        P.dsp().programDepth(), false, new DspResidency(P));
    s.load(0x10000, 64, 0, 64, 64, 16);
    s.add(streamedGemm());
    s.dspRun(fill);                                        // loads its words: waits for the stream
    s.add(streamedGemm());
    if (fence) {
      s.add(new Command.Fence());
    }
    s.dspRun(fill);                                        // resident: beside the second stream unless fenced
    s.dspOut(0x8000, 64, 16, 1, 0, Command.FMT_FP16);
    s.store(0x30000, 64, 0x8000, 64, 32, 1);
    s.store(0x31000, 256, 0x1000, 256, 256, 16);
    s.halt();
    byte[] image = new byte[(int) P.extMemBytes()];
    new Random(5).nextBytes(image);
    long[] words = fill.words();
    for (int i = 0; i < words.length; i++) {
      for (int j = 0; j < 8; j++) {
        image[(int) POOL + 8 * i + j] = (byte) (words[i] >>> (8 * j));
      }
    }
    byte[] code = builder.build().bytes();
    System.arraycopy(code, 0, image, 0, code.length);
    IsaSimulator.Result golden = IsaSimulator.run(P, image, 0);
    assertEquals(ErrorCause.NONE, golden.error());
    assertEquals(0x3C00, (golden.memory()[0x30000] & 0xFF) | (golden.memory()[0x30001] & 0xFF) << 8, "the fill");
    for (Counter c : Counter.values()) {
      assertEquals(golden.counter(c), cost.cost().counter(c), c + (fence ? " (fenced)" : ""));
    }
    return golden.counter(Counter.CYCLES);
  }

  /** A streamed 16×64×64 GEMM of the X at 0 and W at 0x20000, results at 0x1000. */
  private static Command streamedGemm() {
    return new Command.Gemm(16, 64, 64, 0, 64, 0x20000, 64, 0x1000, 256, Command.DENSE, 0, 1, 0, 0);
  }

  /** Stores FP16 {@code value} into buffer rows 0..rows-1, then HALT. */
  private static DspProgram fill(int value, int rows) {
    DspAssembler a = new DspAssembler();
    a.emit(DspOp.SETLEN, 0, 0, 0, 0, false, 0, 1 << 20);
    a.li(3, value);
    a.loop(rows, () -> a.store(0, 3));
    return a.finish("fill");
  }

  private static CommandSink tee(CommandSink a, CommandSink b) {
    return new CommandSink() {
      @Override
      public void command(Command c) {
        a.command(c);
        b.command(c);
      }

      @Override
      public void dspRun(long address, DspProgram program) {
        a.dspRun(address, program);
        b.dspRun(address, program);
      }

      @Override
      public void dspLoad(long address, DspProgram program, long at) {
        a.dspLoad(address, program, at);
        b.dspLoad(address, program, at);
      }

      @Override
      public void dspRunResident(DspProgram program, long entry) {
        a.dspRunResident(program, entry);
        b.dspRunResident(program, entry);
      }
    };
  }
}
