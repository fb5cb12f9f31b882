package org.llmnpu.flow.slurm;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import org.llmnpu.flow.exec.PointTask;

/**
 * The files of one submitted job array, in their own directory under the job directory (visible to the nodes):
 * {@code commands.txt}, line {@code i + 1} of which is array task {@code i}'s output directory and command as
 * shell words; {@code job.sh}, the batch script every array task runs; and Slurm's own log of each array task
 * ({@code slurm-<array>_<index>.out}: what the script itself printed, e.g. a directory it could not enter).
 *
 * <p>The script picks its line by {@code SLURM_ARRAY_TASK_ID}, enters the task's output directory, runs the
 * command with its standard output and error appended to {@code stdout.log} and {@code stderr.log} (as the local
 * executor does), and writes the command's exit code to {@code exit-code} (a temporary file moved into place).
 * It runs under {@code bash}.
 */
final class JobArrayFiles {
  /** The file each array task writes its command's exit code to, in the task's output directory. */
  static final String EXIT_CODE_FILE = "exit-code";

  private final Path dir;

  private JobArrayFiles(Path dir) {
    this.dir = dir;
  }

  /** Creates {@code jobDir/array-<k>} (the first free {@code k}) with the command list and the script. */
  static JobArrayFiles write(Path jobDir, List<PointTask> tasks) throws IOException {
    Files.createDirectories(jobDir);
    Path dir;
    for (int k = 1; ; k++) {
      try {
        dir = Files.createDirectory(jobDir.resolve("array-" + k));
        break;
      } catch (FileAlreadyExistsException e) {
        // taken by an earlier submission; try the next number
      }
    }
    JobArrayFiles files = new JobArrayFiles(dir.toAbsolutePath());
    List<String> lines = new ArrayList<>();
    for (PointTask t : tasks) {
      lines.add(commandLine(t));
    }
    writeAtomically(files.commands(), String.join("\n", lines) + "\n");
    writeAtomically(files.script(), script(files.commands()));
    Files.setPosixFilePermissions(files.script(), PosixFilePermissions.fromString("rwxr-xr-x"));
    return files;
  }

  Path dir() {
    return dir;
  }

  Path commands() {
    return dir.resolve("commands.txt");
  }

  Path script() {
    return dir.resolve("job.sh");
  }

  /** Slurm's output pattern for the array tasks' own logs ({@code %A} array job id, {@code %a} index). */
  Path slurmLogPattern() {
    return dir.resolve("slurm-%A_%a.out");
  }

  Path slurmLog(String arrayJobId, int index) {
    return dir.resolve("slurm-" + arrayJobId + "_" + index + ".out");
  }

  /** One line of the command list: the task's absolute output directory, then its command, as shell words. */
  static String commandLine(PointTask t) {
    StringBuilder b = new StringBuilder(shellWord(t.outDir().toAbsolutePath().toString()));
    for (String word : t.command()) {
      b.append(' ').append(shellWord(word));
    }
    return b.toString();
  }

  /**
   * One word quoted for bash: in single quotes, or as {@code $'...'} when it holds control characters (a newline
   * must not split the command list's lines).
   */
  static String shellWord(String s) {
    if (s.chars().noneMatch(c -> c < 0x20 || c == 0x7f)) {
      return "'" + s.replace("'", "'\\''") + "'";
    }
    StringBuilder b = new StringBuilder("$'");
    for (char c : s.toCharArray()) {
      switch (c) {
        case '\\' -> b.append("\\\\");
        case '\'' -> b.append("\\'");
        case '\n' -> b.append("\\n");
        case '\r' -> b.append("\\r");
        case '\t' -> b.append("\\t");
        default -> {
          if (c < 0x20 || c == 0x7f) {
            b.append(String.format("\\x%02x", (int) c));
          } else {
            b.append(c);
          }
        }
      }
    }
    return b.append('\'').toString();
  }

  private static String script(Path commands) {
    return """
        #!/bin/bash
        # Written by the flow's SlurmExecutor: array task i runs line i+1 of the command list in its output
        # directory, logs appended to stdout.log and stderr.log, its exit code written to %2$s.
        set -u
        list=%1$s
        line="$(sed -n "$((SLURM_ARRAY_TASK_ID + 1))p" "$list")"
        if [ -z "$line" ]; then
          echo "job.sh: no line $((SLURM_ARRAY_TASK_ID + 1)) in $list" >&2
          exit 2
        fi
        eval "set -- $line"
        dir="$1"
        shift
        mkdir -p "$dir" && cd "$dir" || { echo "job.sh: cannot enter $dir on $(hostname)" >&2; exit 2; }
        "$@" >> stdout.log 2>> stderr.log
        code=$?
        echo "$code" > "%2$s.$SLURM_JOB_ID" && mv -f "%2$s.$SLURM_JOB_ID" %2$s
        exit "$code"
        """.formatted(shellWord(commands.toString()), EXIT_CODE_FILE);
  }

  private static void writeAtomically(Path file, String text) throws IOException {
    Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
    Files.writeString(tmp, text, StandardCharsets.UTF_8);
    Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
  }
}
