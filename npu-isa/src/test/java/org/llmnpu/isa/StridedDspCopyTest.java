package org.llmnpu.isa;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@code dspin}/{@code dspout} with a DSP row stride (word 6): row r at buffer row {@code dst + r·stride} equals one
 * single-row copy per row; stride 0 is the flat packing; rows that overlap or pass the buffer fail DSP_ADDRESS; the
 * cycles are the flat copy's.
 */
class StridedDspCopyTest {
  private static final MachineParams P = DspCommandTest.P;
  private static final int LANES = P.dsp().lanes();
  private static final int ROWS = P.dsp().rows();

  @Test
  void aStridedCopyEqualsOneCopyPerRow() {
    Random rnd = new Random(32);
    for (int trial = 0; trial < 40; trial++) {
      int format = rnd.nextInt(3);
      int rows = 1 + rnd.nextInt(6);
      int stride = 1 + rnd.nextInt(4);
      int elems = 1 + rnd.nextInt(stride * LANES);
      int spadStride = 16 * (1 + (4 * elems + 15) / 16);
      // every fourth trial: the last row ends at the buffer's last element row
      int lastRows = (elems + LANES - 1) / LANES;
      int dst = trial % 4 == 0 ? ROWS - lastRows - (rows - 1) * stride
          : rnd.nextInt(ROWS - lastRows - (rows - 1) * stride + 1);
      int outFormat = format == Command.FMT_INT8 ? Command.FMT_INT8 : Command.FMT_FP16;
      int shift = format == Command.FMT_INT32 ? -rnd.nextInt(12) : 0;
      byte[] mem = randomImage(rnd);
      Program.Builder strided = Program.builder().load(0x10000, spadStride, 0, spadStride, spadStride, rows)
          .dspIn(0, spadStride, elems, rows, dst, format, shift, stride)
          .dspOut(0x8000, spadStride, elems, rows, dst, outFormat, stride);
      Program.Builder perRow = Program.builder().load(0x10000, spadStride, 0, spadStride, spadStride, rows);
      for (int r = 0; r < rows; r++) {
        perRow.dspIn((long) r * spadStride, spadStride, elems, 1, dst + r * stride, format, shift);
      }
      for (int r = 0; r < rows; r++) {
        perRow.dspOut(0x8000 + (long) r * spadStride, spadStride, elems, 1, dst + r * stride, outFormat);
      }
      IsaSimulator.Result a = run(strided.halt().build(), mem);
      IsaSimulator.Result b = run(perRow.halt().build(), mem);
      String where = "trial " + trial + ": format " + format + ", " + rows + " rows of " + elems + ", stride " + stride
          + ", dst " + dst;
      assertEquals(ErrorCause.NONE, a.error(), where);
      assertArrayEquals(b.scratchpad(), a.scratchpad(), where);
      assertEquals(2L * rows * elems, a.counter(Counter.DSP_ELEMENTS), where);
      long per = CycleFormulas.dspElementsPerCycle(P, DspUnit.elementBytes(format));
      long perOut = CycleFormulas.dspElementsPerCycle(P, DspUnit.elementBytes(outFormat));
      assertEquals(rows * ((elems + per - 1) / per) + 1 + rows * ((elems + perOut - 1) / perOut),
          a.counter(Counter.DSP_CYCLES), where + ": the flat copies' cycles");
    }
  }

  @Test
  void strideZeroIsTheFlatPackingAndAStrideMovesTheRows() {
    byte[] mem = randomImage(new Random(7));
    Program flat = Program.builder().load(0x10000, 64, 0, 64, 64, 3)
        .dspIn(0, 64, 10, 3, 4, Command.FMT_FP16, 0)
        .dspOut(0x8000, 64, 30, 1, 4, Command.FMT_FP16).halt().build();
    Program zero = Program.builder().load(0x10000, 64, 0, 64, 64, 3)
        .dspIn(0, 64, 10, 3, 4, Command.FMT_FP16, 0, 0)
        .dspOut(0x8000, 64, 30, 1, 4, Command.FMT_FP16, 0).halt().build();
    Program strided = Program.builder().load(0x10000, 64, 0, 64, 64, 3)
        .dspIn(0, 64, 10, 3, 4, Command.FMT_FP16, 0, 1)
        .dspOut(0x8000, 64, 30, 1, 4, Command.FMT_FP16).halt().build();
    assertArrayEquals(flat.bytes(), zero.bytes(), "stride 0 encodes as today's command (word 6 zero)");
    assertArrayEquals(run(flat, mem).scratchpad(), run(zero, mem).scratchpad());
    assertFalse(java.util.Arrays.equals(run(flat, mem).scratchpad(), run(strided, mem).scratchpad()),
        "stride 1 puts each 10-element row at lane 0 of its own buffer row");
  }

  @Test
  void overlappingRowsAndRowsPastTheBufferFailDspAddress() {
    assertEquals(ErrorCause.DSP_ADDRESS, errorOf(Program.builder()
        .dspIn(0, 64, LANES + 1, 2, 0, Command.FMT_INT8, 0, 1).halt().build()), "a row longer than its stride");
    assertEquals(ErrorCause.NONE, errorOf(Program.builder()
        .dspIn(0, 64, LANES + 1, 1, 0, Command.FMT_INT8, 0, 1).halt().build()), "one row overlaps nothing");
    assertEquals(ErrorCause.NONE, errorOf(Program.builder()
        .dspIn(0, 64, 2 * LANES, 2, 0, Command.FMT_INT8, 0, 2).halt().build()), "rows exactly stride·lanes long");
    assertEquals(ErrorCause.DSP_ADDRESS, errorOf(Program.builder()
        .dspOut(0, 64, LANES + 1, 3, 0, Command.FMT_INT8, 1).halt().build()), "dspout: the same check");
    assertEquals(ErrorCause.NONE, errorOf(Program.builder()
        .dspIn(0, 64, LANES, 4, ROWS - 1 - 3 * 5, Command.FMT_INT8, 0, 5).halt().build()), "last row the last");
    assertEquals(ErrorCause.DSP_ADDRESS, errorOf(Program.builder()
        .dspIn(0, 64, LANES, 4, ROWS - 3 * 5, Command.FMT_INT8, 0, 5).halt().build()), "last row past the buffer");
    assertEquals(ErrorCause.DSP_ADDRESS, errorOf(Program.builder()
        .dspOut(0, 64, 2, 2, ROWS - 1, Command.FMT_INT8, 1).halt().build()), "dspout past the buffer");
    assertEquals(ErrorCause.DSP_ADDRESS, errorOf(Program.builder()
        .dspIn(0, 64, 1, 2, 0, Command.FMT_INT8, 0, 0xFFFF).halt().build()), "a stride past the buffer");
  }

  @Test
  void theStrideRoundTripsThroughTextAndWords() {
    String text = """
        dspin spad=64 spadStride=64 rowElems=12 rows=3 dst=2 format=2 shift=-3 dstStride=5
        dspout spad=128 spadStride=64 rowElems=12 rows=3 src=2 format=1 srcStride=65535
        dspout spad=128 spadStride=64 rowElems=12 rows=3 src=2 format=1
        halt
        """;
    Program p = Assembler.assemble(text, "stride.npu").program();
    assertEquals(5, ((Command.DspIn) CommandCodec.decode(p.words(0)).orElseThrow()).dstStride());
    assertEquals(65535, ((Command.DspOut) CommandCodec.decode(p.words(1)).orElseThrow()).srcStride());
    assertEquals(0, p.words(2)[6], "no srcStride: word 6 zero");
    assertEquals(text.strip(), Disassembler.disassemble(p).strip());
    org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
        () -> CommandCodec.encode(new Command.DspIn(0, 64, 1, 1, 0, 0, 0, 1 << 16)), "16-bit field");
  }

  private static byte[] randomImage(Random rnd) {
    byte[] mem = new byte[1 << 20];
    for (int i = 0x10000; i < 0x10000 + 8192; i++) {
      mem[i] = (byte) rnd.nextInt();
    }
    return mem;
  }

  private static IsaSimulator.Result run(Program prog, byte[] image) {
    byte[] mem = image.clone();
    System.arraycopy(prog.bytes(), 0, mem, 0, prog.bytes().length);
    return IsaSimulator.run(P, mem, 0);
  }

  private static ErrorCause errorOf(Program prog) {
    return run(prog, new byte[1 << 20]).error();
  }
}
