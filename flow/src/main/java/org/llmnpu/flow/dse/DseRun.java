package org.llmnpu.flow.dse;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.llmnpu.flow.exec.PointExecutor;
import org.llmnpu.flow.exec.PointOutcome;
import org.llmnpu.flow.exec.PointTask;
import org.llmnpu.reports.JsonOutput;
import org.llmnpu.reports.OutputDirectory;
import org.llmnpu.rtl.npu.NpuParameter;

/**
 * Runs a sweep: writes each point's inputs to {@code DIR/points/<id>/} ({@code point.json} and the NPU's
 * {@code npu.yaml}), hands one task per point to the executor (the task's command starts {@link PointMain}), then
 * reads every {@code result.json} and writes the report ({@link DseReport}). Points whose result already exists are
 * not run again (the executors' contract), so a rerun into the same directory only runs the missing or failed ones;
 * a point's id covers everything its result depends on, so a changed sweep never reuses a stale result.
 *
 * <p>Tasks go to the executor with the points of distinct RTL configurations first (each synthesis starts as early
 * as possible; points sharing an RTL configuration then find its synthesis in the cache); the report keeps the
 * sweep's order.
 */
public final class DseRun {
  /** The subdirectory of the points. */
  public static final String POINTS = "points";

  /** The outcome of a sweep: each point's record in sweep order and the report's directory. */
  public record Summary(List<String> done, List<String> failed, Path dir) {
  }

  private DseRun() {
  }

  /**
   * Runs {@code sweep} into {@code dir}.
   *
   * @param java the command that starts a JVM on the toolkit's classes (e.g. {@link #javaCommand()}); the point's
   *     main class and arguments are appended
   */
  public static Summary run(SweepFile sweep, Path dir, PointExecutor executor, int maxAttempts, List<String> java,
      PrintStream log) throws IOException, InterruptedException {
    List<SweepPoint> points = SweepPoints.of(sweep);
    Files.createDirectories(dir.resolve(POINTS));
    Map<String, PointTask> tasks = new LinkedHashMap<>();
    for (SweepPoint p : points) {
      Path pdir = dir.resolve(POINTS).resolve(p.id()).toAbsolutePath();
      Files.createDirectories(pdir);
      OutputDirectory.writeAtomically(pdir.resolve("npu.yaml"), p.npuYaml());
      OutputDirectory.writeAtomically(pdir.resolve("point.json"), JsonOutput.indented(pointJson(sweep, p)) + "\n");
      List<String> command = new ArrayList<>(java);
      command.addAll(List.of(PointMain.class.getName(), pdir.resolve("point.json").toString(), pdir.toString()));
      tasks.put(p.id(), new PointTask(p.id(), command, pdir));
    }
    long already = tasks.values().stream().filter(t -> Files.exists(t.resultFile())).count();
    log.printf("dse: %d points, %d already done, running %d with the %s executor%n", points.size(), already,
        points.size() - already, executor.name());
    Map<String, PointOutcome> outcomes = new HashMap<>();
    for (PointOutcome o : executor.run(synthesesFirst(points, tasks), maxAttempts)) {
      outcomes.put(o.id(), o);
    }
    ObjectMapper json = new ObjectMapper();
    List<PointRecord> records = new ArrayList<>();
    for (SweepPoint p : points) {
      PointTask t = tasks.get(p.id());
      PointOutcome o = outcomes.get(p.id());
      if (Files.exists(t.resultFile())) {
        JsonNode result = json.readTree(t.resultFile().toFile());
        records.add(new PointRecord(p, true, "", result, false));
      } else {
        records.add(new PointRecord(p, false, o == null ? "not run" : o.failure(), null, false));
      }
    }
    List<Objective> front = DseReport.frontObjectives(sweep, records);
    records = DseReport.withFront(records, front);
    DseReport.write(dir, sweep, records, front);
    return new Summary(records.stream().filter(PointRecord::done).map(r -> r.point().id()).toList(),
        records.stream().filter(r -> !r.done()).map(r -> r.point().id()).toList(), dir);
  }

  /** The tasks with the first point of each distinct RTL configuration first, then the rest, each in sweep order. */
  static List<PointTask> synthesesFirst(List<SweepPoint> points, Map<String, PointTask> tasks) {
    List<PointTask> first = new ArrayList<>();
    List<PointTask> rest = new ArrayList<>();
    Set<Map<String, String>> seen = new HashSet<>();
    for (SweepPoint p : points) {
      (seen.add(NpuParameter.valuesOf(p.target().npu(), true)) ? first : rest).add(tasks.get(p.id()));
    }
    first.addAll(rest);
    return first;
  }

  /** What {@link PointMain} reads. */
  static Map<String, Object> pointJson(SweepFile sweep, SweepPoint p) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("id", p.id());
    m.put("swept", p.swept());
    m.put("model", sweep.model());
    m.put("preset", sweep.preset());
    m.put("npuConfig", "npu.yaml");
    m.put("workload", p.workload().asMap());
    m.put("evaluation", sweep.evaluation());
    m.put("nodeNm", sweep.nodeNm());
    m.put("synthesisClockNs", sweep.synthesisClockNs());
    m.put("energyTable", sweep.energyTable() == null ? null : sweep.energyTable().toAbsolutePath().toString());
    m.put("objectives", sweep.objectives().stream().map(o -> o.key).toList());
    m.put("configuration", p.configuration());
    return m;
  }

  /**
   * The command that starts a JVM on this JVM's classes: its {@code java} with its class path (made absolute) and, when
   * set, the PPA
   * cache's location ({@code llmnpu.ppa.cache}). On a Slurm node the same line works when the install and the cache
   * are on a shared directory.
   */
  public static List<String> javaCommand() {
    List<String> c = new ArrayList<>();
    c.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    String cache = System.getProperty("llmnpu.ppa.cache");
    if (cache != null && !cache.isBlank()) {
      c.add("-Dllmnpu.ppa.cache=" + cache);
    }
    c.add("-cp");
    // absolute: the point's process starts in its own directory
    c.add(java.util.Arrays.stream(System.getProperty("java.class.path").split(java.io.File.pathSeparator))
        .map(e -> Path.of(e).toAbsolutePath().normalize().toString())
        .collect(java.util.stream.Collectors.joining(java.io.File.pathSeparator)));
    return c;
  }
}
