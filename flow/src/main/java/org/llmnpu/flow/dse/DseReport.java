package org.llmnpu.flow.dse;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.llmnpu.reports.JsonOutput;
import org.llmnpu.reports.OutputDirectory;

/**
 * Writes a sweep's report: {@code points.csv} and {@code pareto.json} (every point with its parameters, objectives,
 * status and full configuration; points in sweep order), {@code index.html} ({@link DseHtml}) and
 * {@code wall-times.csv}. The first three are byte-identical for identical inputs and results (no timestamps, no
 * wall times, no absolute paths); {@code wall-times.csv} holds each point's wall time of its last run and is not
 * deterministic. Every file is written atomically.
 *
 * <p>The front is computed over the sweep's objectives that every finished point measured (energy without a table
 * is measured nowhere and so left out, said in {@code frontObjectives}); failed points are never on it.
 */
public final class DseReport {
  private DseReport() {
  }

  /** The objectives the front is computed over: the sweep's objectives measured by every finished point. */
  static List<Objective> frontObjectives(SweepFile sweep, List<PointRecord> records) {
    List<Objective> out = new ArrayList<>();
    for (Objective o : sweep.objectives()) {
      boolean all = records.stream().filter(PointRecord::done).allMatch(r -> r.objective(o) != null);
      boolean any = records.stream().anyMatch(PointRecord::done);
      if (all && any) {
        out.add(o);
      }
    }
    return out;
  }

  /** The records with their front flags set. */
  static List<PointRecord> withFront(List<PointRecord> records, List<Objective> objectives) {
    List<Integer> done = new ArrayList<>();
    List<double[]> vectors = new ArrayList<>();
    for (int i = 0; i < records.size(); i++) {
      PointRecord r = records.get(i);
      if (r.done() && !objectives.isEmpty()) {
        done.add(i);
        vectors.add(objectives.stream().mapToDouble(o -> r.objective(o)).toArray());
      }
    }
    boolean[] on = Pareto.front(vectors);
    List<PointRecord> out = new ArrayList<>();
    records.forEach(r -> out.add(r.onFront(false)));
    for (int k = 0; k < done.size(); k++) {
      out.set(done.get(k), out.get(done.get(k)).onFront(on[k]));
    }
    return out;
  }

  /** Writes the four files into {@code dir}. */
  static void write(Path dir, SweepFile sweep, List<PointRecord> records, List<Objective> front) throws IOException {
    OutputDirectory.writeAtomically(dir.resolve("pareto.json"), JsonOutput.indented(json(sweep, records, front)) + "\n");
    OutputDirectory.writeAtomically(dir.resolve("points.csv"), csv(sweep, records));
    OutputDirectory.writeAtomically(dir.resolve("index.html"), DseHtml.page(sweep, records, front));
    StringBuilder walls = new StringBuilder("id,status,wallTimeS\n");
    records.forEach(r -> walls.append(r.point().id()).append(',').append(r.done() ? "done" : "failed").append(',')
        .append(r.wallTimeS() == null ? "" : r.wallTimeS()).append('\n'));
    OutputDirectory.writeAtomically(dir.resolve("wall-times.csv"), walls.toString());
  }

  static ObjectNode json(SweepFile sweep, List<PointRecord> records, List<Objective> front) {
    ObjectNode root = JsonOutput.object();
    root.put("sweep", sweep.name());
    root.put("model", sweep.model());
    root.put("evaluation", sweep.evaluation());
    root.put("nodeNm", sweep.nodeNm());
    root.put("synthesisClockNs", sweep.synthesisClockNs());
    root.put("energyTable", sweep.energyTable() == null ? null : sweep.energyTable().getFileName().toString());
    root.put("order", "cartesian product, the first parameter outermost, the last varying fastest");
    ArrayNode params = root.putArray("parameters");
    sweep.parameters().keySet().forEach(params::add);
    ArrayNode objectives = root.putArray("objectives");
    for (Objective o : sweep.objectives()) {
      objectives.addObject().put("key", o.key).put("label", o.label).put("unit", o.unit).put("minimize", true);
    }
    ArrayNode fo = root.putArray("frontObjectives");
    front.forEach(o -> fo.add(o.key));
    ArrayNode frontIds = root.putArray("front");
    records.stream().filter(PointRecord::onFront).forEach(r -> frontIds.add(r.point().id()));
    ArrayNode points = root.putArray("points");
    for (PointRecord r : records) {
      ObjectNode p = points.addObject();
      p.put("id", r.point().id());
      p.put("status", r.done() ? "done" : "failed");
      if (!r.done()) {
        p.put("cause", r.cause());
      }
      p.put("onFront", r.onFront());
      ObjectNode sw = p.putObject("parameters");
      r.swept().forEach(sw::put);
      if (r.result() != null) {
        p.set("objectives", r.result().get("objectives"));
        p.set("sources", r.result().get("sources"));
        p.set("details", r.result().get("details"));
      }
      p.set("configuration", JsonOutput.object().setAll(toTree(r.point().configuration())));
    }
    return root;
  }

  private static ObjectNode toTree(Map<String, Object> m) {
    return new com.fasterxml.jackson.databind.ObjectMapper().valueToTree(m);
  }

  static String csv(SweepFile sweep, List<PointRecord> records) {
    List<String> header = new ArrayList<>(List.of("id", "status", "onFront"));
    header.addAll(sweep.parameters().keySet());
    sweep.objectives().forEach(o -> header.add(o.key));
    List<String> configKeys = records.isEmpty() ? List.of()
        : new ArrayList<>(records.get(0).point().configuration().keySet());
    configKeys.forEach(k -> header.add("config." + k));
    header.add("cause");
    StringBuilder s = new StringBuilder(String.join(",", header)).append('\n');
    for (PointRecord r : records) {
      List<String> row = new ArrayList<>(List.of(r.point().id(), r.done() ? "done" : "failed",
          String.valueOf(r.onFront())));
      r.swept().values().forEach(row::add);
      sweep.objectives().forEach(o -> row.add(r.objective(o) == null ? "" : String.valueOf(r.objective(o))));
      Map<String, Object> config = r.point().configuration();
      configKeys.forEach(k -> row.add(config.get(k) == null ? "" : String.valueOf(config.get(k))));
      row.add(r.cause());
      s.append(String.join(",", row.stream().map(DseReport::csvField).toList())).append('\n');
    }
    return s.toString();
  }

  private static String csvField(String v) {
    return v.contains(",") || v.contains("\"") || v.contains("\n") ? "\"" + v.replace("\"", "\"\"") + "\"" : v;
  }
}
