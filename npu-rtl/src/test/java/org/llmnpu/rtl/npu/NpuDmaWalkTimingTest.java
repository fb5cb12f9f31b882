package org.llmnpu.rtl.npu;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

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

  @Test
  void aWalksBeginReachesItsRegistersEarly(@TempDir Path dir) throws IOException {
    UnitTimingProbe probe = UnitTimingProbe.tiny(NpuDmaUnit::new, dir);
    for (String port : List.of("extBegin", "spadBegin")) {
      probe.arrival(port).assertWithin(BOUND_NS, port + " reaches the walk's registers");
    }
  }
}
