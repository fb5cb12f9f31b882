package org.llmnpu.cosim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.llmnpu.isa.Command;
import org.llmnpu.isa.Counter;
import org.llmnpu.isa.ErrorCause;
import org.llmnpu.isa.Program;
import org.llmnpu.isa.dsp.DspAssembler;
import org.llmnpu.isa.dsp.DspOp;
import org.llmnpu.rtl.npu.NpuConfig;

/**
 * The corners of the DSP commands where hardware and golden must say the same: an undefined DSP
 * opcode is a NOP, buffer rows wrap, registers persist from one {@code dsprun} to the next while the
 * length restarts at 0, tables are empty (start NaN, coefficients 0) until a {@code dsptab}, and
 * every INT32/INT8 → FP16 conversion on {@code dspin} rounds once, bit-exact. (A program that never
 * halts: {@code MalformedProgramTest}.)
 */
class DspCornerCasesTest {
  @RegisterExtension
  static final NpuRtlFixture NPU = new NpuRtlFixture(NpuConfig.small());
  private static final long PROG = 0x9000;
  private static final long PROG2 = 0xA000;

  @Test
  void undefinedOpcodesWrapsPersistentRegistersAndEmptyTables() {
    // Run 1: r7 = a value, r8 = the exp table's start of segment 3 and r10 its c1 of segment 3 (no
    // dsptab yet: NaN and 0), then an undefined opcode whose fields would write r7 (a NOP), then HALT.
    DspAssembler a = new DspAssembler();
    a.emit(DspOp.SETLEN, 0, 0, 0, 0, false, 0, 1 << 20);
    a.li(7, 0x4248);
    a.li(9, 3);
    a.aux(DspOp.TSTART, 0, 8, 9, 0);
    a.aux(DspOp.TCOEF, 1 << 2, 10, 9, 0);
    a.li(11, 0x1234);
    long[] firstWords = a.finish("first").words();
    long[] first = java.util.Arrays.copyOf(firstWords, firstWords.length + 1);
    first[first.length - 1] = first[first.length - 2];                  // HALT last
    first[first.length - 2] = 0x3FL << 58 | 7L << 53 | 0x3C00;           // undefined opcode 0x3F, rd = r7
    // Run 2: no SETLEN (the length restarts at 0, so the masked store writes nothing), then unmasked
    // stores of the registers run 1 left: rows 126, 127 and 128 → 0 (wrapping) get r7, r8, r10; a loop
    // with a row beyond the buffer wraps to rows 2, 3, 4.
    DspAssembler b = new DspAssembler();
    b.store(5, 11);
    b.emit(DspOp.ST, 0, 7, 0, 0, false, 0, 126);
    b.emit(DspOp.ST, 0, 8, 0, 0, false, 0, 127);
    b.emit(DspOp.ST, 0, 10, 0, 0, false, 0, 128);
    b.loop(3, () -> b.emit(DspOp.ST, 0, 7, 0, 0, false, 0, 2 + 1000 * 128));
    long[] second = b.finish("second").words();
    int lanes = NPU.rtl().config().machine().dsp().lanes();
    Program p = Program.builder()
        .load(0x20000, 64, 0, 64, 64, 4)
        .dspIn(0, 64, 32, 4, 0, Command.FMT_INT8, 0)                    // rows 0..31
        .dspIn(0, 64, 4 * lanes, 1, 124, Command.FMT_FP16, 0)           // rows 124..127
        .dspRun(PROG, first.length)
        .dspRun(PROG2, second.length)
        .dspOut(0x400, 64, 8 * lanes, 1, 0, Command.FMT_FP16)           // rows 0..7
        .dspOut(0x440, 64, 4 * lanes, 1, 124, Command.FMT_FP16)         // rows 124..127
        .dspOut(0x480, 64, 4 * lanes, 1, 124, Command.FMT_INT8)
        .store(0x30000, 64, 0x400, 64, 16 * lanes, 1)
        .store(0x30040, 64, 0x440, 64, 8 * lanes, 1)
        .store(0x30080, 64, 0x480, 64, 4 * lanes, 1)
        .snapshot(0x40000)
        .halt().build();
    byte[] image = new byte[(int) NPU.rtl().config().machine().extMemBytes()];
    new Random(11).nextBytes(image);
    writeWords(image, PROG, first);
    writeWords(image, PROG2, second);
    RandomPrograms.place(image, p, 0);
    ProgramCosim.Outcome o = ProgramCosim.run(NPU.rtl(), image, 0);
    assertTrue(o.statusMatches(), "status " + o.rtl().error() + " vs golden " + o.golden().error());
    assertEquals(ErrorCause.NONE, o.rtl().error());
    assertTrue(o.bitExact(), "first difference at 0x" + Long.toHexString(o.firstDifference()));
    assertEquals(Map.of(), RandomProgramCosimTest.mismatches(o));
    byte[] m = o.golden().memory();
    assertEquals(0x4248, half(m, 0x30040 + 2 * 2 * lanes), "row 126: r7 (the undefined opcode wrote nothing)");
    assertEquals(0x7E00, half(m, 0x30040 + 2 * 3 * lanes), "row 127: TSTART before dsptab is NaN");
    assertEquals(0, half(m, 0x30000), "row 0 (128 wrapped): TCOEF before dsptab is 0");
    assertEquals(0x4248, half(m, 0x30000 + 2 * 4 * lanes), "row 4 (wrapped from a row beyond the buffer)");
  }

  private static int half(byte[] m, int at) {
    return (m[at] & 0xFF) | (m[at + 1] & 0xFF) << 8;
  }

  static void writeWords(byte[] image, long at, long[] words) {
    for (int i = 0; i < words.length; i++) {
      for (int j = 0; j < 8; j++) {
        image[(int) at + 8 * i + j] = (byte) (words[i] >>> (8 * j));
      }
    }
  }

  @Test
  void int32AndInt8ConversionsRoundOnceAtEveryShift() {
    // Corner values: 0, ±1, the FP16 tie points, the largest INT32s, values that overflow to ±∞ or
    // underflow to subnormals and zero at the extreme shifts.
    int[] corners = {0, 1, -1, 2047, 2049, 4095, 4097, -4097, 65504, 65519, 65520, -65520, Integer.MAX_VALUE,
        Integer.MIN_VALUE, 0x7FFFF000, 12345678, -87654321, 3, 5, 0x1000001};
    Random r = new Random(13);
    byte[] data = new byte[4 * 64];
    for (int i = 0; i < 64; i++) {
      int v = i < corners.length ? corners[i] : r.nextInt() >> r.nextInt(31);
      for (int j = 0; j < 4; j++) {
        data[4 * i + j] = (byte) (v >>> (8 * j));
      }
    }
    Program.Builder b = Program.builder().load(0x20000, 256, 0, 256, 256, 1);
    long out = 0x30000;
    for (int shift : new int[] {-24, -20, -15, -14, -10, -1, 0, 1, 7, 15}) {
      b.dspIn(0, 256, 64, 1, 0, Command.FMT_INT32, shift).dspOut(0x400, 128, 64, 1, 0, Command.FMT_FP16)
          .store(out, 128, 0x400, 128, 128, 1);
      out += 128;
    }
    b.dspIn(0, 256, 256, 1, 0, Command.FMT_INT8, 0).dspOut(0x400, 512, 256, 1, 0, Command.FMT_FP16)
        .store(out, 512, 0x400, 512, 512, 1).halt();
    byte[] image = new byte[(int) NPU.rtl().config().machine().extMemBytes()];
    new Random(14).nextBytes(image);
    System.arraycopy(data, 0, image, 0x20000, data.length);
    RandomPrograms.place(image, b.build(), 0);
    ProgramCosim.Outcome o = ProgramCosim.run(NPU.rtl(), image, 0);
    assertTrue(o.bitExact(), "first difference at 0x" + Long.toHexString(o.firstDifference()));
    assertEquals(Map.of(), RandomProgramCosimTest.mismatches(o));
    assertEquals(ErrorCause.NONE, o.rtl().error());
  }


}
