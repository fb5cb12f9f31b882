package org.llmnpu.cosim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.Random;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.llmnpu.isa.Counter;
import org.llmnpu.isa.ErrorCause;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.isa.Program;
import org.llmnpu.isa.dsp.DspInstruction;
import org.llmnpu.isa.dsp.DspOp;
import org.llmnpu.rtl.npu.NpuConfig;
import org.llmnpu.rtl.npu.NpuDriver;
import org.llmnpu.verilator.SimModes;

/**
 * Every malformed program halts the NPU with its error status (cause and command index) — the
 * golden simulator's — instead of hanging; what ran before the fault is bit-exact, and so are the
 * counters and cycles up to the halt.
 */
class MalformedProgramTest {
  @RegisterExtension
  static final NpuRtlFixture NPU = new NpuRtlFixture(NpuConfig.small());

  static Stream<Arguments> cases() {
    long mem = NpuConfig.small().machine().extMemBytes();
    return Stream.of(
        Arguments.of("undefined opcode", ErrorCause.UNDEFINED_OPCODE, 1,
            (Consumer<Program.Builder>) b -> b.load(0x10000, 4, 0, 4, 4, 1).raw(0x55, 0, 0, 0, 0, 0, 0, 0).halt()),
        Arguments.of("reserved bits of word 0", ErrorCause.UNDEFINED_OPCODE, 0,
            (Consumer<Program.Builder>) b -> b.raw(0x100 | 0x0F, 0, 0, 0, 0, 0, 0, 0)),
        Arguments.of("load past the end of memory", ErrorCause.EXT_ADDRESS, 0,
            (Consumer<Program.Builder>) b -> b.load(mem - 8, 4, 0, 4, 12, 1).halt()),
        Arguments.of("store rows past the end of memory", ErrorCause.EXT_ADDRESS, 2,
            (Consumer<Program.Builder>) b -> b.fence().fence().store(mem - 64, 64, 0, 4, 4, 2).halt()),
        Arguments.of("misaligned memory address", ErrorCause.EXT_ADDRESS, 0,
            (Consumer<Program.Builder>) b -> b.load(0x10002, 4, 0, 4, 4, 1).halt()),
        Arguments.of("scratchpad overflow", ErrorCause.SPAD_ADDRESS, 0,
            (Consumer<Program.Builder>) b -> b.load(0x10000, 4, 4000, 4, 100, 1).halt()),
        Arguments.of("misaligned scratchpad stride", ErrorCause.SPAD_ADDRESS, 0,
            (Consumer<Program.Builder>) b -> b.load(0x10000, 4, 0, 6, 4, 2).halt()),
        Arguments.of("zero rows", ErrorCause.BAD_SHAPE, 0,
            (Consumer<Program.Builder>) b -> b.load(0x10000, 4, 0, 4, 4, 0).halt()),
        Arguments.of("row longer than 65535 bytes", ErrorCause.BAD_SHAPE, 0,
            (Consumer<Program.Builder>) b -> b.load(0x10000, 4, 0, 4, 70000, 1).halt()),
        Arguments.of("gemm with M = 0", ErrorCause.BAD_SHAPE, 0,
            (Consumer<Program.Builder>) b -> b.gemm(0, 4, 4, 0, 4, 64, 4, 128, 16).halt()),
        Arguments.of("gemm N beyond the engine", ErrorCause.BAD_SHAPE, 1,
            (Consumer<Program.Builder>) b -> b.fence().gemm(2, 4, 65, 0, 4, 64, 4, 128, 16).halt()),
        Arguments.of("gemm result outside the scratchpad", ErrorCause.SPAD_ADDRESS, 0,
            (Consumer<Program.Builder>) b -> b.gemm(4, 4, 4, 0, 4, 64, 4, 4000, 32).halt()),
        Arguments.of("program without halt runs off the end of memory", ErrorCause.EXT_ADDRESS, 2,
            (Consumer<Program.Builder>) b -> b.fence().fence()),
        Arguments.of("dspin beyond the DSP buffer", ErrorCause.DSP_ADDRESS, 1,
            (Consumer<Program.Builder>) b -> b.load(0x10000, 4, 0, 4, 4, 1).dspIn(0, 4, 5, 1, 127, 1, 0).halt()),
        Arguments.of("dspout beyond the DSP buffer", ErrorCause.DSP_ADDRESS, 0,
            (Consumer<Program.Builder>) b -> b.dspOut(0, 64, 32, 17, 0, 0).halt()),
        Arguments.of("dspin format 3", ErrorCause.BAD_SHAPE, 0,
            (Consumer<Program.Builder>) b -> b.dspIn(0, 4, 4, 1, 0, 3, 0).halt()),
        Arguments.of("dspin shift 16", ErrorCause.BAD_SHAPE, 0,
            (Consumer<Program.Builder>) b -> b.dspIn(0, 4, 1, 1, 0, 2, 16).halt()),
        Arguments.of("dspin shift -25", ErrorCause.BAD_SHAPE, 0,
            (Consumer<Program.Builder>) b -> b.dspIn(0, 4, 1, 1, 0, 2, -25).halt()),
        Arguments.of("dspout INT32", ErrorCause.BAD_SHAPE, 0,
            (Consumer<Program.Builder>) b -> b.dspOut(0, 4, 1, 1, 0, 2).halt()),
        Arguments.of("dspin zero rows", ErrorCause.BAD_SHAPE, 0,
            (Consumer<Program.Builder>) b -> b.dspIn(0, 4, 1, 0, 0, 0, 0).halt()),
        Arguments.of("dspin scratchpad overflow (INT32 rows)", ErrorCause.SPAD_ADDRESS, 0,
            (Consumer<Program.Builder>) b -> b.dspIn(4000, 4, 25, 1, 0, 2, 0).halt()),
        Arguments.of("dspout misaligned scratchpad stride", ErrorCause.SPAD_ADDRESS, 0,
            (Consumer<Program.Builder>) b -> b.dspOut(0, 6, 1, 2, 0, 1).halt()),
        Arguments.of("dspld of 0 words", ErrorCause.BAD_SHAPE, 0,
            (Consumer<Program.Builder>) b -> b.dspLoad(0x8000, 0, 0).halt()),
        Arguments.of("dspld past the end of the program memory", ErrorCause.DSP_ADDRESS, 0,
            (Consumer<Program.Builder>) b -> b.dspLoad(0x8000, 4, 254).halt()),
        Arguments.of("dsprun entry past the end of the program memory", ErrorCause.DSP_ADDRESS, 0,
            (Consumer<Program.Builder>) b -> b.dspRunResident(256).halt()),
        Arguments.of("dsprun longer than the program memory", ErrorCause.DSP_ADDRESS, 0,
            (Consumer<Program.Builder>) b -> b.dspRun(0x8000, 257).halt()),
        Arguments.of("dsprun program past the end of memory", ErrorCause.EXT_ADDRESS, 0,
            (Consumer<Program.Builder>) b -> b.dspRun(mem - 64, 9).halt()),
        Arguments.of("dsptab misaligned", ErrorCause.EXT_ADDRESS, 0,
            (Consumer<Program.Builder>) b -> b.dspTab(0x8002).halt()),
        Arguments.of("snapshot past the end of memory", ErrorCause.EXT_ADDRESS, 1,
            (Consumer<Program.Builder>) b -> b.fence().snapshot(mem - 128).halt()),
        Arguments.of("load4 whose unpacked rows overflow the scratchpad", ErrorCause.SPAD_ADDRESS, 0,
            (Consumer<Program.Builder>) b -> b.load4(0x10000, 64, 0, 64, 40, 64).halt()),
        Arguments.of("load4 past the end of memory", ErrorCause.EXT_ADDRESS, 0,
            (Consumer<Program.Builder>) b -> b.load4(mem - 8, 4, 0, 8, 12, 1).halt()));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void malformedProgramHaltsWithItsError(String what, ErrorCause cause, int index, Consumer<Program.Builder> body) {
    Program.Builder b = Program.builder();
    body.accept(b);
    Program prog = b.build();
    byte[] image = new byte[(int) NPU.rtl().config().machine().extMemBytes()];
    new Random(3).nextBytes(image);
    // "Runs off the end": place the program in the last two command slots.
    long at = what.startsWith("program without halt") ? image.length - 2L * 32 : 0;
    RandomPrograms.place(image, prog, at);
    ProgramCosim.Outcome o = ProgramCosim.run(NPU.rtl(), image, at);
    assertEquals(cause, o.golden().error(), what + ": golden cause");
    assertEquals(index, o.golden().errorCommand(), what + ": golden command");
    assertEquals(cause, o.rtl().error(), what + ": RTL cause");
    assertEquals(index, o.rtl().errorCommand(), what + ": RTL command");
    assertTrue(o.bitExact(), what + ": first difference at " + o.firstDifference());
    assertEquals(Map.of(), RandomProgramCosimTest.mismatches(o), what);
  }

  /**
   * The range checks' sums {@code base + (rows − 1)·stride + bytes} around their limits (the scratchpad, the memory,
   * the DSP buffer): ends at the limit and one line either side, strides and row counts whose products pass
   * the limit's bit width, misaligned fields — RTL = golden model (cause, command, counters, memory).
   */
  @Test
  void rangeChecksAtTheirLimitsAreTheGoldenModels() {
    MachineParams mp = NPU.rtl().config().machine();
    long spad = mp.spadBytes();
    long mem = mp.extMemBytes();
    int line = mp.lineBytes();
    Random r = new Random(21);
    java.util.Set<ErrorCause> seen = java.util.EnumSet.noneOf(ErrorCause.class);
    for (int i = 0; i < 180; i++) {
      long limit = switch (i % 6) { case 1 -> mem; case 4 -> mp.dsp().elements(); default -> spad; };
      // rows from 1 to 2^16 − 1 (log-uniform), a stride whose product is a random fraction of the limit or any
      // 32-bit multiple of the line, an end at the limit, a line or a few bytes either side
      long rows = Math.min(i % 6 == 3 ? 64 : 0xFFFF, (long) Math.pow(2, 16 * r.nextDouble()));
      long fit = rows == 1 ? 0 : (long) (limit * 1.2 * r.nextDouble()) / ((rows - 1) * line) * line;
      long stride = r.nextInt(4) == 0 ? pick(r, 64, spad, 0xFFFFFFFFL & -line, line * (1 + r.nextInt(64))) : fit;
      // (at most 32 KiB moved by a command that passes its checks)
      long bytes = Math.max(1, Math.min(32768 / rows, pick(r, line, 2L * line, 12, 64, 1 + r.nextInt(256))));
      long delta = pick(r, -line, 0, line, 0, 2 + r.nextInt(3));
      long base = Math.floorMod(limit - (rows - 1) * stride - bytes + delta, 1L << 32);
      Program.Builder b = Program.builder();
      switch (i % 6) {
        case 0 -> b.load(0x10000, 0, base, stride, bytes, rows);
        case 1 -> b.load(0x10000, 0, 0, 0, 256, 1).store(base, stride, 0, 0, bytes, rows); // a defined source row
        case 2 -> b.load4(0x10000, 0, base, stride, bytes, rows);
        case 3 -> b.gemm(rows, 4, Math.min(bytes / 4 + 1, 64), 0, line, 64, line, base, stride);
        case 4 -> b.dspIn(0, 0, bytes, rows % 64 + 1, Math.floorMod(limit - (rows % 64 + 1) * bytes + delta,
            1L << 32) / mp.dsp().lanes(), r.nextInt(3), 0); // the buffer's end: dst·lanes + rows·rowElems
        default -> b.ppm(base, stride, 0, line, rows, Math.min(bytes / 4 + 1, 4));
      }
      Program prog = b.halt().build();
      byte[] image = new byte[(int) mem];
      seen.add(goldenAndRtlAgree(prog, image, "case " + i + ": "
          + java.util.Arrays.toString(prog.words(prog.size() - 2))));
    }
    assertTrue(seen.containsAll(java.util.List.of(ErrorCause.NONE, ErrorCause.SPAD_ADDRESS, ErrorCause.EXT_ADDRESS,
        ErrorCause.DSP_ADDRESS)), "the cases reach every outcome: " + seen);
  }

  /**
   * {@code dspin}/{@code dspout} with a DSP row stride around the buffer's end: the last row ending at the last
   * element, one element or a row either side, rows that overlap (a row longer than its stride) or just fit, strides
   * whose product with the rows passes the buffer's row bits (up to 65535) — RTL = golden (cause, command, counters,
   * memory), and every outcome reached.
   */
  @Test
  void stridedDspCopiesAtTheBufferEndAreTheGoldenModels() {
    MachineParams mp = NPU.rtl().config().machine();
    int lanes = mp.dsp().lanes();
    int bufferRows = mp.dsp().rows();
    Random r = new Random(32);
    java.util.Set<ErrorCause> seen = java.util.EnumSet.noneOf(ErrorCause.class);
    for (int i = 0; i < 60; i++) {
      long rows = pick(r, 1, 2, 3, 1 + r.nextInt(64), 1 + r.nextInt(0xFFFF));
      long stride = pick(r, 1, 2, 1 + r.nextInt(8), bufferRows, 0xFFFF, 1 + r.nextInt(bufferRows));
      long elems = pick(r, 1, lanes, stride * lanes, stride * lanes + 1, 1 + r.nextInt(3 * lanes));
      elems = Math.max(1, Math.min(elems, 1024 / Math.max(1, Math.min(rows, 64))));
      long delta = pick(r, -1, 0, 1, 0, lanes, -lanes);
      // the last row's end: (dst + (rows − 1)·stride)·lanes + elems = the buffer's elements + delta
      long lastRowStart = mp.dsp().elements() + delta - elems;
      long dst = Math.floorMod(Math.floorDiv(lastRowStart, lanes) - (rows - 1) * stride, 1L << 32);
      int format = r.nextInt(2);
      Program.Builder b = Program.builder();
      if (i % 2 == 0) {
        b.dspIn(0, 0, elems, rows, dst, format, 0, stride);
      } else {
        b.dspOut(0, 0, elems, rows, dst, format, stride);
      }
      Program prog = b.halt().build();
      byte[] image = new byte[(int) mp.extMemBytes()];
      seen.add(goldenAndRtlAgree(prog, image, "case " + i + ": " + org.llmnpu.isa.Disassembler.disassemble(prog)));
    }
    assertTrue(seen.containsAll(java.util.List.of(ErrorCause.NONE, ErrorCause.DSP_ADDRESS)),
        "the cases reach both outcomes: " + seen);
  }

  /**
   * The two scratchpad ends whose row bytes the predecode selects as the command arrives (a registered term of its
   * products 2 and 5): {@code dspin} (FP16, INT8, INT32) and {@code dspout} (FP16, INT8) whose last scratchpad row
   * ends at the scratchpad's end, a line or a byte either side, and GEMMs with {@code ppm=1} (a Y row of N INT8
   * codes) whose result ends there — RTL = golden (cause, command, counters, memory), and each kind reaches both
   * outcomes.
   */
  @Test
  void copyAndPpmResultEndsAtTheScratchpadEndAreTheGoldenModels() {
    MachineParams mp = NPU.rtl().config().machine();
    long spad = mp.spadBytes();
    int line = mp.lineBytes();
    Random r = new Random(44);
    Map<String, java.util.Set<ErrorCause>> seen = new java.util.TreeMap<>();
    for (int i = 0; i < 72; i++) {
      long rows = pick(r, 1, 2, 1 + r.nextInt(8), 1 + r.nextInt(32));
      long stride = line * pick(r, 1, 2, 1 + r.nextInt(16));
      long lines = pick(r, 1, 2, 4);
      long delta = pick(r, -line, -1, 0, 1, line, 0);
      long base = Math.floorMod(spad - (rows - 1) * stride - lines * line, 1L << 32);
      Program.Builder b = Program.builder();
      String kind;
      if (i % 3 < 2) {
        int format = r.nextInt(i % 3 == 0 ? 3 : 2);
        int elementBytes = format == 2 ? 4 : format == 1 ? 1 : 2;
        // the last row ends at the scratchpad's end + delta (rounded up to an element); the copy fits the DSP buffer
        long elems = Math.max(1, Math.floorDiv(lines * line + delta + elementBytes - 1, elementBytes));
        rows = Math.min(rows, mp.dsp().elements() / elems);
        base = Math.floorMod(spad - (rows - 1) * stride - lines * line, 1L << 32);
        kind = (i % 3 == 0 ? "dspin" : "dspout") + " format " + format;
        if (i % 3 == 0) {
          b.dspIn(base, stride, elems, rows, 0, format, 0);
        } else {
          b.dspOut(base, stride, elems, rows, 0, format);
        }
      } else {
        long n = Math.max(1, Math.min(Math.min(mp.maxN(), mp.ppmChannels()), lines * line + delta));
        rows = Math.min(rows, mp.maxM());
        base = Math.floorMod(spad - (rows - 1) * stride - lines * line, 1L << 32);
        kind = "gemm ppm=1";
        b.ppuTab(PPU_TABLE).ppmCfg(PPM_RECORDS, mp.ppmChannels()).add(new org.llmnpu.isa.Command.Gemm(rows, 4, n, 0,
            line, 64, line, base, stride, org.llmnpu.isa.Command.DENSE, 0, 0, 0, 1));
      }
      Program prog = b.halt().build();
      byte[] image = ppmImage(mp);
      ErrorCause cause = goldenAndRtlAgree(prog, image, "case " + i + ": "
          + org.llmnpu.isa.Disassembler.disassemble(prog));
      seen.computeIfAbsent(kind.split(" format")[0], k -> java.util.EnumSet.noneOf(ErrorCause.class)).add(cause);
    }
    for (var e : seen.entrySet()) {
      assertTrue(e.getValue().containsAll(java.util.List.of(ErrorCause.NONE, ErrorCause.SPAD_ADDRESS)),
          e.getKey() + " reaches both outcomes: " + e.getValue());
    }
    assertEquals(java.util.Set.of("dspin", "dspout", "gemm ppm=1"), seen.keySet());
  }

  /**
   * Runs {@code prog} placed at 0 in {@code image} on the RTL and the golden model and asserts they agree (cause,
   * command, counters, memory); the golden's cause.
   */
  private static ErrorCause goldenAndRtlAgree(Program prog, byte[] image, String what) {
    RandomPrograms.place(image, prog, 0);
    ProgramCosim.Outcome o = ProgramCosim.run(NPU.rtl(), image, 0);
    assertEquals(o.golden().error(), o.rtl().error(), what);
    assertEquals(o.golden().errorCommand(), o.rtl().errorCommand(), what);
    assertEquals(Map.of(), RandomProgramCosimTest.mismatches(o), what);
    assertTrue(o.bitExact(), what + ": first difference at " + o.firstDifference());
    return o.golden().error();
  }

  private static final int PPU_TABLE = 0x20000;
  private static final int PPM_RECORDS = 0x20400;

  /** An empty memory image with a fitted GELU table at {@link #PPU_TABLE} and a record a PPM channel after it. */
  private static byte[] ppmImage(MachineParams mp) {
    byte[] image = new byte[(int) mp.extMemBytes()];
    byte[] table = org.llmnpu.isa.IsaSimulator.ppuTableImage(org.llmnpu.numerics.ppu.PpuFitter.fit(
        org.llmnpu.numerics.ppu.PpuFunction.GELU, org.llmnpu.numerics.ppu.PpuFormat.DEFAULT));
    System.arraycopy(table, 0, image, PPU_TABLE, table.length);
    for (int j = 0; j < mp.ppmChannels(); j++) {
      System.arraycopy(org.llmnpu.isa.IsaSimulator.ppmRecord(j,
          org.llmnpu.numerics.requant.QuantizedMultiplier.fromScale(0.01), 1), 0, image, PPM_RECORDS + 16 * j, 16);
    }
    return image;
  }

  private static long pick(Random r, long... choices) {
    return choices[r.nextInt(choices.length)];
  }

  @Test
  void dspProgramThatNeverHaltsStopsAtTheRunLimit() {
    MachineParams mp = NPU.rtl().config().machine();
    int depth = mp.dsp().programDepth();
    // A loop from the last words across the end of the program memory; no HALT anywhere: the run stops
    // after dspMaxRunCycles (2^16 on the small NPU) instructions with WATCHDOG, not a hang.
    long[] code = new long[depth];
    code[depth - 3] = new DspInstruction(DspOp.LOOP, 0, 0, 0, 0, false, 0, (6 << 16) | 5).encode();
    code[1] = new DspInstruction(DspOp.ST, 0, 3, 0, 0, false, 0, 9).encode();
    Program p = Program.builder().fence().dspRun(0x9000, depth).halt().build();
    byte[] image = new byte[(int) mp.extMemBytes()];
    new Random(12).nextBytes(image);
    DspCornerCasesTest.writeWords(image, 0x9000, code);
    RandomPrograms.place(image, p, 0);
    ProgramCosim.Outcome o = ProgramCosim.run(NPU.rtl(), image, 0);
    assertTrue(o.bitExact(), "first difference at 0x" + Long.toHexString(o.firstDifference()));
    assertEquals(Map.of(), RandomProgramCosimTest.mismatches(o));
    assertEquals(ErrorCause.WATCHDOG, o.rtl().error());
    assertEquals(1, o.rtl().errorCommand());
    assertEquals(mp.dsp().maxRunCycles(), o.rtl().counters().get(Counter.DSP_INSTRUCTIONS));
  }

  @Test
  void aStallingDspProgramThatNeverHaltsCountsItsIssuesNotItsStalls() {
    MachineParams mp = NPU.rtl().config().machine();
    int depth = mp.dsp().programDepth();
    // Two dependent FP adds among NOPs, around the program memory forever: with more than one execute
    // stage each add waits for the other's result, so the run limit comes after fewer issues.
    long[] code = new long[depth];
    code[0] = new DspInstruction(DspOp.ADD16, 1, 1, 1, 0, false, 0, 0).encode();
    code[1] = new DspInstruction(DspOp.ADD16, 1, 1, 1, 0, false, 0, 0).encode();
    Program p = Program.builder().fence().dspRun(0x9000, depth).halt().build();
    byte[] image = new byte[(int) mp.extMemBytes()];
    new Random(13).nextBytes(image);
    DspCornerCasesTest.writeWords(image, 0x9000, code);
    RandomPrograms.place(image, p, 0);
    ProgramCosim.Outcome o = ProgramCosim.run(NPU.rtl(), image, 0);
    assertEquals(Map.of(), RandomProgramCosimTest.mismatches(o));
    assertEquals(ErrorCause.WATCHDOG, o.rtl().error());
    // per pass through the memory: depth issues and the second add's wait of executeStages - 1 cycles
    long stalls = mp.dsp().executeStages() - 1;
    long passes = mp.dsp().maxRunCycles() / (depth + stalls);
    long left = mp.dsp().maxRunCycles() % (depth + stalls);
    long issued = passes * depth + (left == 0 ? 0 : 1 + Math.max(0, left - 1 - stalls));
    assertTrue(stalls > 0 && issued < mp.dsp().maxRunCycles(), "the small NPU's DSP stalls: " + issued);
    assertEquals(issued, o.rtl().counters().get(Counter.DSP_INSTRUCTIONS));
  }

  @Test
  void memoryThatNeverAnswersTripsTheWatchdog() {
    NpuConfig slow = NpuConfig.small().withMemory(1000, 4);
    try (NpuRtl model = NpuRtl.start(slow, SimModes.local())) {
      byte[] image = new byte[(int) slow.machine().extMemBytes()];
      RandomPrograms.place(image, Program.builder().halt().build(), 0);
      NpuDriver.Run run = model.run(image, 0, 100_000);
      assertEquals(ErrorCause.WATCHDOG, run.error());
      assertEquals(0, run.errorCommand());
      // The fetch issues the beats of up to commandQueueDepth commands (it reads ahead), then waits; the watchdog
      // expires watchdogCycles after the last of them.
      long bound = (long) slow.commandQueueDepth() * slow.machine().beatsPerCommand() + slow.watchdogCycles() + 1;
      assertTrue(run.counters().get(org.llmnpu.isa.Counter.CYCLES) <= bound,
          "halted within the watchdog limit: " + run.counters());
    }
  }
}
