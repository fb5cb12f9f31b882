package org.llmnpu.rtl.npu;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.llmnpu.hdl.ToolsForTests;

/**
 * A late decision of the tiny NPU reaches the counter it steps without a carry chain behind it
 * ({@link UnitTimingProbe}: the unit alone through the flow's mapping and OpenSTA):
 * <ul>
 *   <li>{@link NpuFetchUnit}: {@code dmaRead} (the DMA's read request accepted, decided late in the controller) goes
 *   into the flip-flop {@code dmaReadLast} and is counted into the 21-bit {@code dmaOutstanding} a cycle later.
 *   Counted in its cycle ({@code dmaOutstanding + dmaRead − dmaResponse}) it headed the adder — 2.583 ns here, the tiny
 *   NPU's worst flip-flop path {@code ctrl.state[2]} → {@code fetch.dmaOutstanding[20]} (+0.019 ns at 5.75 ns,
 *   session 20) — and it still did when written as a final select between {@code +1} and {@code −1} sums
 *   (ABC merges the two sums back into one adder keyed by {@code dmaRead ^ dmaResponse}: 2.164 ns); now
 *   0.076 ns.</li>
 * </ul>
 */
class NpuLateSelectTimingTest {
  private static final double BOUND_NS = 1.0;

  @TempDir
  Path dir;

  @Test
  void theDmaReadGoesStraightIntoAFlipFlop() throws IOException {
    ToolsForTests.require("yosys", "sta");
    UnitTimingProbe probe = new UnitTimingProbe(new NpuFetchUnit(NpuConfig.tiny()), dir);
    check(probe, "dmaRead");
  }

  @Test
  void theXWalksBeginLeavesItsRowAlone() throws IOException {
    ToolsForTests.require("yosys", "sta");
    UnitTimingProbe probe = new UnitTimingProbe(new NpuController(NpuConfig.tiny()), dir);
    List<String> command = List.of("command", "command_predecoded");
    // the begin's base is a command word: the command register reaches the walk (the probe sees its paths) ...
    assertTrue(probe.arrivalBetween(command, "xWalk_address").ns() > 0, "no path from the command to xWalk_address");
    // ... but not its row's incrementer
    UnitTimingProbe.Arrival a = probe.arrivalBetween(command, "xWalk_row");
    System.out.printf(Locale.ROOT, "the command register reaches xWalk_row at %.3f ns%n", a.ns());
    assertTrue(a.ns() <= BOUND_NS, String.format(Locale.ROOT,
        "the command register reaches xWalk_row at %.3f ns (bound %.1f ns):%n%s", a.ns(), BOUND_NS, a.report()));
  }

  private static void check(UnitTimingProbe probe, String port) throws IOException {
    UnitTimingProbe.Arrival a = probe.arrival(port);
    System.out.printf(Locale.ROOT, "%s reaches the registers at %.3f ns%n", port, a.ns());
    assertTrue(a.ns() <= BOUND_NS, String.format(Locale.ROOT,
        "%s reaches the registers at %.3f ns (bound %.1f ns):%n%s", port, a.ns(), BOUND_NS, a.report()));
  }
}
