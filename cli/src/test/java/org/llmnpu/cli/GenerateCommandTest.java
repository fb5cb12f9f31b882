package org.llmnpu.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class GenerateCommandTest {
  @TempDir
  Path dir;

  @Test
  void generateWritesVerilogFilelistAndParams() throws Exception {
    Path out = dir.resolve("fifo");
    assertEquals(0, NpuCommand.execute("generate", "fifo", "-p", "width=8", "-p", "depth=16", "-o", out.toString()));
    assertTrue(Files.exists(out.resolve("SyncFifo_w8_d16.v")));
    assertEquals("SyncFifo_w8_d16.v\n", Files.readString(out.resolve("SyncFifo_w8_d16.f")));
    String params = Files.readString(out.resolve("params.json"));
    assertTrue(params.contains("\"depth\" : 16"), params);
  }

  @Test
  void generateWritesTheTimingConstraintsAndAFuseSocCore() throws Exception {
    Path out = dir.resolve("fifo");
    assertEquals(0, NpuCommand.execute("generate", "fifo", "-p", "width=8", "-p", "depth=16", "-o", out.toString()));
    String sdc = Files.readString(out.resolve("SyncFifo_w8_d16.sdc"));
    assertTrue(sdc.contains("create_clock -name clk -period 5.75 [get_ports {clk}]\n"), sdc);
    assertTrue(sdc.contains("set_false_path -from [get_ports {reset}]\n"), sdc);
    assertTrue(sdc.contains("set_input_delay 0 -clock clk [get_ports {reset push_valid push_payload[*] pop_ready}]\n"),
        sdc);
    assertTrue(sdc.contains("set_output_delay 0 -clock clk [get_ports {push_ready pop_valid pop_payload[*] count[*]}]\n"),
        sdc);
    assertFalse(sdc.contains("{clk "), "the clock has no input delay: " + sdc);

    var yaml = new com.fasterxml.jackson.databind.ObjectMapper(new com.fasterxml.jackson.dataformat.yaml.YAMLFactory());
    var core = yaml.readTree(out.resolve("SyncFifo_w8_d16.core").toFile());
    assertTrue(Files.readString(out.resolve("SyncFifo_w8_d16.core")).startsWith("CAPI=2:\n"));
    assertEquals("llmnpu:blocks:SyncFifo_w8_d16:0", core.get("name").asText());
    assertEquals("SyncFifo_w8_d16.v", core.at("/filesets/rtl/files/0").asText());
    assertEquals("SDC", core.at("/filesets/constraints/file_type").asText());
    assertEquals("SyncFifo_w8_d16.sdc", core.at("/filesets/constraints/files/0").asText());
    assertEquals("SyncFifo_w8_d16", core.at("/targets/lint/toplevel").asText());
    assertEquals("verilator", core.at("/targets/lint/default_tool").asText());

    Path slow = dir.resolve("slow");
    assertEquals(0, NpuCommand.execute("generate", "fifo", "--clock-ns", "10", "-o", slow.toString()));
    assertTrue(Files.readString(slow.resolve("SyncFifo_w8_d16.sdc")).contains("-period 10 [get_ports {clk}]"));
    String err = runCapturingErr(2, "generate", "fifo", "--clock-ns", "0", "-o", dir.resolve("z").toString());
    assertTrue(err.contains("--clock-ns"), err);
    assertFalse(Files.exists(dir.resolve("z")));
  }

  @Test
  void outOfRangeValueExitsWithTwoNamingTheParameterAndWritesNothing() {
    Path out = dir.resolve("bad");
    String err = runCapturingErr(2, "generate", "fifo", "-p", "depth=15", "-o", out.toString());
    assertTrue(err.contains("'depth'") && err.contains("power of two in 2..65536"), err);
    assertEquals(1, err.strip().lines().count(), err);
    assertFalse(Files.exists(out));
  }

  @Test
  void unknownBlockAndParameterExitWithTwo() {
    String err = runCapturingErr(2, "generate", "fifoo", "-o", dir.resolve("x").toString());
    assertTrue(err.contains("unknown block 'fifoo'") && err.contains("fifo"), err);
    err = runCapturingErr(2, "generate", "fifo", "-p", "size=3", "-o", dir.resolve("x").toString());
    assertTrue(err.contains("unknown parameter 'size'") && err.contains("width, depth"), err);
    assertFalse(Files.exists(dir.resolve("x")));
  }

  @Test
  void configurationRuleBeyondTheRangeIsAlsoAUsageError() {
    String err = runCapturingErr(2, "generate", "regfile", "-p", "width=12", "-o", dir.resolve("r").toString());
    assertTrue(err.contains("width must be a multiple of 8"), err);
  }

  @Test
  void outputDirectoryRulesKeepTheUsersFiles() throws Exception {
    Path file = Files.writeString(dir.resolve("notes.txt"), "mine");
    assertTrue(runCapturingErr(2, "generate", "fifo", "-o", "").contains("-o"));
    assertTrue(runCapturingErr(2, "generate", "fifo", "-o", file.toString()).contains("is a file"));
    assertEquals("mine", Files.readString(file));
    Path project = Files.createDirectories(dir.resolve("project"));
    Files.writeString(project.resolve("README"), "keep");
    String err = runCapturingErr(2, "generate", "fifo", "-o", project.toString());
    assertTrue(err.contains("--force"), err);
    assertEquals(1, project.toFile().list().length, "nothing written without --force");
    assertEquals(0, NpuCommand.execute("generate", "fifo", "-o", project.toString(), "--force"));
    assertEquals("keep", Files.readString(project.resolve("README")));
    assertTrue(Files.exists(project.resolve("params.json")));
    // a second generation into the same directory replaces its own files, keeps the user's
    assertEquals(0, NpuCommand.execute("generate", "fifo", "-p", "depth=4", "-o", project.toString()));
    assertEquals("keep", Files.readString(project.resolve("README")));
    assertFalse(Files.exists(project.resolve("SyncFifo_w8_d16.v")), "stale Verilog of an earlier run is ours to remove");
    assertTrue(Files.exists(project.resolve("SyncFifo_w8_d4.v")));
  }

  @Test
  void repeatedParameterIsRefused() {
    String err = runCapturingErr(2, "generate", "fifo", "-p", "width=4", "-p", "width=16", "-o",
        dir.resolve("x").toString());
    assertTrue(err.contains("'width' is given twice"), err);
    assertFalse(Files.exists(dir.resolve("x")));
  }

  @Test
  void generatedFilesHonourTheUmask() throws Exception {
    Path probe = Files.writeString(dir.resolve("probe"), "x");
    Path out = dir.resolve("g");
    assertEquals(0, NpuCommand.execute("generate", "fifo", "-o", out.toString()));
    assertEquals(Files.getPosixFilePermissions(probe), Files.getPosixFilePermissions(out.resolve("params.json")));
    assertEquals(Files.getPosixFilePermissions(probe), Files.getPosixFilePermissions(out.resolve("SyncFifo_w8_d16.v")));
  }

  private static String runCapturingErr(int expectedExit, String... args) {
    PrintStream old = System.err;
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    System.setErr(new PrintStream(buf, true));
    try {
      assertEquals(expectedExit, NpuCommand.execute(args));
    } finally {
      System.setErr(old);
    }
    return buf.toString();
  }
}
