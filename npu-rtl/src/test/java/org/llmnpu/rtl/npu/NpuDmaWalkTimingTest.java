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
 * The tiny NPU's {@link NpuDmaUnit} alone through the PPA flow's gate mapping and OpenSTA ({@link UnitTimingProbe}): a
 * walk's begin pulse ({@code extBegin}, {@code spadBegin}, late in the NPU: the controller's dispatch decision from the command
 * register) reaches the walk's registers within 1.5 ns. A walk's begin writes its row and beat with constants
 * ({@link Walker#begin}): written as {@code row − row}, Yosys's {@code opt_share} merged the subtraction with the
 * advance's {@code row + 1} into one adder whose operand the begin selects, so the begin came before the carry
 * chain — 2.075 ns from {@code extBegin} (2.172 ns from {@code spadBegin}) in this unit, the tiny NPU's worst
 * flip-flop path {@code ctrl.command[0]} → {@code dma.ext_row[15]} (+0.014 ns at 5.75 ns, session 19); with the
 * constants 1.057 ns (0.958 ns).
 */
class NpuDmaWalkTimingTest {
  private static final double BOUND_NS = 1.5;

  @TempDir
  Path dir;

  @Test
  void aWalksBeginReachesItsRegistersEarly() throws IOException {
    ToolsForTests.require("yosys", "sta");
    UnitTimingProbe probe = new UnitTimingProbe(new NpuDmaUnit(NpuConfig.tiny()), dir);
    for (String port : List.of("extBegin", "spadBegin")) {
      UnitTimingProbe.Arrival a = probe.arrival(port);
      assertTrue(a.ns() <= BOUND_NS, String.format(Locale.ROOT,
          "%s reaches the walk's registers at %.3f ns (bound %.1f ns):%n%s", port, a.ns(), BOUND_NS, a.report()));
    }
  }
}
