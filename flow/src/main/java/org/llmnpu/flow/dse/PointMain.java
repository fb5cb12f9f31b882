package org.llmnpu.flow.dse;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import org.llmnpu.flow.exec.PointTask;
import org.llmnpu.reports.JsonOutput;
import org.llmnpu.reports.OutputDirectory;

/**
 * The process of one sweep point, as an executor starts it ({@code java -cp <toolkit> org.llmnpu.flow.dse.PointMain
 * point.json outDir}, the same line locally and on a Slurm node): evaluates the point ({@link PointEvaluation}) and
 * writes {@code outDir/result.json} last and atomically, with the point's configuration, objectives, each
 * objective's source and {@code wallTimeS} (the one field that differs between identical runs). Exit status 0 when
 * the result is written, 2 for a point the toolkit refuses (message on standard error), 1 for any other failure.
 */
public final class PointMain {
  private PointMain() {
  }

  public static void main(String[] args) {
    if (args.length != 2) {
      System.err.println("usage: PointMain point.json outDir");
      System.exit(2);
    }
    long t0 = System.nanoTime();
    Path dir = Path.of(args[0]).toAbsolutePath().getParent();
    String id = dir == null || dir.getFileName() == null ? args[0] : dir.getFileName().toString();
    try {
      Path pointFile = Path.of(args[0]).toAbsolutePath();
      JsonNode point = new ObjectMapper().readTree(pointFile.toFile());
      Map<String, Object> result = PointEvaluation.evaluate(point, pointFile.getParent());
      result.put("wallTimeS", Double.parseDouble(String.format(Locale.ROOT, "%.3f", (System.nanoTime() - t0) / 1e9)));
      Path out = Path.of(args[1]);
      Files.createDirectories(out);
      OutputDirectory.writeAtomically(out.resolve(PointTask.RESULT_FILE), JsonOutput.indented(result) + "\n");
      System.exit(0);
    } catch (IllegalArgumentException e) {
      System.err.println("point " + id + ": " + e.getMessage());
      System.exit(2);
    } catch (Exception | Error e) {
      e.printStackTrace();
      System.err.println("point " + id + ": " + e);
      System.exit(1);
    }
  }
}
