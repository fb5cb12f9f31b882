package org.llmnpu.verilator;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** Writes a build's sources to a directory; deletes directories. */
final class Sources {
  private Sources() {
  }

  static void write(BuildInputs in, Path dir) throws IOException {
    for (var e : in.files().entrySet()) {
      Files.writeString(dir.resolve(e.getKey()), e.getValue());
    }
    Files.writeString(dir.resolve("harness.cpp"), in.harness());
  }

  static void deleteTree(Path dir) {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> s = Files.walk(dir)) {
      s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      // best effort: a leftover temporary directory does not affect results
    }
  }
}
