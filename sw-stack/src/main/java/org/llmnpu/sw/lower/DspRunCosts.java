package org.llmnpu.sw.lower;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.llmnpu.isa.Counter;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.isa.dsp.DspProgram;

/**
 * The DSP runs of {@link CommandCosts}' accounting: each {@code dsprun} (or {@code dspld} and resident run) costed as
 * the lowering's command stream issues it — plain, joined with the runs after it ({@link #chainRuns},
 * {@link DspChain}) or kept in the program memory ({@link #residency}, known by the identity the lowering's program
 * has: {@link #sharedRuns}, {@link DspRunForms}).
 *
 * <p>DSP programs depend on shapes only, and a step runs the same few thousand of them again and again (every
 * layer, every token): each is compiled once per key and its size, cycles and issued instructions kept.
 */
abstract class DspRunCosts extends CommandCosts {
  private final Map<Object, List<long[]>> compiled = new HashMap<>();
  /** The programs behind each key of {@link #compiled}, for joined runs. */
  private final Map<Object, List<DspProgram>> compiledPrograms = new HashMap<>();
  private final Map<DspProgram, long[]> joinedCosts = new HashMap<>();
  /** Consecutive runs joined as the lowering's command stream joins them at {@code --fusion full} ({@link DspChain}). */
  boolean chainRuns;
  /** Resident programs as the lowering's command stream keeps them at {@code --fusion full} (null: plain runs). */
  DspResidency residency;
  private final List<DspProgram> pendingRuns = new java.util.ArrayList<>();
  /** Whether each held run is {@link #sharedRuns}, in order. */
  private final List<Boolean> pendingShared = new java.util.ArrayList<>();
  /** Whether each held run is on the lowering's rows ({@link #layoutRows}), in order. */
  private final List<Boolean> pendingLayoutRows = new java.util.ArrayList<>();
  /**
   * Whether the runs issued now are the lowering's own programs, on its DSP rows (the tiled QKV post's,
   * {@link QkvPostWalk}): such a run is rewritten as the lowering's stream rewrites it, by a {@link DspRunForms} per
   * block ({@link #layoutForms}), so which of them run resident is the lowering's exactly (two tiles' runs that are the
   * same program run resident, as in the lowering).
   */
  boolean layoutRows;
  /** The rewritings of the {@link #layoutRows} runs, one per token block in flight (as {@link CommandStream}'s). */
  private DspRunForms[] layoutForms;
  /**
   * Whether the runs issued now are, rewritten for run parameters ({@link DspRunParameterizer}), the same program for
   * every token and head, as the lowering's are (true: a run is known by its rewritten program, and one intact in the
   * program memory runs resident, {@link #residency}); false (the default): each run is its own program, as the
   * lowering's are where the buffer rows of a token or head move in ways the four row bases do not follow.
   */
  boolean sharedRuns;
  /** The runs' forms ({@link DspRunForms#form}) by their instructions, and the forms run in this layer. */
  private final Map<List<org.llmnpu.isa.dsp.DspInstruction>, Object> forms = new HashMap<>();
  /**
   * The shapes ({@link DspRunForms#shape}: a form with its constants cleared) of the forms a block ran again in one
   * layer, per block ({@link #laneShapes}): the lowering learned what moves in them ({@link DspRunForms}: kept by shape
   * from layer to layer), so from then on the first run of any form of that shape in a layer (a later layer's, whose
   * constants are its own, or another form of the shape in this layer) is the form's shared program; a shape run once a
   * layer keeps its plain program.
   */
  private final java.util.Set<Object> shapesMoving = new java.util.HashSet<>();
  /** The forms run in the layer now. */
  private final java.util.Set<Object> formsInLayer = new java.util.HashSet<>();
  /** The forms' first runs in the step by their instructions ({@link #formIdentity}): one program in both blocks. */
  private final Map<Object, Object> firstRuns = new HashMap<>();
  /** The forms, each once ({@link #forms}' values). */
  private final Map<Object, Object> canonicalForms = new HashMap<>();
  /** Each form's identity in each block ({@link #formIdentity}), by the form (one object per form, {@link #forms}). */
  private final Map<Object, Object[]> laneForms = new java.util.IdentityHashMap<>();
  /** Each form's shape's identity in each block ({@link #shapesMoving}), by the form. */
  private final Map<Object, Object[]> laneShapes = new java.util.IdentityHashMap<>();
  /** The shapes, each once, for {@link #laneShapes}. */
  private final Map<Object, Object[]> shapes = new HashMap<>();
  /** The token block whose runs are costed now (0, or 1 for a second block in flight). */
  int runLane;
  /** The programs rewritten for run parameters ({@link #identity}), by the original's instructions. */
  private final Map<List<org.llmnpu.isa.dsp.DspInstruction>, Object> rewritten = new HashMap<>();
  /** The operator of the held runs ({@link #pendingRuns}): they are charged to it when they are issued. */
  private String pendingOperator;

  /** Where {@link #recordDspRuns} records the runs costed (null: nowhere). */
  private Map<String, Map<DspProgram, Long>> recordedRuns;

  DspRunCosts(MachineParams p) {
    super(p);
  }

  /**
   * From now on, every {@code dsprun} costed (plain, joined or resident: the program the run executes) counted into
   * {@code runs} by profile operator and program, in the order first run; {@code null} stops. What a
   * {@link PhaseCostModel#profile}'s DSP rows are made of: each program's cycles and instructions a run
   * ({@link DspProgram#cycles}, {@link DspProgram#issued}) times its runs.
   */
  public final void recordDspRuns(Map<String, Map<DspProgram, Long>> runs) {
    recordedRuns = runs;
  }

  /** The programs {@code compile} gives, compiled the first time {@code key} is asked for: {size, cycles, issued}. */
  final List<long[]> programs(Object key, Supplier<List<DspProgram>> compile) {
    return compiled.computeIfAbsent(key, k -> {
      List<DspProgram> programs = compile.get();
      compiledPrograms.put(k, programs);
      return programs.stream().map(this::summary).toList();
    });
  }

  /** The programs of {@code key} ({@link #programs}) themselves. */
  final List<DspProgram> compiledPrograms(Object key, Supplier<List<DspProgram>> compile) {
    programs(key, compile);
    return compiledPrograms.get(key);
  }

  private long[] summary(DspProgram program) {
    return new long[] {program.size(), program.cycles(p.dsp().pipeline()), program.issued()};
  }

  /** One program, compiled once per {@code key}. */
  final void run(Object key, Supplier<DspProgram> compile) {
    runAll(key, () -> List.of(compile.get()));
  }

  /** The programs of {@code key} ({@link #programs}), each a {@code dsprun}, or held to be joined. */
  final void runAll(Object key, Supplier<List<DspProgram>> compile) {
    List<long[]> summaries = programs(key, compile);
    if (chainRuns) {
      if (pendingRuns.isEmpty()) {
        pendingOperator = operator();
      }
      for (DspProgram program : compiledPrograms.get(key)) {
        pendingRuns.add(program);
        pendingShared.add(sharedRuns);
        pendingLayoutRows.add(layoutRows);
      }
    } else {
      flushRuns();
      List<DspProgram> programs = compiledPrograms.get(key);
      for (int i = 0; i < summaries.size(); i++) {
        DspProgram program = programs.get(i);
        costRun(program, summaries.get(i), sharedRuns ? identity(program) : runIdentity(program, layoutRows));
      }
    }
  }

  /**
   * The programs of {@code key} ({@link #programs}) as {@link CommandStream#dspRunPinned} runs them: after the held
   * runs, joined, kept in the program memory (a {@code dspld} the first time in a layer, then resident).
   */
  final void runPinned(Object key, Supplier<List<DspProgram>> compile) {
    programs(key, compile);
    flushRuns();
    List<DspProgram> parts = compiledPrograms.get(key);
    DspProgram run = parts.size() == 1 ? parts.get(0) : DspChain.join(parts);
    costRun(run, joinedCosts.computeIfAbsent(run, this::summary), identity(run), true);
  }

  /**
   * A shared run's identity for {@link #residency}: the instructions of its program rewritten for run parameters, as
   * the lowering's stream keys its residency ({@link CommandStream}, {@link DspRunParameterizer}).
   */
  private Object identity(DspProgram program) {
    if (residency == null) {
      return program;
    }
    return rewritten.computeIfAbsent(program.instructions(),
        code -> DspRunParameterizer.of(program, p.dsp().rows()).program().instructions());
  }

  /**
   * The identity of a run not shared by {@link DspRunParameterizer}'s rule: on the lowering's rows ({@code rows},
   * {@link #layoutRows}) its program rewritten as {@link CommandStream} rewrites it, else {@link #formIdentity}.
   */
  private Object runIdentity(DspProgram run, boolean rows) {
    if (!rows || residency == null) {
      return formIdentity(run);
    }
    if (layoutForms == null) {
      layoutForms = new DspRunForms[] {new DspRunForms(p.dsp().rows()), new DspRunForms(p.dsp().rows())};
    }
    return layoutForms[runLane].rewrite(run, q -> residency.intact(q.instructions())).program().instructions();
  }

  /**
   * A run not shared by {@link DspRunParameterizer}'s rule, known as the lowering's stream knows it
   * ({@link DspRunForms}): its own program the first time its form comes in the step, then the form's one program (in
   * a later layer too: the lowering rewrites a layer's first run of a form as the layer before's later ones).
   */
  private Object formIdentity(DspProgram run) {
    if (residency == null) {
      return new Object();
    }
    // one object per form (equal forms of other instructions too), so that laneForms may know it by identity
    Object form = forms.computeIfAbsent(run.instructions(),
        code -> canonicalForms.computeIfAbsent(DspRunForms.form(run), f -> f));
    // per token block in flight (CommandStream#lane): a block's first run of the form is its plain rewriting, one
    // program in both blocks where their first runs are the same program (not where, say, their lengths differ); its
    // later ones keep the rows that do not move from token to token, which are the block's own
    Object identity = laneForms.computeIfAbsent(form, f -> new Object[] {new Object(), new Object()})[runLane];
    @SuppressWarnings("unchecked")
    Object shape = laneShapes.computeIfAbsent(form, f -> shapes.computeIfAbsent(
        DspRunForms.shape((List<org.llmnpu.isa.dsp.DspInstruction>) f), s -> new Object[] {new Object(), new Object()}))[runLane];
    if (!formsInLayer.add(identity)) {
      shapesMoving.add(shape);
    }
    return shapesMoving.contains(shape) ? identity : firstRuns.computeIfAbsent(run.instructions(), f -> new Object());
  }

  /**
   * A run of {@code run} ({size, cycles, issued}) known by {@code identity}: a plain {@code dsprun}, or resident as
   * {@link CommandStream}.
   */
  private void costRun(DspProgram run, long[] program, Object identity) {
    costRun(run, program, identity, false);
  }

  /** As above; {@code pin}: a run the stream keeps in the program memory ({@link DspResidency#pin}). */
  private void costRun(DspProgram run, long[] program, Object identity, boolean pin) {
    long beats = (8L * program[0] + line - 1) / line;
    DspResidency.Use use = residency == null ? DspResidency.Use.PLAIN
        : pin ? residency.pin(identity, run) : residency.use(identity, run);
    if (use.plain()) {
      costRun(run, -1, () -> {
        issue(false, "dsprun");
        add(Counter.EXT_READ_BEATS, beats);
        add(Counter.DSP_INSTRUCTIONS, program[2]);
        cm.dspRun(beats, program[1]);
      });
      return;
    }
    if (use.load()) {
      Runnable load = () -> {
        issue(false, "dspld");
        add(Counter.EXT_READ_BEATS, beats);
        cm.dspLoad(beats);
      };
      order.programLoad(use.entry(), run.size(), held(load));
    }
    costRun(run, use.entry(), () -> {
      issueResidentRun();
      add(Counter.DSP_INSTRUCTIONS, program[2]);
      cm.dspRun(0, program[1]);
    });
  }

  /** A run of {@code run} (plain: {@code entry} −1), costed in {@link #order}. */
  private void costRun(DspProgram run, int entry, Runnable cost) {
    if (recordedRuns != null) {
      recordedRuns.computeIfAbsent(operator(), k -> new java.util.LinkedHashMap<>()).merge(run, 1L, Long::sum);
    }
    order.run(operator(), run, entry, held(cost));
  }

  /**
   * A layer starts: the held runs go, and (as the lowering's stream) the resident placements are forgotten (not in a
   * window across layers, {@link #acrossLayers}: they stay, as the program memory does); the forms seen are kept (the
   * lowering's {@link DspRunForms} keeps what moves in each form from layer to layer).
   */
  final void layerStarts() {
    flushRuns();
    boundary();
    formsInLayer.clear();
    if (layoutForms != null) {
      // as CommandStream#layerStart: the layer's references are its own
      layoutForms[0].clear();
      layoutForms[1].clear();
    }
    if (residency != null && !acrossLayers) {
      residency.clear();
    }
  }

  /**
   * Whether a layer boundary is a marker in the interleaver's window rather than its end (two blocks in flight,
   * {@link DecoderLowering#acrossLayers}).
   */
  boolean acrossLayers;

  /** A layer boundary: the window's end, or, in a window across layers, a marker in it ({@link CostOrder#marker}). */
  private void boundary() {
    if (acrossLayers) {
      order.marker(() -> { });
    } else {
      order.flush();
    }
  }

  /** The commands from now on are token block {@code lane}'s (two blocks in flight: 1 for the second). */
  final void lane(int lane) {
    orderLane(lane);
    if (residency != null) {
      residency.secondLane(lane == 1);
    }
  }

  /**
   * As {@link #lane}, but its runs load as before ({@link CommandStream#lane}: a block's constants, its LM head): the
   * held runs go as the previous block's, the order ({@link CostOrder#lane}), the run identities ({@link #runLane}) and
   * the result buffers ({@link #laneTags}) are the block's from here.
   */
  final void orderLane(int lane) {
    flushRuns();
    order.lane(lane);
    runLane = lane;
    laneTags = lane * LANE_TAGS;
  }

  /** A layer ends: the held runs go, and the interleaver's window with them (as the lowering's layer end). */
  final void layerEnds() {
    flushRuns();
    boundary();
  }

  /** The held runs as the lowering joins them ({@link DspChain}). */
  @Override
  final void flushRuns() {
    if (pendingRuns.isEmpty()) {
      return;
    }
    List<List<DspProgram>> groups = DspChain.groups(pendingRuns, p.dsp().programDepth());
    String current = operator();
    operator(pendingOperator);
    int part = 0;
    for (List<DspProgram> parts : groups) {
      // a joined run is the same program again only if every part is
      boolean shared = !pendingShared.subList(part, part + parts.size()).contains(false);
      boolean rows = !pendingLayoutRows.subList(part, part + parts.size()).contains(false);
      part += parts.size();
      DspProgram run = parts.size() == 1 ? parts.get(0) : DspChain.join(parts);
      costRun(run, joinedCosts.computeIfAbsent(run, this::summary), shared ? identity(run) : runIdentity(run, rows));
    }
    pendingRuns.clear();
    pendingShared.clear();
    pendingLayoutRows.clear();
    operator(current);
  }

  @Override
  final void clearRuns() {
    pendingRuns.clear();
    pendingShared.clear();
    pendingLayoutRows.clear();
    layoutForms = null;
    if (residency != null) {
      residency.clear();
    }
    shapesMoving.clear();
    formsInLayer.clear();
    firstRuns.clear();
  }
}
