package org.llmnpu.sw.lower;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.llmnpu.isa.Command;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.isa.dsp.DspInstruction;
import org.llmnpu.isa.dsp.DspOp;
import org.llmnpu.isa.dsp.DspProgram;
import org.llmnpu.isa.dsp.DspRunParameters;
import org.llmnpu.sw.model.ModelConfig;

/**
 * What resident DSP programs could save, measured on the lowering's own runs: the {@code dsprun}s of one step at
 * {@code --fusion full} (each a {@link DspChain} of programs, in program order) replayed through {@link DspResidency}
 * with each run known by
 * <ul>
 *   <li>its instructions (today's routines: a token's rows, lengths and scale rows compiled in), or</li>
 *   <li>its instructions with every {@code LD}/{@code ST} row and {@code SETLEN} length set to 0: routines that take
 *       their rows and lengths at run time (a row base and a length from the command or a register; not built), so a
 *       routine is one program for every token and head (an upper bound), or</li>
 *   <li>its joined run rewritten for the ISA's run parameters, four row bases and a length, as the lowering's stream
 *       rewrites it ({@link DspRunParameterizer}, or against its form's first run: {@link DspRunForms}),</li>
 * </ul>
 * for a program memory of {@code depth} words, with or without the {@code dspld} re-load of a program overwritten
 * before it came again; the runs the lowering keeps in the program memory ({@link CommandStream#dspRunPinned}) kept
 * there in every replay. The runs stay as the lowering joins them for the NPU's program memory, and the parameters'
 * own cost (a command word or a register load) is not counted: an upper bound on the program-load beats saved
 * (each resident run also saves its memory latency, not counted either).
 */
public final class ResidencyWhatIf {
  private ResidencyWhatIf() {
  }

  /**
   * One replay: {@code resident} of {@code runs} loaded nothing, {@code dsplds} re-loads; {@code beats} the runs'
   * program-load beats without residency, {@code beatsAvoided} those of the resident runs that no {@code dspld} loaded.
   */
  public record Row(int depth, RowsAt rowsAt, boolean reload, int runs, int resident, int dsplds, long beats,
                    long beatsAvoided) {
    /** Whether rows and lengths come at run time (either way). */
    public boolean runTimeRows() {
      return rowsAt != RowsAt.COMPILED_IN;
    }
  }

  /** How a run's rows and lengths are known. */
  public enum RowsAt {
    /** Today's routines: compiled in. */
    COMPILED_IN("compiled in"),
    /** Every LD/ST row and SETLEN length a parameter (an upper bound: as many parameters as the program has). */
    RUN_TIME("at run time"),
    /** The ISA's run parameters: four row bases and a length per run, as the stream rewrites runs ({@link DspRunForms}). */
    FOUR_BASES("4 bases + length");

    private final String label;

    RowsAt(String label) {
      this.label = label;
    }
  }

  /** The replays of a step ({@code tokens} at {@code pos0}) of {@code format} at full, for each depth and setting. */
  public static List<Row> of(ModelConfig c, MachineParams p, int maxContext, int blockMax, String format, int tokens,
                             int pos0, int... depths) {
    LoweredModel layout = LoweredModel.layoutOnly(c, p, maxContext, maxContext, WeightFormats.bits(format),
        WeightFormats.group(format), WeightFormats.sparsity(format), WeightFormats.mx(format));
    DecoderLowering lowering = new DecoderLowering(layout, blockMax, program -> layout.dspPool, Fusion.FULL);
    List<List<DspProgram>> runs = new ArrayList<>();
    List<Integer> layers = new ArrayList<>();
    // the programs the lowering keeps in the program memory (CommandStream#dspRunPinned): the ones it loads by dspld
    java.util.Set<List<DspInstruction>> pinned = new java.util.HashSet<>();
    java.util.Set<List<DspInstruction>> loaded = new java.util.HashSet<>();
    int[] layer = {-1};
    lowering.emit(new int[tokens], pos0, false, new CommandSink() {
      @Override
      public void command(Command cmd) {
      }

      @Override
      public void dspRun(long address, DspProgram program) {
        dspRun(address, program, List.of(program));
      }

      @Override
      public void dspRun(long address, DspProgram run, List<DspProgram> parts) {
        runs.add(parts);
        layers.add(layer[0]);
      }

      @Override
      public void dspLoad(long address, DspProgram program, long at) {
        loaded.add(program.instructions());
      }

      @Override
      public void dspRunResident(DspProgram run, List<DspProgram> parts, long entry, DspRunParameters params) {
        // the stream loads rewritten programs (DspRunParameterizer): the pinned run is known by its parts here
        if (loaded.contains(run.instructions())) {
          pinned.add((parts.size() == 1 ? parts.get(0) : DspChain.join(parts)).instructions());
        }
        dspRun(0, run, parts);
      }

      @Override
      public void dspRunResident(DspProgram program, long entry) {
        dspRunResident(program, List.of(program), entry);
      }

      @Override
      public void dspRunResident(DspProgram run, List<DspProgram> parts, long entry) {
        dspRun(0, run, parts);
      }

      @Override
      public void layerStart(int l) {
        layer[0] = l;
      }

      @Override
      public void layerEnd(int l) {
        layer[0] = -1;
      }
    });
    List<Row> rows = new ArrayList<>();
    for (int depth : depths) {
      for (RowsAt at : RowsAt.values()) {
        for (boolean reload : new boolean[] {false, true}) {
          rows.add(replay(runs, layers, pinned, p, depth, at, reload));
        }
      }
    }
    return rows;
  }

  private static Row replay(List<List<DspProgram>> runs, List<Integer> layers, java.util.Set<List<DspInstruction>> pinned,
                            MachineParams p, int depth, RowsAt at, boolean reload) {
    MachineParams.DspParams d = p.dsp();
    MachineParams q = p.withDsp(new MachineParams.DspParams(d.lanes(), d.rows(), depth, d.tableSegments(),
        d.tableDegree(), d.maxRunCycles(), d.executeStages(), d.permute()));
    DspResidency residency = new DspResidency(q, reload);
    DspRunForms forms = new DspRunForms(p.dsp().rows());
    int resident = 0;
    int loads = 0;
    long beats = 0;
    long avoided = 0;
    int layer = -2;
    for (int i = 0; i < runs.size(); i++) {
      if (layers.get(i) != layer) {
        // as the stream: placements are forgotten where a layer (or the part outside the layers) starts
        layer = layers.get(i);
        residency.clear();
        forms.clear();
      }
      List<DspProgram> parts = runs.get(i);
      DspProgram run = parts.size() == 1 ? parts.get(0) : DspChain.join(parts);
      List<Object> identity = new ArrayList<>();
      if (at == RowsAt.FOUR_BASES) {
        // as the stream rewrites them (DspRunForms)
        identity.add(forms.rewrite(run, x -> residency.intact(List.of(x.instructions()))).program().instructions());
      } else {
        for (DspProgram part : parts) {
          identity.add(at == RowsAt.RUN_TIME ? withoutRowsAndLengths(part.instructions()) : part.instructions());
        }
      }
      long b = (8L * run.size() + p.lineBytes() - 1) / p.lineBytes();
      beats += b;
      DspResidency.Use use = pinned.contains(run.instructions()) ? residency.pin(identity, run)
          : residency.use(identity, run);
      resident += use.plain() ? 0 : 1;
      loads += use.load() ? 1 : 0;
      avoided += use.plain() || use.load() ? 0 : b;
    }
    return new Row(depth, at, reload, runs.size(), resident, loads, beats, avoided);
  }

  /** The instructions with every {@code LD}/{@code ST} row and {@code SETLEN} length 0 (given at run time). */
  static List<DspInstruction> withoutRowsAndLengths(List<DspInstruction> code) {
    List<DspInstruction> out = new ArrayList<>();
    for (DspInstruction i : code) {
      boolean parameter = i.op() == DspOp.LD || i.op() == DspOp.ST || i.op() == DspOp.SETLEN;
      out.add(parameter ? new DspInstruction(i.op(), i.rd(), i.ra(), i.rb(), i.rc(), i.masked(), i.aux(), 0) : i);
    }
    return out;
  }

  /** The rows as a Markdown table. */
  public static String table(List<Row> rows) {
    StringBuilder s = new StringBuilder("| program words | rows, lengths | overwritten programs | runs | resident "
        + "| dspld | load beats | beats avoided |\n|---:|---|---|---:|---:|---:|---:|---:|\n");
    for (Row r : rows) {
      s.append(String.format(Locale.ROOT, "| %d | %s | %s | %,d | %,d | %,d | %,d | %,d (%.1f %%) |%n", r.depth(),
          r.rowsAt().label, r.reload() ? "dspld again" : "plain run",
          r.runs(), r.resident(), r.dsplds(), r.beats(), r.beatsAvoided(), 100.0 * r.beatsAvoided() / r.beats()));
    }
    return s.toString();
  }
}
