package org.llmnpu.flow.exec;

import java.nio.file.Path;
import java.util.List;
import java.util.Objects;

/**
 * One independent unit of work of a sweep: a command line run as its own process, in its own output directory.
 *
 * <p>The task is done when {@link #resultFile()} exists: the command writes it last and atomically (a temporary file
 * moved into place), so a half-written result never counts. An executor that finds the result file already present
 * does not run the task again — that is how a rerun only runs the missing points.
 *
 * @param id a name unique within one run, used in progress lines and file names ({@code [A-Za-z0-9._-]+})
 * @param command the process to start (program and arguments); the same line works locally and on a Slurm node
 *     when both see the same install and cache directory
 * @param outDir the task's own directory; its standard output and error go to {@code outDir/stdout.log} and
 *     {@code outDir/stderr.log}
 */
public record PointTask(String id, List<String> command, Path outDir) {
  /** The name of the file whose presence marks the task as done. */
  public static final String RESULT_FILE = "result.json";

  public PointTask {
    Objects.requireNonNull(id, "id");
    if (!id.matches("[A-Za-z0-9._-]+")) {
      throw new IllegalArgumentException("task id must match [A-Za-z0-9._-]+, got '" + id + "'");
    }
    command = List.copyOf(command);
    if (command.isEmpty()) {
      throw new IllegalArgumentException("task " + id + ": empty command");
    }
    Objects.requireNonNull(outDir, "outDir");
  }

  /** The file the command writes last, atomically; its presence means the task is done. */
  public Path resultFile() {
    return outDir.resolve(RESULT_FILE);
  }
}
