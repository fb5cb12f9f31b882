package org.llmnpu.isa;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * A command stream: each entry is the eight words of one command (a word array, so that a test
 * can also hold an undefined opcode). {@link #bytes()} is the image placed in external memory.
 */
public final class Program {
  private final List<int[]> commands;

  public Program(List<int[]> commands) {
    List<int[]> copy = new ArrayList<>();
    for (int[] c : commands) {
      if (c.length != CommandCodec.WORDS) {
        throw new IllegalArgumentException("a command has " + CommandCodec.WORDS + " words, got " + c.length);
      }
      copy.add(c.clone());
    }
    this.commands = Collections.unmodifiableList(copy);
  }

  /** A builder of programs from typed commands. */
  public static Builder builder() {
    return new Builder();
  }

  public int size() {
    return commands.size();
  }

  public int[] words(int index) {
    return commands.get(index).clone();
  }

  /** Little-endian binary image, {@code 32 · size()} bytes. */
  public byte[] bytes() {
    byte[] b = new byte[commands.size() * Command.BYTES];
    for (int c = 0; c < commands.size(); c++) {
      int[] w = commands.get(c);
      for (int i = 0; i < w.length; i++) {
        for (int k = 0; k < 4; k++) {
          b[c * Command.BYTES + 4 * i + k] = (byte) (w[i] >>> (8 * k));
        }
      }
    }
    return b;
  }

  /** Builds a program command by command. */
  public static final class Builder {
    private final List<int[]> commands = new ArrayList<>();

    public Builder add(Command c) {
      commands.add(CommandCodec.encode(c));
      return this;
    }

    /** Adds eight raw words (e.g. an undefined opcode, for tests of the error path). */
    public Builder raw(int... words) {
      if (words.length != CommandCodec.WORDS) {
        throw new IllegalArgumentException("raw command needs " + CommandCodec.WORDS + " words, got " + words.length);
      }
      commands.add(words.clone());
      return this;
    }

    public Builder load(long ext, long extStride, long spad, long spadStride, long rowBytes, long rows) {
      return add(new Command.Load(ext, extStride, spad, spadStride, rowBytes, rows));
    }

    public Builder store(long ext, long extStride, long spad, long spadStride, long rowBytes, long rows) {
      return add(new Command.Store(ext, extStride, spad, spadStride, rowBytes, rows));
    }

    public Builder gemm(long m, long k, long n, long x, long xStride, long w, long wStride, long y, long yStride) {
      return add(new Command.Gemm(m, k, n, x, xStride, w, wStride, y, yStride));
    }

    /** A GEMM with {@code sparsity} {@link Command#DENSE}, {@link Command#S2_4} or {@link Command#S4_8}. */
    public Builder gemm(long m, long k, long n, long x, long xStride, long w, long wStride, long y, long yStride,
                        long sparsity) {
      return add(new Command.Gemm(m, k, n, x, xStride, w, wStride, y, yStride, sparsity));
    }

    /** A GEMM with {@code sparsity} whose results are added to Y when {@code accumulate} ({@link Command.Gemm}). */
    public Builder gemm(long m, long k, long n, long x, long xStride, long w, long wStride, long y, long yStride,
                        long sparsity, boolean accumulate) {
      return add(new Command.Gemm(m, k, n, x, xStride, w, wStride, y, yStride, sparsity, accumulate ? 1 : 0));
    }

    public Builder ppmCfg(long ext, long channels) {
      return add(new Command.PpmCfg(ext, channels));
    }

    /** {@code ppmcfg} of channels {@code first .. first+channels−1}. */
    public Builder ppmCfg(long ext, long channels, long first) {
      return add(new Command.PpmCfg(ext, channels, first));
    }

    /** {@code ppmcfg} of channels {@code first .. first+channels−1} of parameter bank {@code bank} (0 or 1). */
    public Builder ppmCfg(long ext, long channels, long first, long bank) {
      return add(new Command.PpmCfg(ext, channels, first, bank));
    }

    public Builder ppuTab(long ext) {
      return add(new Command.PpuTab(ext));
    }

    public Builder ppm(long src, long srcStride, long dst, long dstStride, long m, long n) {
      return add(new Command.Ppm(src, srcStride, dst, dstStride, m, n));
    }

    /** A {@link Command.LoadMx} of {@code format} ({@link MxLoad#E4M3}, {@link MxLoad#E5M2}, {@link MxLoad#INT8}). */
    public Builder loadmx(long ext, long extStride, long spad, long spadStride, long rowBytes, long rows, long format) {
      return add(new Command.LoadMx(ext, extStride, spad, spadStride, rowBytes, rows, format));
    }

    public Builder load4(long ext, long extStride, long spad, long spadStride, long rowBytes, long rows) {
      return add(new Command.Load4(ext, extStride, spad, spadStride, rowBytes, rows));
    }

    /**
     * A dense GEMM whose W streams from the memory at {@code w} ({@code wStream=1}); {@code int4}: its bytes hold
     * two signed INT4 entries each ({@code wInt4=1}).
     */
    public Builder gemmStreamed(long m, long k, long n, long x, long xStride, long w, long wStride, long y,
                                long yStride, boolean int4) {
      return add(new Command.Gemm(m, k, n, x, xStride, w, wStride, y, yStride, Command.DENSE, 0, 1, int4 ? 1 : 0, 0));
    }

    public Builder dspTab(long ext) {
      return add(new Command.DspTab(ext));
    }

    public Builder dspIn(long spad, long spadStride, long rowElems, long rows, long dst, long format, long shift) {
      return add(new Command.DspIn(spad, spadStride, rowElems, rows, dst, format, shift));
    }

    public Builder dspOut(long spad, long spadStride, long rowElems, long rows, long src, long format) {
      return add(new Command.DspOut(spad, spadStride, rowElems, rows, src, format));
    }

    /** A {@code dspin} whose row r goes to DSP row {@code dst + r·dstStride} ({@code dstStride} 0: packed flat). */
    public Builder dspIn(long spad, long spadStride, long rowElems, long rows, long dst, long format, long shift,
                         long dstStride) {
      return add(new Command.DspIn(spad, spadStride, rowElems, rows, dst, format, shift, dstStride));
    }

    /** A {@code dspout} whose row r comes from DSP row {@code src + r·srcStride} ({@code srcStride} 0: packed flat). */
    public Builder dspOut(long spad, long spadStride, long rowElems, long rows, long src, long format, long srcStride) {
      return add(new Command.DspOut(spad, spadStride, rowElems, rows, src, format, srcStride));
    }

    public Builder dspRun(long prog, long words) {
      return add(new Command.DspRun(prog, words));
    }

    /** A {@code dsprun} that loads {@code words} words at address 0 and runs from {@code entry}. */
    public Builder dspRun(long prog, long words, long entry) {
      return add(new Command.DspRun(prog, words, entry));
    }

    /** A resident {@code dsprun}: runs the program memory from {@code entry}, loading nothing. */
    public Builder dspRunResident(long entry) {
      return add(Command.DspRun.resident(entry));
    }

    /** A resident {@code dsprun} handing its program row bases and a length ({@link org.llmnpu.isa.dsp.DspRunParameters}). */
    public Builder dspRunResident(long entry, org.llmnpu.isa.dsp.DspRunParameters parameters) {
      return add(Command.DspRun.resident(entry, parameters));
    }

    /** A loading {@code dsprun} with run parameters. */
    public Builder dspRun(long prog, long words, long entry, org.llmnpu.isa.dsp.DspRunParameters parameters) {
      return add(new Command.DspRun(prog, words, entry, parameters));
    }

    /** A {@code dspld}: loads {@code words} words into program memory at {@code at} without running them. */
    public Builder dspLoad(long prog, long words, long at) {
      return add(new Command.DspLoad(prog, words, at));
    }

    public Builder snapshot(long ext) {
      return add(new Command.Snapshot(ext));
    }

    public Builder fence() {
      return add(new Command.Fence());
    }

    public Builder halt() {
      return add(new Command.Halt());
    }

    /** Number of commands so far (the index of the next one). */
    public int size() {
      return commands.size();
    }

    public Program build() {
      return new Program(commands);
    }
  }
}
