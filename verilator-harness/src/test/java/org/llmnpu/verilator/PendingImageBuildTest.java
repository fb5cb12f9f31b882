package org.llmnpu.verilator;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Waiting for the image that scripts/test.sh builds in the background: until its marker goes, at most a limit. */
class PendingImageBuildTest {
  @TempDir
  Path tmp;

  @Test
  void noMarkerMeansNoWait() {
    long t0 = System.nanoTime();
    assertTrue(PendingImageBuild.await(tmp.resolve("building"), Duration.ofMinutes(1)));
    assertTrue(System.nanoTime() - t0 < 1_000_000_000L);
  }

  @Test
  void waitsUntilTheBuildRemovesItsMarker() throws Exception {
    Path marker = Files.createFile(tmp.resolve("building"));
    Thread build = new Thread(() -> {
      try {
        Thread.sleep(700);
        Files.delete(marker);
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    });
    long t0 = System.nanoTime();
    build.start();
    assertTrue(PendingImageBuild.await(marker, Duration.ofMinutes(1)));
    assertTrue(System.nanoTime() - t0 >= 600_000_000L, "returned before the marker went");
    build.join();
  }

  @Test
  void givesUpAfterTheLimit() throws Exception {
    Path marker = Files.createFile(tmp.resolve("building"));
    long t0 = System.nanoTime();
    assertFalse(PendingImageBuild.await(marker, Duration.ofMillis(500)));
    long waited = System.nanoTime() - t0;
    assertTrue(waited >= 500_000_000L && waited < 5_000_000_000L, waited + " ns");
  }
}
