package org.llmnpu.flow.slurm;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import org.llmnpu.flow.exec.PointTask;

/**
 * A task as the toolkit's own tasks are: a Java main on the toolkit's classpath that writes its result file
 * atomically in the working directory. Its argument becomes the result's value; the result also names the Java
 * version that ran it, so a test sees the task really ran under the JVM it was given.
 */
public final class WriteResultMain {
  private WriteResultMain() {
  }

  public static void main(String[] args) throws IOException {
    Path tmp = Path.of(PointTask.RESULT_FILE + ".tmp");
    Files.writeString(tmp, "{\"v\":" + Integer.parseInt(args[0]) + ",\"java\":\""
        + System.getProperty("java.specification.version") + "\"}\n");
    Files.move(tmp, Path.of(PointTask.RESULT_FILE), StandardCopyOption.ATOMIC_MOVE);
  }
}
