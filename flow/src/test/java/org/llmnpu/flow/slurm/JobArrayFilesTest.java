package org.llmnpu.flow.slurm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.llmnpu.flow.exec.PointTask;

/** The job script and command list, run by bash as a node would run them (no Slurm needed). */
class JobArrayFilesTest {
  @TempDir Path dir;

  @Test
  void everyArrayIndexRunsItsOwnCommandWithItsWordsIntactInItsDirectory() throws Exception {
    List<String> awkward = List.of("plain", "two words", "it's", "$HOME", "`date`", "back\\slash", "line\nbreak",
        "tab\there", "* ?", "ünïcode", "");
    List<PointTask> tasks = List.of(
        new PointTask("args", printsEachArgument(awkward), dir.resolve("out dir/args")),
        new PointTask("fails", List.of("sh", "-c", "pwd; echo oops >&2; exit 5"), dir.resolve("fails")));
    JobArrayFiles files = JobArrayFiles.write(dir.resolve("jobs"), tasks);
    assertEquals(2, Files.readAllLines(files.commands()).size());
    assertEquals(dir.resolve("jobs/array-1").toAbsolutePath(), files.dir());
    assertEquals(dir.resolve("jobs/array-2").toAbsolutePath(), JobArrayFiles.write(dir.resolve("jobs"), tasks).dir());

    assertEquals(0, runScript(files, 0));
    StringBuilder expected = new StringBuilder();
    awkward.forEach(a -> expected.append('[').append(a).append("]\n"));
    assertEquals(expected.toString(), Files.readString(dir.resolve("out dir/args/stdout.log")));
    assertEquals("0\n", Files.readString(dir.resolve("out dir/args/exit-code")));

    assertEquals(5, runScript(files, 1));
    assertEquals(dir.resolve("fails").toRealPath() + "\n", Files.readString(dir.resolve("fails/stdout.log")));
    assertEquals("oops\n", Files.readString(dir.resolve("fails/stderr.log")));
    assertEquals("5\n", Files.readString(dir.resolve("fails/exit-code")));
    assertTrue(Files.list(dir.resolve("fails")).noneMatch(p -> p.getFileName().toString().startsWith("exit-code.")));

    assertEquals(2, runScript(files, 2)); // no such line
  }

  @Test
  void wordsWithoutControlCharactersAreSingleQuoted() {
    assertEquals("'it'\\''s'", JobArrayFiles.shellWord("it's"));
    assertEquals("$'a\\nb\\\\c\\'d\\x01'", JobArrayFiles.shellWord("a\nb\\c'd\u0001"));
  }

  /** {@code sh -c} printing each of {@code args} in brackets, one a line. */
  private static List<String> printsEachArgument(List<String> args) {
    List<String> command = new ArrayList<>(List.of("sh", "-c", "for a in \"$@\"; do printf '[%s]\\n' \"$a\"; done",
        "sh"));
    command.addAll(args);
    return command;
  }

  private static int runScript(JobArrayFiles files, int index) throws Exception {
    ProcessBuilder pb = new ProcessBuilder("bash", files.script().toString()).redirectErrorStream(true);
    pb.environment().putAll(Map.of("SLURM_ARRAY_TASK_ID", String.valueOf(index), "SLURM_JOB_ID", "77"));
    Process p = pb.start();
    p.getInputStream().readAllBytes();
    return p.waitFor();
  }
}
