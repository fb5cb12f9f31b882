package org.llmnpu.cosim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.llmnpu.isa.Assembler;
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
 * The PPM as NPU commands on the RTL: random GEMM → {@code ppmcfg} → {@code ppm} → store chains (with
 * the PPU: after a {@code pputab}) bit-exact with the golden ISA simulator ({@code numerics}
 * {@code Ppm.process}) with every counter and cycle count equal, under several memory timings; each
 * PPM command alone equal to its formula; the shifts −31 and 31 bit-exact; malformed PPM commands and
 * N:M GEMMs on this dense array halt with their error; the shipped example runs bit-exact.
 */
class PpmCosimTest {
  @RegisterExtension
  static final NpuRtlFixture NPU = new NpuRtlFixture(NpuConfig.small());

  @ParameterizedTest(name = "latency {0}, {1} B/cycle")
  @CsvSource({"3, 4", "1, 4", "9, 1", "5, 2"})
  void gemmToPpmChainsAreBitExactWithExactCountersAndCycles(int latency, int bytesPerCycle) {
    NpuConfig c = NpuConfig.small().withMemory(latency, bytesPerCycle);
    Random r = new Random(latency * 10 + bytesPerCycle);
    try (NpuRtl sim = c.equals(NpuConfig.small()) ? null : NpuRtl.start(c, SimModes.local())) {
      NpuRtl target = sim == null ? NPU.rtl() : sim;
      for (int i = 0; i < 4; i++) {
        RandomPrograms.Case t = PpmChains.generate(c.machine(), r, 1 + r.nextInt(2), i % 2 == 1);
        ProgramCosim.Outcome o = ProgramCosim.run(target, t.image(), t.programAddress());
        String what = "program " + i + ":\n" + Disassembler.disassemble(t.program());
        assertEquals(ErrorCause.NONE, o.golden().error(), what);
        assertTrue(o.statusMatches(), what + "status " + o.rtl().error() + " vs golden " + o.golden().error());
        assertTrue(o.bitExact(), what + "first differing byte at 0x" + Long.toHexString(o.firstDifference()));
        assertEquals(Map.of(), RandomProgramCosimTest.mismatches(o), what);
        assertTrue(o.rtl().counters().get(Counter.PPM_ELEMENTS) > 0, what);
      }
    }
  }

  @Test
  void withoutThePpuTheChainsRequantizeOnlyAndPputabIsUnsupported() {
    NpuConfig c = SharedNpus.SMALL_REDUCED;
    assertFalse(c.ppu());
    Random r = new Random(17);
    try (NpuRtl sim = NpuRtl.start(c, SimModes.local())) {
      for (int i = 0; i < 3; i++) {
        RandomPrograms.Case t = PpmChains.generate(c.machine(), r, 1 + r.nextInt(2), i % 2 == 1);
        ProgramCosim.Outcome o = ProgramCosim.run(sim, t.image(), t.programAddress());
        String what = "program " + i + ":\n" + Disassembler.disassemble(t.program());
        assertEquals(ErrorCause.NONE, o.golden().error(), what);
        assertTrue(o.bitExact(), what + "first differing byte at 0x" + Long.toHexString(o.firstDifference()));
        assertEquals(Map.of(), RandomProgramCosimTest.mismatches(o), what);
      }
      Program prog = Program.builder().fence().ppuTab(0x8000).halt().build();
      byte[] image = new byte[(int) c.machine().extMemBytes()];
      ProgramCosim.Outcome o = ProgramCosim.run(sim, RandomPrograms.place(image, prog, 0), 0);
      assertEquals(ErrorCause.UNSUPPORTED, o.rtl().error());
      assertEquals(1, o.rtl().errorCommand());
      assertTrue(o.statusMatches());
    }
  }

  /** 16-byte lines: one channel record a beat, eight C-LUT entries a beat (beats eight cycles apart). */
  @Test
  void wideLinesChainsAreBitExactWithExactCycles() {
    NpuConfig c = DspWideLinesCosimTest.WIDE;
    Random r = new Random(23);
    try (NpuRtl sim = NpuRtl.start(c, SimModes.local())) {
      for (int i = 0; i < 3; i++) {
        RandomPrograms.Case t = PpmChains.generate(c.machine(), r, 1 + r.nextInt(2), i % 2 == 1);
        ProgramCosim.Outcome o = ProgramCosim.run(sim, t.image(), t.programAddress());
        String what = "program " + i + ":\n" + Disassembler.disassemble(t.program());
        assertEquals(ErrorCause.NONE, o.golden().error(), what);
        assertTrue(o.bitExact(), what + "first differing byte at 0x" + Long.toHexString(o.firstDifference()));
        assertEquals(Map.of(), RandomProgramCosimTest.mismatches(o), what);
      }
    }
  }

  @Test
  void eachPpmCommandAloneTakesItsFormulaCycles() {
    MachineParams p = NPU.rtl().config().machine();
    int line = p.lineBytes();
    int lat = p.memLatency();
    int latency = p.ppmLatency();
    byte[] image = new byte[(int) p.extMemBytes()];
    new Random(3).nextBytes(image);
    byte[] table = IsaSimulator.ppuTableImage(PpuFitter.fit(PpuFunction.SILU, PpuFormat.DEFAULT));
    System.arraycopy(table, 0, image, 0x8000, table.length);
    for (int j = 0; j < p.rows(); j++) {
      byte[] rec = IsaSimulator.ppmRecord(j * 100 - 150, QuantizedMultiplier.fromScale(0.001 * (j + 1)), j - 2);
      System.arraycopy(rec, 0, image, 0x8400 + 16 * j, 16);
    }
    long tableCycles = -1;
    for (int channels = 1; channels <= p.rows(); channels++) {
      for (int m : new int[] {1, 3, 17}) {
        Program prog = Program.builder().load(0x10000, 16 * line, 0, 16 * line, 4 * channels, m)
            .ppuTab(0x8000).ppmCfg(0x8400, channels).ppm(0, 16L * line, p.spadBytes() / 2, line, m, channels).halt()
            .build();
        ProgramCosim.Outcome o = ProgramCosim.run(NPU.rtl(), RandomPrograms.place(image.clone(), prog, 0), 0);
        assertTrue(o.bitExact(), Disassembler.disassemble(prog));
        assertEquals(Map.of(), RandomProgramCosimTest.mismatches(o), Disassembler.disassemble(prog));
        long perBeat = Math.max(1, line / 16);
        long cfgBeats = (16L * channels + line - 1) / line;
        long cfg = cfgBeats - 1 + lat + 1 + (line >= 16 ? (channels - 1) % perBeat : 0);
        long lines = (4L * channels + line - 1) / line;
        long run = m * lines + latency;
        long all = o.rtl().counters().get(Counter.PPM_CYCLES);
        if (tableCycles < 0) {
          tableCycles = all - cfg - run;
        }
        assertEquals(tableCycles + cfg + run, all, "ppmcfg of " + channels + ", ppm of " + m + " rows");
        assertEquals((long) m * channels, o.rtl().counters().get(Counter.PPM_ELEMENTS));
      }
    }
    // pputab: 66 entries of 2 bytes, line / 2 a beat, beats line / 2 cycles apart.
    long perBeat = line / 2;
    long beats = (132 + line - 1) / line;
    assertEquals((beats - 1) * Math.max(perBeat, p.beatInterval()) + lat + 1 + 65 % perBeat, tableCycles);
  }

  /**
   * The ends of the shift range through {@code ppmcfg} records: shift 31 (the rounding carry of the
   * largest scales) and −31 (the carry just below 2^−32, and a plain −31), on accumulators where a
   * misread shift shows — small values for the left shifts, values near ±2^31 for the right ones — and
   * through the TANH table, which keeps codes near 0 and the clamped ends apart.
   */
  @Test
  void shiftsAtBothEndsOfTheirRangeRequantizeBitExact() {
    MachineParams p = NPU.rtl().config().machine();
    int line = p.lineBytes();
    QuantizedMultiplier[] lanes = {
        QuantizedMultiplier.fromScale(0x1.fffffffffffffp+29),
        QuantizedMultiplier.fromScale(Math.nextDown(QuantizedMultiplier.SCALE_LIMIT)),
        QuantizedMultiplier.fromScale(Math.nextDown(0x1p-32)),
        QuantizedMultiplier.fromScale(0x1.8p-32)};
    assertEquals(List.of(31, 31, -31, -31), Arrays.stream(lanes).map(QuantizedMultiplier::shift).toList());
    int[] small = {0, 1, -1, 2, -2, 3, Integer.MAX_VALUE, Integer.MIN_VALUE};
    int[] large = {Integer.MIN_VALUE, Integer.MAX_VALUE, 1 << 30, -(1 << 30), 3 << 29, -(3 << 29), Integer.MIN_VALUE + 1, 0};
    int rows = small.length;
    int channels = Math.min(p.rows(), lanes.length);
    byte[] image = new byte[(int) p.extMemBytes()];
    byte[] table = IsaSimulator.ppuTableImage(PpuFitter.fit(PpuFunction.TANH, PpuFormat.DEFAULT));
    System.arraycopy(table, 0, image, 0x8000, table.length);
    ByteBuffer ext = ByteBuffer.wrap(image).order(ByteOrder.LITTLE_ENDIAN);
    for (int j = 0; j < channels; j++) {
      System.arraycopy(IsaSimulator.ppmRecord(0, lanes[j], 0), 0, image, 0x8400 + 16 * j, 16);
      for (int i = 0; i < rows; i++) {
        ext.putInt(0x10000 + 16 * line * i + 4 * j, (lanes[j].shift() > 0 ? small : large)[i]);
      }
    }
    long results = p.spadBytes() / 2;
    Program prog = Program.builder().load(0x10000, 16L * line, 0, 16L * line, 4L * channels, rows).ppuTab(0x8000)
        .ppmCfg(0x8400, channels).ppm(0, 16L * line, results, line, rows, channels)
        .store(0x20000, line, results, line, channels, rows).halt().build();
    ProgramCosim.Outcome o = ProgramCosim.run(NPU.rtl(), RandomPrograms.place(image, prog, 0), 0);
    String what = Disassembler.disassemble(prog);
    assertEquals(ErrorCause.NONE, o.golden().error(), what);
    assertTrue(o.bitExact(), what + "first differing byte at 0x" + Long.toHexString(o.firstDifference()));
    assertEquals(Map.of(), RandomProgramCosimTest.mismatches(o), what);
  }

  @Test
  void malformedPpmCommandsHaltWithTheirError() {
    MachineParams p = NPU.rtl().config().machine();
    long mem = p.extMemBytes();
    Object[][] cases = {
        {Program.builder().fence().ppm(0, 16, 64, 4, 1, 1), ErrorCause.UNSUPPORTED, 1},
        {Program.builder().ppuTab(0x8000).ppmCfg(0x8400, 0), ErrorCause.BAD_SHAPE, 1},
        {Program.builder().ppmCfg(0x8400, p.ppmChannels() + 1), ErrorCause.BAD_SHAPE, 0},
        {Program.builder().ppmCfg(0x8402, 1), ErrorCause.EXT_ADDRESS, 0},
        {Program.builder().ppmCfg(mem - 16, 2), ErrorCause.EXT_ADDRESS, 0},
        {Program.builder().ppuTab(mem - 128), ErrorCause.EXT_ADDRESS, 0},
        {Program.builder().ppuTab(0x8000).ppm(0, 16, 64, 4, 0, 1), ErrorCause.BAD_SHAPE, 1},
        {Program.builder().ppuTab(0x8000).ppm(0, 16, 64, 4, 1, p.rows() + 1), ErrorCause.BAD_SHAPE, 1},
        {Program.builder().ppuTab(0x8000).ppm(2, 16, 64, 4, 1, 1), ErrorCause.SPAD_ADDRESS, 1},
        {Program.builder().ppuTab(0x8000).ppm(0, 16, p.spadBytes() - 4, 4, 2, 1), ErrorCause.SPAD_ADDRESS, 1},
        {Program.builder().ppuTab(0x8000).ppm(p.spadBytes() - 12, 16, 0, 4, 1, 4), ErrorCause.SPAD_ADDRESS, 1},
        {Program.builder().gemm(1, 8, 4, 0, 8, 64, 4, 128, 16, 1), ErrorCause.UNSUPPORTED, 0},
        {Program.builder().gemm(1, 8, 4, 0, 8, 64, 4, 128, 16, 2), ErrorCause.UNSUPPORTED, 0},
    };
    byte[] image = new byte[(int) p.extMemBytes()];
    byte[] table = IsaSimulator.ppuTableImage(PpuFitter.fit(PpuFunction.TANH, PpuFormat.DEFAULT));
    System.arraycopy(table, 0, image, 0x8000, table.length);
    ProgramErrorCases.assertEachHaltsWithItsError(NPU.rtl(), image, cases);
  }

  @Test
  void shippedPpmExampleIsBitExact() throws Exception {
    Path example = Path.of(System.getProperty("llmnpu.repoRoot", ".."), "npu-isa", "examples", "gemm-ppm-gelu.npu");
    Assembler.Assembled a = Assembler.assemble(Files.readString(example), example.toString());
    byte[] image = new byte[(int) NPU.rtl().config().machine().extMemBytes()];
    new Random(5).nextBytes(image);
    a.place(image);
    ProgramCosim.Outcome o = ProgramCosim.run(NPU.rtl(), image, a.origin());
    assertEquals(ErrorCause.NONE, o.rtl().error());
    assertTrue(o.bitExact());
    assertEquals(Map.of(), RandomProgramCosimTest.mismatches(o));
    assertEquals(64, o.rtl().counters().get(Counter.PPM_ELEMENTS));
  }
}
