package org.llmnpu.verilator;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * The Verilator image that {@code scripts/test.sh} builds while the first modules compile and test: the script
 * names a marker file in {@code LLMNPU_IMAGE_BUILDING} and deletes it when the build has finished (whether it
 * succeeded or not). Until then, asking the engine for the image waits instead of finding it missing. Without
 * the variable, or once the marker is gone, nothing waits.
 */
final class PendingImageBuild {
  /** Longest wait: a cold build takes about 2 minutes, 3.5 when Docker itself is installed first. */
  static final Duration LIMIT = Duration.ofMinutes(15);

  private PendingImageBuild() {
  }

  /** Returns once no image build announced by {@code LLMNPU_IMAGE_BUILDING} is running (at most {@link #LIMIT}). */
  static void await() {
    String marker = System.getenv("LLMNPU_IMAGE_BUILDING");
    if (marker != null && !marker.isBlank()) {
      await(Path.of(marker), LIMIT);
    }
  }

  /** Returns once {@code marker} does not exist, or after {@code limit}; true if the marker is gone. */
  static boolean await(Path marker, Duration limit) {
    long deadline = System.nanoTime() + limit.toNanos();
    boolean told = false;
    while (Files.exists(marker)) {
      if (System.nanoTime() >= deadline) {
        return false;
      }
      if (!told) {
        System.err.println("waiting for the Verilator image that scripts/test.sh is building (" + marker + ")");
        told = true;
      }
      try {
        Thread.sleep(200);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return false;
      }
    }
    return true;
  }
}
