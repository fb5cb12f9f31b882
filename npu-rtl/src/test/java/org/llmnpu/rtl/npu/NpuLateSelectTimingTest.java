package org.llmnpu.rtl.npu;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

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
 *   <li>{@link NpuController}: the GEMM's and the DSP copies' X walk ({@link NpuGemm#xWalk}) begins at their dispatch,
 *   the last arm of the controller's dispatch chain from the command register. Its row and beat rest at 0 outside the
 *   walk's states ({@link Walker#restAtZero}), so the begin writes only the address and row base: no path from the
 *   command register to {@code xWalk_row}. When the begin wrote row and beat, ABC folded its late enable into the row
 *   incrementer's carry-in (a 16-stage AND2 ripple): 3.893 ns here, the tiny NPU's {@code ctrl.command[7]} →
 *   {@code ctrl.xWalk_row[15]} (+0.265 ns at 5.75 ns, session 21). The command register's path to
 *   {@code xWalk_address} (the begin's base) shows that the probe sees such paths.</li>
 * </ul>
 */
class NpuLateSelectTimingTest {
  private static final double BOUND_NS = 1.0;

  @Test
  void theDmaReadGoesStraightIntoAFlipFlop(@TempDir Path dir) throws IOException {
    UnitTimingProbe probe = UnitTimingProbe.tiny(NpuFetchUnit::new, dir);
    probe.arrival("dmaRead").assertWithin(BOUND_NS, "dmaRead reaches the registers");
  }

  @Test
  void theXWalksBeginLeavesItsRowAlone(@TempDir Path dir) throws IOException {
    UnitTimingProbe probe = UnitTimingProbe.tiny(NpuController::new, dir);
    List<String> command = List.of("command", "command_predecoded");
    // the begin's base is a command word: the command register reaches the walk (the probe sees its paths) ...
    assertTrue(probe.arrivalBetween(command, "xWalk_address").ns() > 0, "no path from the command to xWalk_address");
    // ... but not its row's incrementer
    probe.arrivalBetween(command, "xWalk_row").assertWithin(BOUND_NS, "the command register reaches xWalk_row");
  }
}
