package org.llmnpu.sw.lower;

import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.llmnpu.isa.Command;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.isa.dsp.DspProgram;
import org.llmnpu.sw.model.ModelConfig;

/**
 * Where a step's cycles go, by command kind: the lowering's command stream for the model's layout (as
 * {@link PhaseCostModel}'s exact step) costed command by command on {@code npu-isa}'s cycle model
 * ({@link CommandCostSink}), each command charged the cycles by which it advanced the program's end. A
 * {@code dsprun} is keyed by its program's name ({@code dsprun scale}, {@code dsprun quantize}, …), the other commands
 * by their kind ({@code dspin}, {@code gemm}, …). A GEMM's back-end overlaps the commands after it, so the cycles of a
 * command that waits for it include the wait: the profile says what the controller spends its time issuing, and the
 * kinds' cycles add up to the step's.
 */
public final class CommandKindProfile {
  private CommandKindProfile() {
  }

  /**
   * One kind's share of a step.
   *
   * @param kind     the command kind, or {@code dsprun <program>}
   * @param commands how many commands of that kind the step issues
   * @param cycles   the cycles they advanced the step by
   */
  public record Row(String kind, long commands, long cycles) {
  }

  /**
   * The profile of a step of {@code tokens} tokens at position {@code pos0} (one program: at most the engine's
   * maxM tokens) of weight format {@code format} at fusion level {@code fusion}, rows by cycles, largest first.
   */
  public static List<Row> of(ModelConfig c, MachineParams p, int maxContext, int blockMax, String format,
                             Fusion fusion, int tokens, int pos0) {
    LoweredModel layout = LoweredModel.layoutOnly(c, p, maxContext, maxContext, WeightFormats.bits(format),
        WeightFormats.group(format), WeightFormats.sparsity(format), WeightFormats.mx(format));
    DecoderLowering lowering = new DecoderLowering(layout, blockMax, program -> layout.dspPool, fusion);
    return profile(c, p, maxContext, blockMax, format, fusion, tokens, pos0).rows.values().stream()
        .map(r -> new Row(r.kind, r.commands, r.cycles))
        .sorted(Comparator.comparingLong(Row::cycles).reversed().thenComparing(Row::kind)).toList();
  }

  /**
   * One DSP program's share of a step's {@code dsprun}s (joined runs split into the programs they join).
   *
   * @param program    the program's routine ({@code rmsnorm}, {@code softmax}, {@code quantize}, …; {@code merged}
   *                   copies of one routine as {@code softmax ×4}), or {@link #FIXED}
   * @param runs       how many times it runs (as a run or part of a joined run)
   * @param resident   how many of those runs loaded nothing (resident, {@link DspResidency})
   * @param words      the instruction words loaded for it
   * @param loadCycles the program-memory beats those words take ({@code ceil(8·words / line)} for each run)
   * @param execCycles its issue cycles on its own, interlock stalls included ({@code DspProgram.cycles})
   */
  public record ProgramRow(String program, long runs, long resident, long words, long loadCycles, long execCycles) {
  }

  /** What is left of the {@code dsprun}s' cycles: command fetch, memory latency, waits, stalls at joins. */
  public static final String FIXED = "per dsprun: fetch, memory latency, waits, joins";

  /** The {@code dsprun} cycles of the same step as {@link #of} by DSP program, largest first. */
  public static List<ProgramRow> programs(ModelConfig c, MachineParams p, int maxContext, int blockMax, String format,
                                          Fusion fusion, int tokens, int pos0) {
    return profile(c, p, maxContext, blockMax, format, fusion, tokens, pos0).programs.values().stream()
        .map(r -> new ProgramRow(r.kind, r.commands, r.resident, r.words, r.load, r.cycles))
        .sorted(Comparator.comparingLong((ProgramRow r) -> r.loadCycles() + r.execCycles()).reversed()
            .thenComparing(ProgramRow::program)).toList();
  }

  private static Profiler profile(ModelConfig c, MachineParams p, int maxContext, int blockMax, String format,
                                  Fusion fusion, int tokens, int pos0) {
    LoweredModel layout = LoweredModel.layoutOnly(c, p, maxContext, maxContext, WeightFormats.bits(format),
        WeightFormats.group(format), WeightFormats.sparsity(format), WeightFormats.mx(format));
    DecoderLowering lowering = new DecoderLowering(layout, blockMax, program -> layout.dspPool, fusion);
    Profiler sink = new Profiler(new CommandCostSink(p), p);
    lowering.emit(new int[tokens], pos0, false, sink);
    return sink;
  }

  /** The routine a program runs: its name's first word; copies merged into one program as {@code routine ×n}. */
  static String programKey(DspProgram program) {
    String name = program.name();
    if (!name.startsWith("merged [")) {
      return name.split("[ @\\[(]")[0];
    }
    int copies = 0;
    int depth = 0;
    for (char ch : name.toCharArray()) {
      if (ch == '[' && depth++ == 0) {
        copies++;
      } else if (ch == ']') {
        depth--;
      }
    }
    return name.substring("merged [".length()).split("[ @\\[(]")[0] + " \u00d7" + copies;
  }

  /** The program rows as a Markdown table, each with its share of all {@code dsprun} cycles. */
  public static String programTable(List<ProgramRow> rows) {
    long total = rows.stream().mapToLong(r -> r.loadCycles() + r.execCycles()).sum();
    StringBuilder s = new StringBuilder("| DSP program | runs | resident | words loaded | load beats | execution cycles "
        + "| share |\n|---|---:|---:|---:|---:|---:|---:|\n");
    for (ProgramRow r : rows) {
      s.append(String.format(java.util.Locale.ROOT, "| %s | %,d | %,d | %,d | %,d | %,d | %.3f |%n", r.program(),
          r.runs(), r.resident(), r.words(), r.loadCycles(), r.execCycles(),
          total == 0 ? 0 : (r.loadCycles() + r.execCycles()) / (double) total));
    }
    s.append(String.format(java.util.Locale.ROOT, "| total dsprun | | %,d | %,d | %,d | %,d | 1.000 |%n",
        rows.stream().mapToLong(ProgramRow::resident).sum(),
        rows.stream().mapToLong(ProgramRow::words).sum(), rows.stream().mapToLong(ProgramRow::loadCycles).sum(),
        rows.stream().mapToLong(ProgramRow::execCycles).sum()));
    return s.toString();
  }

  private static final class Tally {
    final String kind;
    long commands;
    long cycles;
    long words;
    long load;
    long resident;

    Tally(String kind) {
      this.kind = kind;
    }
  }

  /** Charges each command the cycles it adds to the costed stream's end. */
  private static final class Profiler implements CommandSink {
    private final CommandCostSink cost;
    private final Map<String, Tally> rows = new TreeMap<>();
    private final Map<String, Tally> programs = new TreeMap<>();
    private final int line;
    private final org.llmnpu.isa.dsp.DspPipeline pipeline;
    private long last;

    Profiler(CommandCostSink cost, MachineParams p) {
      this.cost = cost;
      this.line = p.lineBytes();
      this.pipeline = p.dsp().pipeline();
    }

    @Override
    public void command(Command c) {
      cost.command(c);
      charge(kind(c));
    }

    @Override
    public void dspRun(long address, DspProgram program) {
      dspRun(address, program, List.of(program));
    }

    @Override
    public void dspLoad(long address, DspProgram program, long at) {
      cost.dspLoad(address, program, at);
      long before = last;
      charge("dspld " + program.name().split("[ @\\[(]")[0]);
      Tally t = programs.computeIfAbsent(programKey(program), Tally::new);
      t.words += program.size();
      t.load += last - before;
    }

    @Override
    public void dspRunResident(DspProgram program, long entry) {
      dspRunResident(program, List.of(program), entry);
    }

    @Override
    public void dspRunResident(DspProgram run, List<DspProgram> parts, long entry) {
      cost.dspRunResident(run, entry);
      long before = last;
      charge("dsprun resident");
      tallyParts(parts, last - before, false);
    }

    @Override
    public void dspRun(long address, DspProgram run, List<DspProgram> parts) {
      cost.dspRun(address, run);
      long before = last;
      charge("dsprun " + run.name().split("[ @\\[(]")[0]);
      tallyParts(parts, last - before, true);
    }

    /** A run's {@code cycles} split into its parts' loads (when {@code loads}) and issue cycles, and the rest. */
    private void tallyParts(List<DspProgram> parts, long cycles, boolean loads) {
      long rest = cycles;
      for (DspProgram part : parts) {
        Tally t = programs.computeIfAbsent(programKey(part), Tally::new);
        long load = loads ? (8L * part.size() + line - 1) / line : 0;
        long exec = part.cycles(pipeline);
        t.commands++;
        t.resident += loads ? 0 : 1;
        t.words += loads ? part.size() : 0;
        t.load += load;
        t.cycles += exec;
        rest -= load + exec;
      }
      Tally fixed = programs.computeIfAbsent(FIXED, Tally::new);
      fixed.commands++;
      fixed.cycles += rest;
    }

    private void charge(String kind) {
      long now = cost.cost().cycles();
      Tally t = rows.computeIfAbsent(kind, Tally::new);
      t.commands++;
      t.cycles += now - last;
      last = now;
    }

    private static String kind(Command c) {
      return c.getClass().getSimpleName().toLowerCase(java.util.Locale.ROOT);
    }
  }

  /** The rows as a Markdown table with each kind's share of the step. */
  public static String table(List<Row> rows) {
    long total = rows.stream().mapToLong(Row::cycles).sum();
    StringBuilder s = new StringBuilder("| command | commands | cycles | share |\n|---|---:|---:|---:|\n");
    Map<String, Row> ordered = new LinkedHashMap<>();
    rows.forEach(r -> ordered.put(r.kind(), r));
    for (Row r : ordered.values()) {
      s.append(String.format(java.util.Locale.ROOT, "| %s | %,d | %,d | %.3f |%n", r.kind(), r.commands(), r.cycles(),
          total == 0 ? 0 : r.cycles() / (double) total));
    }
    s.append(String.format(java.util.Locale.ROOT, "| total | %,d | %,d | 1.000 |%n",
        rows.stream().mapToLong(Row::commands).sum(), total));
    return s.toString();
  }
}
