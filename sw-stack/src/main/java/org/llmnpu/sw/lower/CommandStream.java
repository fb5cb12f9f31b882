package org.llmnpu.sw.lower;

import org.llmnpu.isa.Command;
import org.llmnpu.isa.Program;
import org.llmnpu.isa.dsp.DspProgram;

/**
 * The lowering's command emitter: typed commands (named as {@link Program.Builder}'s methods) handed to a
 * {@link CommandSink} one by one. {@link #program} is the sink that encodes them into a {@link Program}.
 */
final class CommandStream {
  private final CommandSink sink;

  CommandStream(CommandSink sink) {
    this.sink = sink;
  }

  /** A sink that encodes into {@code builder} (a {@code dsprun} by its address and word count). */
  static CommandSink program(Program.Builder builder) {
    return new CommandSink() {
      @Override
      public void command(Command c) {
        builder.add(c);
      }

      @Override
      public void dspRun(long address, DspProgram program) {
        builder.dspRun(address, program.size());
      }
    };
  }

  void add(Command c) {
    sink.command(c);
  }

  void load(long ext, long extStride, long spad, long spadStride, long rowBytes, long rows) {
    add(new Command.Load(ext, extStride, spad, spadStride, rowBytes, rows));
  }

  void store(long ext, long extStride, long spad, long spadStride, long rowBytes, long rows) {
    add(new Command.Store(ext, extStride, spad, spadStride, rowBytes, rows));
  }

  void load4(long ext, long extStride, long spad, long spadStride, long rowBytes, long rows) {
    add(new Command.Load4(ext, extStride, spad, spadStride, rowBytes, rows));
  }

  void loadmx(long ext, long extStride, long spad, long spadStride, long rowBytes, long rows, long format) {
    add(new Command.LoadMx(ext, extStride, spad, spadStride, rowBytes, rows, format));
  }

  void gemm(long m, long k, long n, long x, long xStride, long w, long wStride, long y, long yStride) {
    add(new Command.Gemm(m, k, n, x, xStride, w, wStride, y, yStride));
  }

  void gemm(long m, long k, long n, long x, long xStride, long w, long wStride, long y, long yStride, long sparsity) {
    add(new Command.Gemm(m, k, n, x, xStride, w, wStride, y, yStride, sparsity));
  }

  void dspTab(long ext) {
    add(new Command.DspTab(ext));
  }

  void dspIn(long spad, long spadStride, long rowElems, long rows, long dst, long format, long shift) {
    add(new Command.DspIn(spad, spadStride, rowElems, rows, dst, format, shift));
  }

  void dspOut(long spad, long spadStride, long rowElems, long rows, long src, long format) {
    add(new Command.DspOut(spad, spadStride, rowElems, rows, src, format));
  }

  void dspRun(long address, DspProgram program) {
    sink.dspRun(address, program);
  }

  void layerStart(int layer) {
    sink.layerStart(layer);
  }

  void layerEnd(int layer) {
    sink.layerEnd(layer);
  }

  void halt() {
    add(new Command.Halt());
  }
}
