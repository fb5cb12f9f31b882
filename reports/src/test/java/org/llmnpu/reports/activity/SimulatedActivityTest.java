package org.llmnpu.reports.activity;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Toggle counts, duty and cycles from a VCD, on a file written by hand. */
class SimulatedActivityTest {
  private static final String VCD = """
      $timescale 1ps $end
       $scope module TOP $end
        $var wire  1 ' clk $end
        $var wire  4 % value [3:0] $end
        $scope module Top_x $end
         $var wire  1 ' clk $end
         $var wire  4 % value [3:0] $end
         $scope module sub $end
          $var wire  2 ( q [1:0] $end
          $var wire  1 ) one $end
         $upscope $end
        $upscope $end
       $upscope $end
      $enddefinitions $end
      #0
      0'
      b0 %
      bx (
      0)
      #1
      1'
      b1 %
      b01 (
      #2
      0'
      #3
      1'
      b10 %
      b10 (
      1)
      #4
      0'
      #5
      1'
      b11 %
      b11 (
      #6
      0'
      """;

  @Test
  void countsTogglesDutyAndCycles(@TempDir Path tmp) throws Exception {
    Path f = Files.writeString(tmp.resolve("run.vcd"), VCD);
    SimulatedActivity a = SimulatedActivity.read(f, "clk");
    assertEquals("Top_x", a.top());
    assertEquals(3, a.cycles());
    assertEquals(6, a.duration());
    // value: 0 -> 1 -> 2 -> 3: bit 0 toggles 0->1, 1->0, 0->1 = 3; bit 1 toggles once
    assertEquals(1.0, a.activity("value[0]"));
    assertEquals(1.0 / 3, a.activity("value[1]"), 1e-12);
    assertEquals(0.0, a.activity("value[3]"));
    // left extension: "b0" sets all four bits to 0 (not X), so the first change counts
    // sub.q starts X: X -> 1 is not a toggle; then 1 -> 0 -> 1 on bit 0
    assertEquals(2.0 / 3, a.activity("sub.q[0]"), 1e-12);
    assertEquals(1.0 / 3, a.activity("sub.q[1]"), 1e-12);
    assertEquals(1.0 / 3, a.activity("sub.one"), 1e-12);
    // sub.one is 1 from time 3 to 6: half of the run
    assertEquals(0.5, a.duty("sub.one"), 1e-12);
    assertEquals(-1, a.activity("nosuch"));
    assertEquals(a.activity("value[0]"), a.activity("value[0]"), "ports and the top scope alias one code");
  }

  @Test
  void notAVcdOrNoClockIsAClearError(@TempDir Path tmp) throws Exception {
    Path junk = Files.writeString(tmp.resolve("junk.vcd"), "hello\n");
    assertTrue(assertThrows(IllegalArgumentException.class, () -> SimulatedActivity.read(junk, "clk"))
        .getMessage().contains("not a VCD"));
    Path f = Files.writeString(tmp.resolve("run.vcd"), VCD);
    assertTrue(assertThrows(IllegalArgumentException.class, () -> SimulatedActivity.read(f, "clock"))
        .getMessage().contains("no clock port 'clock'"));
  }
}
