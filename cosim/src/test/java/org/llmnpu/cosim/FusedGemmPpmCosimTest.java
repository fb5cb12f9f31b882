package org.llmnpu.cosim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.llmnpu.isa.Command;
import org.llmnpu.isa.Counter;
import org.llmnpu.isa.Disassembler;
import org.llmnpu.isa.ErrorCause;
import org.llmnpu.isa.IsaSimulator;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.isa.Program;
import org.llmnpu.numerics.ppu.PpuFitter;
import org.llmnpu.numerics.ppu.PpuFormat;
import org.llmnpu.numerics.ppu.PpuFunction;
import org.llmnpu.numerics.requant.QuantizedMultiplier;
import org.llmnpu.rtl.npu.NpuConfig;
import org.llmnpu.verilator.SimModes;

/**
 * {@code gemm ppm=1} on the RTL: random fused GEMMs (channels loaded by {@code ppmcfg} groups with a
 * {@code first} channel, ragged N, loads overlapping the drain and the PPM's tail) bit-exact with the golden ISA
 * simulator with every counter and the cycle count equal, with and without the PPU, on 4- and 16-byte lines and
 * under several memory timings; the fused GEMM's checks halt with the golden's error.
 */
class FusedGemmPpmCosimTest {
  /** 16-byte lines (four PPM lanes) and N up to 256. */
  static final NpuConfig WIDE_N = SharedNpus.WIDE_LINES;
  @RegisterExtension
  static final NpuRtlFixture NPU = new NpuRtlFixture(NpuConfig.small());

  private static void runAll(NpuRtl target, MachineParams p, Random r, int programs, int... ns) {
    runAll(target, p, r, programs, false, ns);
  }

  private static void runAll(NpuRtl target, MachineParams p, Random r, int programs, boolean streamed, int... ns) {
    for (int i = 0; i < programs; i++) {
      RandomPrograms.Case t = PpmChains.generateFused(p, r, streamed ? 2 + r.nextInt(2) : 1 + r.nextInt(3),
          i % 2 == 1, streamed, ns);
      ProgramCosim.Outcome o = ProgramCosim.run(target, t.image(), t.programAddress());
      String what = "program " + i + ":\n" + Disassembler.disassemble(t.program());
      ProgramErrorCases.assertExact(o, what);
      assertTrue(o.rtl().counters().get(Counter.PPM_ELEMENTS) > 0, what);
    }
  }

  @ParameterizedTest(name = "latency {0}, {1} B/cycle")
  @CsvSource({"3, 4", "1, 4", "9, 1", "5, 2"})
  void fusedGemmsAreBitExactWithExactCountersAndCycles(int latency, int bytesPerCycle) {
    NpuConfig c = NpuConfig.small().withMemory(latency, bytesPerCycle);
    try (NpuRtl sim = c.equals(NpuConfig.small()) ? null : NpuRtl.start(c, SimModes.local())) {
      runAll(sim == null ? NPU.rtl() : sim, c.machine(), new Random(latency * 10 + bytesPerCycle), 4, 1, 3, 4, 5, 37,
          64);
    }
  }

  /** Streamed weights and the PPM epilogue in one command ({@code gemm wStream=1 ppm=1}), next to scratchpad-W ones. */
  @ParameterizedTest(name = "latency {0}, {1} B/cycle")
  @CsvSource({"3, 4", "9, 1"})
  void streamedFusedGemmsAreBitExactWithExactCountersAndCycles(int latency, int bytesPerCycle) {
    NpuConfig c = NpuConfig.small().withMemory(latency, bytesPerCycle);
    try (NpuRtl sim = c.equals(NpuConfig.small()) ? null : NpuRtl.start(c, SimModes.local())) {
      runAll(sim == null ? NPU.rtl() : sim, c.machine(), new Random(700 + latency), 4, true, 1, 5, 37, 64);
    }
  }

  @Test
  void withoutThePpuFusedGemmsRequantizeOnly() {
    NpuConfig c = SharedNpus.SMALL_REDUCED;
    assertFalse(c.ppu());
    try (NpuRtl sim = NpuRtl.start(c, SimModes.local())) {
      runAll(sim, c.machine(), new Random(41), 4);
    }
  }

  @Test
  void wideLinesAndRaggedNAreBitExact() {
    try (NpuRtl sim = NpuRtl.start(WIDE_N, SimModes.local())) {
      runAll(sim, WIDE_N.machine(), new Random(172), 4, 37, 172, 1, 16, 17, 255);
    }
  }

  @Test
  void fusedGemmChecksHaltWithTheGoldensError() {
    MachineParams p = NPU.rtl().config().machine();
    int spad = p.spadBytes();
    Command fused = new Command.Gemm(1, 4, 4, 0, 8, 64, 4, 128, 16, Command.DENSE, 0, 0, 0, 1);
    Object[][] cases = {
        {Program.builder().fence().add(fused), ErrorCause.UNSUPPORTED, 1},
        {Program.builder().ppuTab(0x8000).ppmCfg(0x8400, 4)
            .add(new Command.Gemm(1, 4, 4, 0, 8, 64, 4, 128, 16, Command.DENSE, 1, 0, 0, 1)), ErrorCause.BAD_SHAPE, 2},
        {Program.builder().ppuTab(0x8000).add(new Command.Gemm(2, 4, 32, 0, 8, 64, 32, spad - 64 - 28, 64,
            Command.DENSE, 0, 0, 0, 1)), ErrorCause.SPAD_ADDRESS, 1},
        {Program.builder().ppmCfg(0x8400, 4, p.ppmChannels() - 3), ErrorCause.BAD_SHAPE, 0},
        {Program.builder().ppmCfg(0x8400, p.ppmChannels() + 1), ErrorCause.BAD_SHAPE, 0},
        {Program.builder().ppmCfg(0x8400, 2, 0xFFFF_FFFFL), ErrorCause.BAD_SHAPE, 0},
        {Program.builder().ppmCfg(0x8400, 2, 0, 2), ErrorCause.BAD_SHAPE, 0},
        // the SwiGLU gate (gemm gate=1): this NPU is built without the PPM's gate operand (ppmGate, GatedGemmCosimTest)
        {Program.builder().ppuTab(0x8000).add(new Command.Gemm(1, 4, 4, 0, 8, 64, 4, 128, 16, Command.DENSE, 0, 0, 0,
            1, 1)), ErrorCause.UNSUPPORTED, 1},
        {Program.builder().add(new Command.Gemm(1, 4, 4, 0, 8, 64, 4, 128, 16, Command.DENSE, 0, 0, 0, 0, 1)),
            ErrorCause.UNSUPPORTED, 0},
    };
    byte[] image = new byte[(int) p.extMemBytes()];
    byte[] table = IsaSimulator.ppuTableImage(PpuFitter.fit(PpuFunction.GELU, PpuFormat.DEFAULT));
    System.arraycopy(table, 0, image, 0x8000, table.length);
    for (int j = 0; j < p.ppmChannels(); j++) {
      System.arraycopy(IsaSimulator.ppmRecord(j, QuantizedMultiplier.fromScale(0.01), 1), 0, image, 0x8400 + 16 * j, 16);
    }
    ProgramErrorCases.assertEachHaltsWithItsError(NPU.rtl(), image, cases);
  }

  /** A fused GEMM after channel groups loaded in reverse order and a legacy {@code ppm} sharing the PPM. */
  @Test
  void fusedGemmAndPpmShareThePpm() {
    MachineParams p = NPU.rtl().config().machine();
    byte[] image = siluImage(8);
    for (int j = 0; j < 12; j++) {
      System.arraycopy(IsaSimulator.ppmRecord(50 * j - 300, QuantizedMultiplier.fromScale(0.002 * (j + 1)), j - 6), 0,
          image, 0x8400 + 16 * j, 16);
    }
    int line = p.lineBytes();
    Program prog = Program.builder().ppuTab(0x8000).load(0x10000, 16, 0, 16, 9, 5).load(0x11000, 16, 256, 16, 11, 9)
        .ppmCfg(0x8400 + 16 * 6, 6, 6).ppmCfg(0x8400, 6, 0)
        .add(new Command.Gemm(5, 9, 11, 0, 16, 256, 16, 1024, 16, Command.DENSE, 0, 0, 0, 1))
        .load(0x12000, 16, 512, 16, 9, 5)
        .gemm(5, 9, 4, 512, 16, 256, 16, 2048, 16).ppm(2048, 16, 1536, line, 5, 4)
        .store(0x20000, 16, 1024, 16, 11, 5).store(0x21000, line, 1536, line, line, 5).halt().build();
    ProgramCosim.Outcome o = runExact(prog, image);
    assertEquals(5L * 11 + 5L * 4, o.rtl().counters().get(Counter.PPM_ELEMENTS));
  }

  /**
   * Two fused GEMMs over the same X and W with the parameters of two {@code ppmcfg}s: the second {@code ppmcfg} right
   * after the first GEMM. Into the other bank ({@code ppm=2}) it loads its 32 records beside the first GEMM's
   * 1024-line drain; into the same bank it waits for that drain. Both bit-exact with the golden, every counter and
   * the cycle count equal to the model's, and the bank version the faster by at least the load's length.
   */
  @Test
  void ppmcfgOfTheOtherBankGoesBesideTheRunningGemm() {
    long beside = twoBankProgramCycles(1);
    long after = twoBankProgramCycles(0);
    // 32 records of 16 bytes on 4-byte lines: 128 beats, each at least one cycle
    assertTrue(after - beside >= 128, "same bank " + after + " cycles, other bank " + beside);
  }

  private static long twoBankProgramCycles(int secondBank) {
    byte[] image = siluImage(11);
    for (int j = 0; j < 64; j++) {
      System.arraycopy(IsaSimulator.ppmRecord(40 * j - 900, QuantizedMultiplier.fromScale(0.0015 * (1 + j % 7)), j % 9 - 4),
          0, image, 0x8400 + 16 * j, 16);
    }
    int m = 32;
    int k = 16;
    int n = 32;
    Program prog = Program.builder().ppuTab(0x8000).load(0x10000, k, 0, k, k, m).load(0x11000, n, 1024, n, n, k)
        .ppmCfg(0x8400, n, 0, 0)
        .add(new Command.Gemm(m, k, n, 0, k, 1024, n, 1536, n, Command.DENSE, 0, 0, 0, 1))
        .ppmCfg(0x8400 + 16 * n, n, 0, secondBank)
        .add(new Command.Gemm(m, k, n, 0, k, 1024, n, 2560, n, Command.DENSE, 0, 0, 0, 1 + secondBank))
        .store(0x20000, n, 1536, n, n, 2 * m).halt().build();
    ProgramCosim.Outcome o = runExact(prog, image);
    assertEquals(o.modelCycles(), o.rtlCycles(), Disassembler.disassemble(prog));
    assertEquals(2L * m * n, o.rtl().counters().get(Counter.PPM_ELEMENTS));
    return o.rtlCycles();
  }

  /** Runs {@code prog} on the RTL and the golden: no error, the same memory and every counter equal. */
  private static ProgramCosim.Outcome runExact(Program prog, byte[] image) {
    ProgramCosim.Outcome o = ProgramCosim.run(NPU.rtl(), RandomPrograms.place(image, prog, 0), 0);
    String what = Disassembler.disassemble(prog);
    assertEquals(ErrorCause.NONE, o.golden().error(), what);
    assertTrue(o.bitExact(), what + "first differing byte at 0x" + Long.toHexString(o.firstDifference()));
    assertEquals(Map.of(), RandomProgramCosimTest.mismatches(o), what);
    return o;
  }

  /** A random memory image of the RTL's NPU (seed {@code seed}) with the fitted SiLU table at 0x8000. */
  private static byte[] siluImage(long seed) {
    byte[] image = new byte[(int) NPU.rtl().config().machine().extMemBytes()];
    new Random(seed).nextBytes(image);
    byte[] table = IsaSimulator.ppuTableImage(PpuFitter.fit(PpuFunction.SILU, PpuFormat.DEFAULT));
    System.arraycopy(table, 0, image, 0x8000, table.length);
    return image;
  }
}
