package org.llmnpu.reports;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Output never deletes what the toolkit did not write, and honours the umask. */
class OutputDirectoryTest {
  @TempDir
  Path tmp;

  @Test
  void emptyNameAndFileAreRefused() throws IOException {
    var e = assertThrows(OutputDirectory.Refused.class, () -> OutputDirectory.open("k", "-o", "", false));
    assertTrue(e.getMessage().contains("-o"), e.getMessage());
    assertThrows(OutputDirectory.Refused.class, () -> OutputDirectory.open("k", "-o", "  ", true));
    Path file = Files.writeString(tmp.resolve("a.txt"), "keep");
    e = assertThrows(OutputDirectory.Refused.class, () -> OutputDirectory.open("k", "-o", file.toString(), true));
    assertTrue(e.getMessage().contains("is a file"), e.getMessage());
    assertEquals("keep", Files.readString(file));
  }

  @Test
  void foreignNonEmptyDirectoryIsRefusedUnlessForcedAndThenKept() throws IOException {
    Path dir = Files.createDirectories(tmp.resolve("src"));
    Files.writeString(dir.resolve("Main.java"), "class Main {}");
    Files.createDirectories(dir.resolve(".git"));
    var e = assertThrows(OutputDirectory.Refused.class, () -> OutputDirectory.open("k", "-o", dir.toString(), false));
    assertTrue(e.getMessage().contains("--force"), e.getMessage());
    OutputDirectory out = OutputDirectory.open("k", "-o", dir.toString(), true);
    out.write("index.html", "<html/>");
    out.finish();
    assertEquals("class Main {}", Files.readString(dir.resolve("Main.java")));
    assertTrue(Files.isDirectory(dir.resolve(".git")));
    // now it holds the toolkit's list, so it is accepted without --force
    OutputDirectory again = OutputDirectory.open("k", "-o", dir.toString(), false);
    again.write("index.html", "<html>2</html>");
    again.finish();
    assertEquals("class Main {}", Files.readString(dir.resolve("Main.java")));
  }

  @Test
  void ownStaleFilesOfTheSameKindGoOthersStay() throws IOException {
    Path dir = tmp.resolve("gen");
    OutputDirectory a = OutputDirectory.open("verilog", "-o", dir.toString(), false);
    a.write("old.v", "module old; endmodule");
    a.write("top.f", "old.v");
    a.finish();
    Files.writeString(dir.resolve("user.txt"), "mine");
    OutputDirectory b = OutputDirectory.open("verilog", "-o", dir.toString(), false);
    b.write("new.v", "module new; endmodule");
    b.write("top.f", "new.v");
    b.finish();
    assertFalse(Files.exists(dir.resolve("old.v")));
    assertTrue(Files.exists(dir.resolve("new.v")));
    assertEquals("mine", Files.readString(dir.resolve("user.txt")));
  }

  @Test
  void filesAndDirectoriesHonourTheUmask() throws Exception {
    Path probe = Files.writeString(tmp.resolve("probe"), "x"); // what plain Java gives under this umask
    Set<PosixFilePermission> expected = Files.getPosixFilePermissions(probe);
    Path probeDir = Files.createDirectories(tmp.resolve("probe-dir"));
    OutputDirectory out = OutputDirectory.open("k", "-o", tmp.resolve("r/s").toString(), false);
    out.write("index.html", "x");
    out.finish();
    assertEquals(expected, Files.getPosixFilePermissions(tmp.resolve("r/s/index.html")));
    assertEquals(Files.getPosixFilePermissions(probeDir), Files.getPosixFilePermissions(tmp.resolve("r/s")));
    try (var l = Files.list(tmp.resolve("r/s"))) {
      assertEquals(2, l.count(), "no temporary files left");
    }
  }

  @Test
  void pathsOutsideTheDirectoryAreNotOwnNames() {
    OutputDirectory out = OutputDirectory.open("k", "-o", tmp.resolve("x").toString(), false);
    assertThrows(IllegalArgumentException.class, () -> out.write("../escape", "x"));
    assertThrows(IllegalArgumentException.class, () -> out.write(OutputDirectory.MARKER, "x"));
  }
}
