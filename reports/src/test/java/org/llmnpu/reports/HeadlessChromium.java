package org.llmnpu.reports;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.llmnpu.reports.ppa.ContentCache;

/** Runs Debian's {@code chromium} headless on a local file: a PNG screenshot or the rendered DOM. */
public final class HeadlessChromium {
  private HeadlessChromium() {
  }

  /** Renders {@code html} to {@code png} at 1200 x 900 pixels. */
  public static void screenshot(Path html, Path png) throws IOException, InterruptedException {
    run(List.of("--screenshot=" + png.toAbsolutePath(), "--window-size=1200,900", html.toUri().toString()));
    if (!Files.exists(png)) {
      throw new IOException("chromium wrote no screenshot to " + png);
    }
  }

  /** The DOM after Chromium parsed and laid out the page. */
  public static String dumpDom(Path html) throws IOException, InterruptedException {
    return run(List.of("--dump-dom", html.toUri().toString()));
  }

  private static String run(List<String> args) throws IOException, InterruptedException {
    Path profile = Files.createTempDirectory("llmnpu-chromium-");
    try {
      List<String> cmd = new ArrayList<>(List.of("chromium", "--headless", "--no-sandbox", "--disable-gpu",
          "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update",
          "--disable-sync", "--user-data-dir=" + profile));
      cmd.addAll(args);
      Path out = Files.createTempFile("llmnpu-chromium-", ".out");
      Path err = Files.createTempFile("llmnpu-chromium-", ".err");
      Process p = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
      if (!p.waitFor(120, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new IOException("chromium did not finish in 120 s");
      }
      String stdout = Files.readString(out, StandardCharsets.UTF_8);
      String stderr = Files.readString(err, StandardCharsets.UTF_8);
      Files.delete(out);
      Files.delete(err);
      if (p.exitValue() != 0) {
        throw new IOException("chromium exited with " + p.exitValue() + ": " + stderr);
      }
      return stdout;
    } finally {
      ContentCache.deleteTree(profile);
    }
  }
}
