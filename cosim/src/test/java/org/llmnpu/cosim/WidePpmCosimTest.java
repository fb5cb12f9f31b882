package org.llmnpu.cosim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.llmnpu.isa.Command;
import org.llmnpu.isa.Counter;
import org.llmnpu.isa.Disassembler;
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
 * The wide PPM ({@code ppmWide}: {@code line} lanes) on the RTL: a {@code gemm ppm=1}'s drain reads a whole N tile of a
 * result row a cycle and writes its codes as one line ({@code M·ceil(N/line)} drain cycles). Random fused programs
 * (ragged N, N above the array's rows, both parameter banks, scratchpad and streamed INT8/INT4 W, gated and ungated,
 * saturating multipliers, gate codes −128, 127, 0, −1), random GEMM → {@code ppm} chains (the {@code ppm} command on the
 * wide PPM: its source line in every quarter of the lanes) and a program mixing INT32 drains, an accumulating drain,
 * kept-X fused GEMMs and a {@code ppm} are bit-exact with the golden ISA simulator (memory, status, every counter) with
 * RTL cycles = {@code CycleModel}'s, on 16-byte lines (16 lanes, N up to 256, kept X) and on 4-byte lines (4 lanes).
 */
class WidePpmCosimTest {
  /** {@link SharedNpus#WIDE_LINES} (16-byte lines, N up to 256, the gate) with the wide PPM and the kept X buffer. */
  static final NpuConfig LINES16 = SharedNpus.WIDE_LINES.toBuilder().ppmWide(true).xKeep(true).build();
  /** The small NPU (4-byte lines) with the gate and the wide PPM, its clock gates checked. */
  static final NpuConfig SMALL = NpuConfig.small().toBuilder().ppmGate(true).ppmWide(true).clockGating("checked")
      .build();
  @RegisterExtension
  static final NpuRtlFixture NPU = new NpuRtlFixture(LINES16);

  private static void fused(NpuRtl target, Random r, int programs, int... ns) {
    MachineParams p = target.config().machine();
    assertTrue(p.ppmWide() && p.ppmGate());
    for (int i = 0; i < programs; i++) {
      RandomPrograms.Case t = PpmChains.generateFused(p, r, 2 + r.nextInt(2), i % 2 == 1, i % 3 != 0, true, ns);
      ProgramCosim.Outcome o = ProgramCosim.run(target, t.image(), t.programAddress());
      String what = "program " + i + ":\n" + Disassembler.disassemble(t.program());
      ProgramErrorCases.assertExact(o, what);
      assertTrue(o.rtl().counters().get(Counter.PPM_ELEMENTS) > 0, what);
    }
  }

  private static void chains(NpuRtl target, Random r, int programs) {
    MachineParams p = target.config().machine();
    for (int i = 0; i < programs; i++) {
      RandomPrograms.Case t = PpmChains.generate(p, r, 1 + r.nextInt(3), i % 2 == 1);
      ProgramCosim.Outcome o = ProgramCosim.run(target, t.image(), t.programAddress());
      ProgramErrorCases.assertExact(o, "ppm chain " + i + ":\n" + Disassembler.disassemble(t.program()));
    }
  }

  @Test
  void fusedGemmsOnSixteenByteLinesAreBitExactWithModelCycles() {
    fused(NPU.rtl(), new Random(4401), 8, 1, 15, 16, 17, 37, 172, 255);
  }

  @Test
  void ppmCommandsAndInt32DrainsOnTheWidePpmAreBitExactWithModelCycles() {
    chains(NPU.rtl(), new Random(4402), 4);
  }

  @Test
  void int32AccumulatingAndKeptXFusedGemmsInOneProgram() {
    NpuRtl rtl = NPU.rtl();
    MachineParams p = rtl.config().machine();
    for (int n : new int[] {37, 16, 1}) {
      Mixed t = mixed(p, new Random(4403 + n), 7, 37, n);
      ProgramCosim.Outcome o = ProgramCosim.run(rtl, t.image, 0);
      String what = "n " + n + ":\n" + Disassembler.disassemble(t.program);
      ProgramErrorCases.assertExact(o, what);
      // the narrow PPM's golden run of the same program: the same memory, M·(ceil(4N/line) − ceil(N/line)) fewer
      // drain writes for each of the two fused GEMMs here
      IsaSimulator.Result narrow = IsaSimulator.run(p.withPpmWide(false), t.image.clone(), 0);
      assertTrue(java.util.Arrays.equals(narrow.memory(), o.golden().memory()), what);
      int line = p.lineBytes();
      long saved = 2L * 7 * ((4L * n + line - 1) / line - (n + line - 1) / line);
      assertEquals(narrow.counter(Counter.SPAD_WRITES) - saved, o.rtl().counters().get(Counter.SPAD_WRITES), what);
      assertTrue(o.rtlCycles() <= narrow.counter(Counter.CYCLES), what);
      System.out.printf("wide PPM, mixed program n %d: %,d RTL cycles (narrow PPM golden %,d)%n", n, o.rtlCycles(),
          narrow.counter(Counter.CYCLES));
    }
  }

  @Test
  void fourByteLinesFusedGemmsAndPpmChains() {
    try (NpuRtl sim = NpuRtl.start(SMALL, SimModes.local())) {
      assertEquals(4, SMALL.machine().ppmLanes());
      fused(sim, new Random(4404), 6, 1, 3, 4, 5, 37, 64);
      chains(sim, new Random(4405), 3);
    }
  }

  private record Mixed(byte[] image, Program program) {
  }

  /**
   * X (M×K) and W (K×N) loaded; Y = X·W as INT32, then Y += X·W (accumulate, X kept); the gate codes loaded into the
   * code rows and a gated fused GEMM with streamed W and kept X (bank 0); an ungated fused GEMM of the scratchpad W
   * (bank 1, after a table); a {@code ppm} of Y's first {@code min(N, rows)} columns (bank 0); stores of the bytes
   * each wrote (the scratchpad's other bytes are undefined on the RTL).
   */
  private static Mixed mixed(MachineParams p, Random r, int m, int k, int n) {
    int line = p.lineBytes();
    byte[] image = new byte[(int) p.extMemBytes()];
    r.nextBytes(image);
    for (int j = 0; j < n; j++) {
      System.arraycopy(IsaSimulator.ppmRecord(r.nextInt(2000) - 1000, QuantizedMultiplier.fromScale(
          Math.scalb(1 + r.nextDouble(), -6 - r.nextInt(6))), r.nextInt(9) - 4), 0, image, 0x8400 + 16 * j, 16);
    }
    byte[] table = IsaSimulator.ppuTableImage(PpuFitter.fit(PpuFunction.SILU, PpuFormat.DEFAULT));
    System.arraycopy(table, 0, image, 0x8000, table.length);
    long xStride = RandomPrograms.roundUp(k, line);
    long wStride = RandomPrograms.roundUp(n, line);
    long yStride = RandomPrograms.roundUp(4L * n, line);
    long qStride = RandomPrograms.roundUp(n, line);
    long x = 0;
    long w = x + m * xStride;
    long y = RandomPrograms.roundUp(w + k * wStride, line);
    long q1 = y + m * yStride;
    long q2 = q1 + m * qStride;
    long q3 = q2 + m * qStride;
    long extW = 0x10000;
    long extGate = 0x20000;
    int lanes = Math.min(n, p.rows());
    Program prog = Program.builder().ppuTab(0x8000).ppmCfg(0x8400, n, 0, 0).ppmCfg(0x8400, n, 0, 1)
        .load(0x30000, xStride, x, xStride, k, m).load(extW, wStride, w, wStride, n, k)
        .gemm(m, k, n, x, xStride, w, wStride, y, yStride)
        .add(new Command.Gemm(m, k, n, x, xStride, w, wStride, y, yStride, Command.DENSE, 1, 0, 0, 0, 0, 1))
        .load(extGate, qStride, q1, qStride, n, m)
        .add(new Command.Gemm(m, k, n, x, xStride, extW, wStride, q1, qStride, Command.DENSE, 0, 1, 0, 1, 1, 1))
        .add(new Command.Gemm(m, k, n, x, xStride, w, wStride, q2, qStride, Command.DENSE, 0, 0, 0, 2, 0, 1))
        .ppm(y, yStride, q3, qStride, m, lanes)
        .store(0x40000, yStride, y, yStride, 4L * n, m).store(0x48000, qStride, q1, qStride, n, 2L * m).store(0x4C000, qStride, q3, qStride, lanes, m)
        .halt().build();
    return new Mixed(RandomPrograms.place(image, prog, 0), prog);
  }
}
