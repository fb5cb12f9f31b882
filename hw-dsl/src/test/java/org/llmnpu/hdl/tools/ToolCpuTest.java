package org.llmnpu.hdl.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ToolCpuTest {
  @TempDir
  Path dir;

  @Test
  void parsesTheChildrensTimesOfDashAndBash() {
    assertEquals(83.45, ToolCpu.childSeconds("0m0.000000s 0m0.004000s\n1m23.400000s 0m0.050000s\n"), 1e-9);
    assertEquals(1.5, ToolCpu.childSeconds("0m0.001s 0m0.002s\n0m1.250s 0m0.250s"), 1e-9);
    assertTrue(Double.isNaN(ToolCpu.childSeconds("")));
    assertTrue(Double.isNaN(ToolCpu.childSeconds("0m0.1s 0m0.2s\nsomething else")));
  }

  @Test
  void aMeteredToolKeepsItsOutputAndExitStatusAndIsChargedItsCpu() {
    ToolCpu.Ledger ledger = new ToolCpu.Ledger();
    ToolCpu.open(ledger);
    try {
      ExternalTool.Result r = ExternalTool.run(List.of("sh", "-c",
          "i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done; echo \"$1 done\"; exit 5", "busy", "arg one"), dir,
          Duration.ofMinutes(2));
      assertEquals(5, r.exitCode());
      assertEquals("arg one done\n", r.output());
    } finally {
      ToolCpu.close();
    }
    assertEquals(1, ledger.processes());
    assertTrue(ledger.seconds() > 0.05 && ledger.seconds() < 5, "CPU " + ledger.seconds());
  }
}
