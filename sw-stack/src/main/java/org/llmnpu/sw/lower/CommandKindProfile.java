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
    Profiler sink = new Profiler(new CommandCostSink(p));
    lowering.emit(new int[tokens], pos0, false, sink);
    return sink.rows.values().stream().map(r -> new Row(r.kind, r.commands, r.cycles))
        .sorted(Comparator.comparingLong(Row::cycles).reversed().thenComparing(Row::kind)).toList();
  }

  private static final class Tally {
    final String kind;
    long commands;
    long cycles;

    Tally(String kind) {
      this.kind = kind;
    }
  }

  /** Charges each command the cycles it adds to the costed stream's end. */
  private static final class Profiler implements CommandSink {
    private final CommandCostSink cost;
    private final Map<String, Tally> rows = new TreeMap<>();
    private long last;

    Profiler(CommandCostSink cost) {
      this.cost = cost;
    }

    @Override
    public void command(Command c) {
      cost.command(c);
      charge(kind(c));
    }

    @Override
    public void dspRun(long address, DspProgram program) {
      cost.dspRun(address, program);
      charge("dsprun " + program.name().split("[ @\\[(]")[0]);
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
