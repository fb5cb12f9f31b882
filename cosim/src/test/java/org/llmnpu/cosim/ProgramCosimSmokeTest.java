package org.llmnpu.cosim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.Test;
import org.llmnpu.isa.Program;
import org.llmnpu.rtl.npu.NpuConfig;
import org.llmnpu.verilator.SimModes;

class ProgramCosimSmokeTest {
  @Test
  void loadGemmStore() {
    NpuConfig c = NpuConfig.small();
    byte[] image = new byte[(int) c.machine().extMemBytes()];
    new Random(1).nextBytes(image);
    int m = 5, k = 7, n = 6;
    Program prog = Program.builder()
        .load(0x1000, 16, 0, 8, k, m)          // X: 5 rows of 7 bytes → spad 0, stride 8
        .load(0x2000, 8, 64, 8, n, k)          // W: 7 rows of 6 bytes → spad 64, stride 8
        .gemm(m, k, n, 0, 8, 64, 8, 256, 32)   // Y: 5 rows of 24 bytes at 256, stride 32
        .store(0x3000, 32, 256, 32, 4 * n, m)
        .halt().build();
    System.arraycopy(prog.bytes(), 0, image, 0, prog.bytes().length);
    try (NpuRtl rtl = NpuRtl.start(c, SimModes.local())) {
      ProgramCosim.Outcome o = ProgramCosim.run(rtl, image, 0);
      System.out.println("status " + o.rtl().error() + " " + o.rtl().errorCommand() + " golden " + o.golden().error());
      System.out.println("first diff " + o.firstDifference() + " cycles " + o.rtlCycles() + " model " + o.modelCycles());
      o.counterMismatches().forEach((k2, v) -> System.out.println(k2 + " rtl " + v[0] + " golden " + v[1]));
      assertTrue(o.bitExact());
      assertTrue(o.statusMatches());
      assertEquals(java.util.Map.of(), o.counterMismatches());
    }
  }
}
