package org.llmnpu.cosim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.llmnpu.isa.Command;
import org.llmnpu.isa.Counter;
import org.llmnpu.isa.Disassembler;
import org.llmnpu.isa.ErrorCause;
import org.llmnpu.isa.IsaSimulator;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.isa.Program;
import org.llmnpu.numerics.requant.QuantizedMultiplier;
import org.llmnpu.rtl.npu.NpuConfig;
import org.llmnpu.verilator.SimModes;

/**
 * {@code gemm ppm=1 gate=1} (the SwiGLU gate through the PPM) on an NPU built with {@code ppmGate}: random programs of
 * gated and ungated fused GEMMs (ragged N, N above the array's rows, both parameter banks, scratchpad and streamed W,
 * INT4 streamed W, with and without a {@code pputab}, saturating multipliers, gate codes −128, 127, 0, −1) bit-exact
 * with the golden ISA simulator, with the same status, every counter and RTL cycles = {@code CycleModel}'s, on 4-byte
 * lines (one PPM lane: the gate walk steps a byte) and 16-byte lines (four lanes: the gate is a quarter of the line
 * read); the gated GEMM's checks halt with the golden's error.
 */
class GatedGemmCosimTest {
  /** The smallest NPU with a PPU, with the gate operand (shared: also with loadmx and checked clock gates). */
  static final NpuConfig SMALL_GATED = SharedNpus.SMALL_FEATURED;
  @RegisterExtension
  static final NpuRtlFixture NPU = new NpuRtlFixture(SMALL_GATED);

  private static void runAll(NpuRtl target, Random r, int programs, int... ns) {
    MachineParams p = target.config().machine();
    assertTrue(p.ppmGate());
    long gatedGemms = 0;
    for (int i = 0; i < programs; i++) {
      RandomPrograms.Case t = PpmChains.generateFused(p, r, 2 + r.nextInt(2), i % 2 == 1, i % 3 != 0, true, ns);
      ProgramCosim.Outcome o = ProgramCosim.run(target, t.image(), t.programAddress());
      String what = "program " + i + ":\n" + Disassembler.disassemble(t.program());
      ProgramErrorCases.assertExact(o, what);
      gatedGemms += what.lines().filter(l -> l.contains("gate=1")).count();
    }
    assertTrue(gatedGemms >= programs, "gated GEMMs: " + gatedGemms);
  }

  @Test
  void gatedGemmsAreBitExactWithExactCountersAndCycles() {
    runAll(NPU.rtl(), new Random(3101), 8, 1, 3, 4, 5, 37, 64);
  }

  @Test
  void wideLinesGateAQuarterOfTheLineRead() {
    NpuConfig c = SharedNpus.WIDE_LINES;
    assertTrue(c.machine().ppmGate());
    try (NpuRtl sim = NpuRtl.start(c, SimModes.local())) {
      runAll(sim, new Random(3202), 6, 37, 172, 1, 16, 17, 255);
    }
  }

  @Test
  void ppmGateNeedsThePpu() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> NpuConfig.small().toBuilder().ppu(false).ppmGate(true).build());
    assertTrue(e.getMessage().contains("ppmGate") && e.getMessage().contains("ppu"), e.getMessage());
    assertTrue(SMALL_GATED.machine().ppmGate());
  }

  @Test
  void gatedGemmChecksHaltWithTheGoldensError() {
    MachineParams p = NPU.rtl().config().machine();
    int spad = p.spadBytes();
    Object[][] cases = {
        // gate=1 without ppm=1: the gate is a PPM operand
        {Program.builder().add(new Command.Gemm(1, 4, 4, 0, 8, 64, 4, 128, 16, Command.DENSE, 0, 0, 0, 0, 1)),
            ErrorCause.BAD_SHAPE, 0},
        // gate=1 with accumulate: codes cannot be accumulated into
        {Program.builder().ppmCfg(0x8400, 4).add(new Command.Gemm(1, 4, 4, 0, 8, 64, 4, 128, 16, Command.DENSE, 1, 0, 0,
            1, 1)), ErrorCause.BAD_SHAPE, 1},
        // overlapping gated rows (yStride 16 < N 20), and yStride 0
        {Program.builder().ppmCfg(0x8400, 20).add(new Command.Gemm(2, 4, 20, 0, 8, 64, 20, 128, 16, Command.DENSE, 0, 0,
            0, 1, 1)), ErrorCause.BAD_SHAPE, 1},
        {Program.builder().ppmCfg(0x8400, 4).add(new Command.Gemm(3, 4, 4, 0, 8, 64, 4, 128, 0, Command.DENSE, 0, 0,
            0, 2, 1)), ErrorCause.BAD_SHAPE, 1},
        // Y rows past the scratchpad
        {Program.builder().ppmCfg(0x8400, 4).add(new Command.Gemm(2, 4, 32, 0, 8, 64, 32, spad - 36, 32,
            Command.DENSE, 0, 0, 0, 1, 1)), ErrorCause.SPAD_ADDRESS, 1},
        // an ungated fused GEMM on a PPU NPU still needs a table
        {Program.builder().ppmCfg(0x8400, 4).add(new Command.Gemm(1, 4, 4, 0, 8, 64, 4, 128, 16, Command.DENSE, 0, 0,
            0, 1, 0)), ErrorCause.UNSUPPORTED, 1},
    };
    ProgramErrorCases.assertEachHaltsWithItsError(NPU.rtl(), ProgramErrorCases.ppmRecordsImage(p), cases);
  }

  /** A gated GEMM with no table loaded, every gate code −128, and saturating parameters: the corners in one run. */
  @Test
  void gateMinus128AndSaturationWithoutATable() {
    MachineParams p = NPU.rtl().config().machine();
    byte[] image = new byte[(int) p.extMemBytes()];
    new Random(77).nextBytes(image);
    int m = 5;
    int k = 9;
    int n = 11;
    for (int j = 0; j < n; j++) {
      // channel j: the multiplier grows with j, from codes in range to saturated at both ends
      System.arraycopy(IsaSimulator.ppmRecord(3000 * j - 15000, QuantizedMultiplier.fromScale(0.001 * (1 << j)),
          j % 5 - 2), 0, image, 0x8400 + 16 * j, 16);
    }
    for (int i = 0; i < m; i++) {
      for (int j = 0; j < 16; j++) {
        image[0x12000 + 16 * i + j] = (byte) (i == 0 ? -128 : i == 1 ? 127 : i == 2 ? 0 : image[0x12000 + 16 * i + j]);
      }
    }
    Program prog = Program.builder().load(0x10000, 16, 0, 16, k, m).load(0x11000, 16, 256, 16, n, k)
        .ppmCfg(0x8400, n, 0, 1).load(0x12000, 16, 1024, 16, n, m)
        .add(new Command.Gemm(m, k, n, 0, 16, 256, 16, 1024, 16, Command.DENSE, 0, 0, 0, 2, 1))
        .store(0x20000, 16, 1024, 16, n, m).halt().build();
    ProgramCosim.Outcome o = ProgramCosim.run(NPU.rtl(), RandomPrograms.place(image, prog, 0), 0);
    ProgramErrorCases.assertExact(o, Disassembler.disassemble(prog));
    assertEquals((long) m * n, o.rtl().counters().get(Counter.PPM_ELEMENTS));
  }
}
