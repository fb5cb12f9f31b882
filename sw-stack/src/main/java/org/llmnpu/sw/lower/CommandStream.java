package org.llmnpu.sw.lower;

import java.util.ArrayList;
import java.util.List;
import java.util.function.ToLongFunction;
import org.llmnpu.isa.Command;
import org.llmnpu.isa.Program;
import org.llmnpu.isa.dsp.DspProgram;
import org.llmnpu.isa.dsp.DspRunParameters;

/**
 * The lowering's command emitter: typed commands (named as {@link Program.Builder}'s methods) handed to a
 * {@link CommandSink} one by one. {@link #program} is the sink that encodes them into a {@link Program}. A
 * {@code dsprun} is placed in external memory by the pool; with {@code chainRuns} ({@code --fusion full}) the
 * consecutive ones wait for the next other command and go as joined programs ({@link DspChain}); with residency every
 * run's program is rewritten to take its rows and lengths from its {@code dsprun} ({@link DspRunParameterizer}).
 */
final class CommandStream {
  private final CommandSink sink;
  private final ToLongFunction<DspProgram> pool;
  private final int programDepth;
  private final boolean chainRuns;
  private final List<DspProgram> pending = new ArrayList<>();
  /** Resident programs (null: every run loads its program, a plain {@code dsprun}). */
  private final DspResidency residency;
  /** The DSP buffer's rows (run parameters' row bases are taken mod them). */
  private final int bufferRows;
  /**
   * Each run's rewriting for run parameters, against the step's first run of its form ({@link DspRunForms}), one per
   * token block in flight ({@link #lane}): a second block's runs are the first's with every row moved by its rows'
   * offset, so they are rewritten as the first block's are (a plain rewriting is then the first block's program).
   */
  private final DspRunForms[] forms;
  /** The token block of the commands now ({@link #lane}). */
  private int lane;

  CommandStream(CommandSink sink, ToLongFunction<DspProgram> pool, int programDepth, boolean chainRuns) {
    this(sink, pool, programDepth, chainRuns, null);
  }

  /**
   * With {@code residency}: a program that runs again while its words are intact in the program memory runs resident
   * (no load), one that comes again after being overwritten is loaded once more by a {@code dspld} at an offset
   * ({@link DspResidency}); the placements are forgotten at each layer's start.
   */
  CommandStream(CommandSink sink, ToLongFunction<DspProgram> pool, int programDepth, boolean chainRuns,
                DspResidency residency) {
    this.sink = sink;
    this.pool = pool;
    this.programDepth = programDepth;
    this.chainRuns = chainRuns;
    this.residency = residency;
    this.bufferRows = residency == null ? 0 : residency.rows();
    this.forms = residency == null ? null
        : new DspRunForms[] {new DspRunForms(bufferRows), new DspRunForms(bufferRows)};
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

      @Override
      public void dspLoad(long address, DspProgram program, long at) {
        builder.dspLoad(address, program.size(), at);
      }

      @Override
      public void dspRunResident(DspProgram program, long entry) {
        builder.dspRunResident(entry);
      }

      @Override
      public void dspRun(long address, DspProgram run, List<DspProgram> parts, DspRunParameters params) {
        builder.dspRun(address, run.size(), 0, params);
      }

      @Override
      public void dspRunResident(DspProgram run, List<DspProgram> parts, long entry, DspRunParameters params) {
        builder.dspRunResident(entry, params);
      }
    };
  }

  void add(Command c) {
    flushRuns();
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

  /** A {@code dspin} whose row r goes to DSP row {@code dst + r·dstStride} (0: packed flat). */
  void dspIn(long spad, long spadStride, long rowElems, long rows, long dst, long format, long shift, long dstStride) {
    add(new Command.DspIn(spad, spadStride, rowElems, rows, dst, format, shift, dstStride));
  }

  /** A {@code dspout} whose row r comes from DSP row {@code src + r·srcStride} (0: packed flat). */
  void dspOut(long spad, long spadStride, long rowElems, long rows, long src, long format, long srcStride) {
    add(new Command.DspOut(spad, spadStride, rowElems, rows, src, format, srcStride));
  }

  /** A {@code dsprun} of {@code program} (placed by the pool), or held to be joined with the next ones. */
  void dspRun(DspProgram program) {
    if (chainRuns) {
      pending.add(program);
    } else {
      run(program, List.of(program));
    }
  }

  /**
   * The programs {@code parts}, the same for every token of a block, as one run kept in the program memory: the held
   * runs go first, then the parts joined run resident, loaded by a {@code dspld} from the top of the memory the first
   * time in a layer ({@link DspResidency#pin}); a plain run without residency.
   */
  void dspRunPinned(List<DspProgram> parts) {
    flushRuns();
    DspProgram run = parts.size() == 1 ? parts.get(0) : DspChain.join(parts);
    if (residency == null) {
      sink.dspRun(pool.applyAsLong(run), run, parts);
      return;
    }
    DspRunParameterizer.Parameterized rewritten = DspRunParameterizer.of(run, bufferRows);
    DspProgram program = rewritten.program();
    DspResidency.Use use = residency.pin(program.instructions(), program);
    if (use.load()) {
      sink.dspLoad(pool.applyAsLong(program), program, use.entry());
    }
    sink.dspRunResident(program, parts, use.entry(), rewritten.parameters());
  }

  /** Whether runs are resident where they can be ({@link DspResidency}). */
  boolean resident() {
    return residency != null;
  }

  /**
   * A run of {@code run} (the programs {@code parts} joined): plain, or with residency its program rewritten for run
   * parameters ({@link DspRunParameterizer}: the rewritten program is the run's identity, so runs that differ only in
   * rows and lengths share it) and run plain or resident (loaded first if it is not).
   */
  private void run(DspProgram run, List<DspProgram> parts) {
    if (residency == null) {
      sink.dspRun(pool.applyAsLong(run), run, parts);
      return;
    }
    DspRunParameterizer.Parameterized rewritten = forms[lane].rewrite(run, q -> residency.entryOf(q) >= 0);
    DspProgram program = rewritten.program();
    DspResidency.Use use = residency.use(program);
    if (use.plain()) {
      sink.dspRun(pool.applyAsLong(program), program, parts, rewritten.parameters());
      return;
    }
    if (use.load()) {
      sink.dspLoad(pool.applyAsLong(program), program, use.entry());
    }
    sink.dspRunResident(program, parts, use.entry(), rewritten.parameters());
  }

  private void flushRuns() {
    if (pending.isEmpty()) {
      return;
    }
    for (List<DspProgram> parts : DspChain.groups(pending, programDepth)) {
      DspProgram run = parts.size() == 1 ? parts.get(0) : DspChain.join(parts);
      run(run, parts);
    }
    pending.clear();
  }

  /** From here the runs are a second token block's ({@code on}) or the first's ({@link DspResidency#secondLane}). */
  void secondLane(boolean on) {
    lane(on ? 1 : 0);
    if (residency != null) {
      residency.secondLane(on);
    }
  }

  /**
   * The commands from here are token block {@code lane}'s ({@link CommandSink#lane}; the held runs go first, as the
   * previous block's), without changing how its runs load ({@link #secondLane}).
   */
  void lane(int lane) {
    flushRuns();
    this.lane = lane;
    sink.lane(lane);
  }

  /**
   * With {@code on} (two blocks in flight in a window across layers, {@link DecoderLowering#acrossLayers}) a layer's
   * start keeps the resident placements: the interleaver orders the program words across the boundary too.
   */
  void keepResidencyAcrossLayers(boolean on) {
    keepResidency = on;
  }

  private boolean keepResidency;

  void layerStart(int layer) {
    flushRuns();
    if (residency != null) {
      if (!keepResidency) {
        residency.clear();
      }
      forms[0].clear();
      forms[1].clear();
    }
    sink.layerStart(layer);
  }

  void layerEnd(int layer) {
    flushRuns();
    sink.layerEnd(layer);
  }

  void halt() {
    add(new Command.Halt());
  }
}
