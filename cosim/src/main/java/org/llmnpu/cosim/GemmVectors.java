package org.llmnpu.cosim;

import java.util.OptionalLong;
import org.llmnpu.isa.Command;
import org.llmnpu.isa.CommandCodec;

/**
 * The input vectors the GEMM engine takes over a program, derived from the shapes of the GEMM
 * commands it executed (not a hardware counter): {@code M · ceil(K/rows) · ceil(N/rows)} per GEMM,
 * every X row once per (K tile, N tile) pass — on the PiM engine one input vector through all
 * {@code rows} columns of the macro, which the energy model charges per column operation
 * ({@code reports} {@code EnergyEstimate}, counter key {@code arrayVectors}). Programs are
 * straight-line, so the commands executed are the program's first {@code commands} (the
 * {@code commands} counter: decoded commands, halt included).
 */
public final class GemmVectors {
  private GemmVectors() {
  }

  /** Vectors of one GEMM of {@code m × k × n} on a {@code rows × rows} engine. */
  public static long of(long m, long k, long n, int rows) {
    return m * ((k + rows - 1) / rows) * ((n + rows - 1) / rows);
  }

  /** Vectors of the GEMM commands among the first {@code commands} commands of the program at {@code address}. */
  public static long ofProgram(byte[] image, long address, long commands, int rows) {
    long sum = 0;
    for (long i = 0; i < commands; i++) {
      long at = address + i * Command.BYTES;
      if (at + Command.BYTES > image.length) {
        break;
      }
      Command c = CommandCodec.decode(CommandCodec.wordsAt(image, at)).orElse(null);
      OptionalLong vectors = c == null ? OptionalLong.empty() : c.accept(new ArrayVectors(rows));
      if (vectors.isEmpty()) {
        break;
      }
      sum += vectors.getAsLong();
    }
    return sum;
  }

  /** The engine's input vectors of one command; empty for the command the program ends with. */
  private static final class ArrayVectors implements Command.Visitor<OptionalLong> {
    private static final OptionalLong NONE = OptionalLong.of(0);
    private final int rows;

    ArrayVectors(int rows) {
      this.rows = rows;
    }

    @Override
    public OptionalLong visitGemm(Command.Gemm g) {
      return OptionalLong.of(of(g.m(), g.k(), g.n(), rows));
    }

    @Override
    public OptionalLong visitHalt(Command.Halt h) {
      return OptionalLong.empty();
    }

    @Override
    public OptionalLong visitLoad(Command.Load c) {
      return NONE;
    }

    @Override
    public OptionalLong visitStore(Command.Store c) {
      return NONE;
    }

    @Override
    public OptionalLong visitFence(Command.Fence c) {
      return NONE;
    }

    @Override
    public OptionalLong visitLoad4(Command.Load4 c) {
      return NONE;
    }

    @Override
    public OptionalLong visitDspTab(Command.DspTab c) {
      return NONE;
    }

    @Override
    public OptionalLong visitDspIn(Command.DspIn c) {
      return NONE;
    }

    @Override
    public OptionalLong visitDspOut(Command.DspOut c) {
      return NONE;
    }

    @Override
    public OptionalLong visitDspRun(Command.DspRun c) {
      return NONE;
    }

    @Override
    public OptionalLong visitDspLoad(Command.DspLoad c) {
      return NONE;
    }

    @Override
    public OptionalLong visitSnapshot(Command.Snapshot c) {
      return NONE;
    }

    @Override
    public OptionalLong visitPpmCfg(Command.PpmCfg c) {
      return NONE;
    }

    @Override
    public OptionalLong visitPpuTab(Command.PpuTab c) {
      return NONE;
    }

    @Override
    public OptionalLong visitPpm(Command.Ppm c) {
      return NONE;
    }

    @Override
    public OptionalLong visitLoadMx(Command.LoadMx c) {
      return NONE;
    }
  }
}
