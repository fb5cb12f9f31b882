package org.llmnpu.cosim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.llmnpu.isa.Command;
import org.llmnpu.isa.Counter;
import org.llmnpu.isa.CycleFormulas;
import org.llmnpu.isa.Disassembler;
import org.llmnpu.isa.ErrorCause;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.isa.Program;
import org.llmnpu.rtl.npu.NpuConfig;
import org.llmnpu.verilator.SimModes;

/**
 * {@code dspin}/{@code dspout} at line rate ({@code min(line / elementBytes, lanes)} elements a cycle) on the RTL
 * against the golden and the cycle model: random copies of every element type (FP16, INT8, INT32 with every shift
 * class) with one element a row, row lengths just below, at and above a chunk and a line, ragged ones (37, 172),
 * several rows with strides (0, tight, padded), at any buffer row, packed flat in the buffer or with a DSP row stride
 * (1, the rows a row spans, more; the last row at the buffer's last rows) — on four NPUs: 4-byte lines with a 4-lane DSP
 * and with an 8-lane DSP (the window narrower than the lanes), 16-byte lines with a 4-lane DSP (several chunks a
 * line) and with a 16-lane DSP (the default NPU's line and lanes).
 */
class DspLineRateCosimTest {
  static Stream<Arguments> npus() {
    NpuConfig wide = DspWideLinesCosimTest.WIDE;
    return Stream.of(
        Arguments.of("line 4, 4 lanes", NpuConfig.small()),
        Arguments.of("line 4, 8 lanes", new NpuConfig(4, 4, 2, 1, 8, 32, 0, 64, 128, 64, 3, 4, 256, 8, 64, 256,
            1L << 16)),
        Arguments.of("line 16, 4 lanes", wide),
        Arguments.of("line 16, 16 lanes", new NpuConfig(16, 16, 2, 1, 16, 32, 0, 16, 64, 32, 5, 16, 256, 16, 64, 256,
            1L << 16)));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("npus")
  void randomCopiesAreBitExactWithModelCycles(String name, NpuConfig c) {
    Random r = new Random(name.hashCode());
    try (NpuRtl rtl = NpuRtl.start(c, SimModes.local())) {
      for (int i = 0; i < 4; i++) {
        RandomPrograms.Case t = copies(c.machine(), r, 12);
        ProgramCosim.Outcome o = ProgramCosim.run(rtl, t.image(), t.programAddress());
        String what = name + ", program " + i + ":\n" + Disassembler.disassemble(t.program());
        assertEquals(ErrorCause.NONE, o.golden().error(), what);
        assertTrue(o.statusMatches(), what + "status " + o.rtl().error());
        assertTrue(o.bitExact(), what + "first differing byte at 0x" + Long.toHexString(o.firstDifference()));
        assertEquals(Map.of(), RandomProgramCosimTest.mismatches(o), what);
        assertTrue(o.rtl().counters().get(Counter.DSP_ELEMENTS) > 0, what);
      }
    }
  }

  /**
   * A program that loads random bytes into the whole scratchpad, fills the whole DSP buffer with one
   * {@code dspin} (so no element is read before it is written), then runs {@code copies} random copies — dspin from
   * the lower half, dspout into the upper half — and stores the upper half.
   */
  static RandomPrograms.Case copies(MachineParams p, Random r, int copies) {
    byte[] image = new byte[(int) p.extMemBytes()];
    r.nextBytes(image);
    int line = p.lineBytes();
    int lanes = p.dsp().lanes();
    int elements = p.dsp().elements();
    long half = p.spadBytes() / 2;
    long ext = 0x10000;
    Program.Builder b = Program.builder();
    // the whole scratchpad, so the stored upper half is the same in the golden and in an RTL that ran other programs;
    // in rows of at most 32 KiB (a DMA row is at most MAX_DMA_ROWS bytes)
    long loadRow = Math.min(2 * half, 1 << 15);
    b.load(ext, loadRow, 0, loadRow, loadRow, 2 * half / loadRow);
    b.dspIn(0, 0, elements, 1, 0, Command.FMT_FP16, 0);
    for (int j = 0; j < copies; j++) {
      boolean in = r.nextBoolean();
      int format = in ? r.nextInt(3) : r.nextInt(2);
      int size = format == Command.FMT_INT32 ? 4 : format == Command.FMT_INT8 ? 1 : 2;
      long e = CycleFormulas.dspElementsPerCycle(p, size);
      long lineElems = line / size;
      long[] lengths = {1, e - 1, e, e + 1, lineElems, lineElems + 1, 37, 172, 1 + r.nextInt(3 * (int) lineElems)};
      long rowElems = Math.max(1, lengths[r.nextInt(lengths.length)]);
      long rowBytes = rowElems * size;
      int rows = 1 + r.nextInt(3);
      long padded = (rowBytes + line - 1) / line * line;
      long[] strides = {0, padded, padded + line};
      long stride = rows == 1 ? padded : strides[r.nextInt(strides.length)];
      // the DSP side: flat (stride 0) or a DSP row stride of 1, of the rows a row spans (tight) or more
      long spans = (rowElems + lanes - 1) / lanes;
      long[] dspStrides = {0, 0, 1, spans, spans + 1 + r.nextInt(3)};
      long dspStride = dspStrides[r.nextInt(dspStrides.length)];
      if (rows > 1 && rowElems > dspStride * lanes && dspStride != 0) {
        dspStride = spans;
      }
      long span = (rows - 1) * stride + rowBytes;
      long bufferElems = dspStride == 0 ? rows * rowElems : (rows - 1) * dspStride * lanes + rowElems;
      if (span > half || bufferElems > elements) {
        j--;
        continue;
      }
      long spad = (long) r.nextInt((int) ((half - span) / line) + 1) * line;
      long bufferRows = elements / lanes;
      long lastRow = (elements - bufferElems) / lanes;
      // a strided copy's last row at the buffer's last rows every other time
      long dspRow = dspStride != 0 && r.nextBoolean() ? lastRow : r.nextInt((int) Math.min(bufferRows, lastRow + 1));
      if (in) {
        int shift = format == Command.FMT_INT32 ? -24 + r.nextInt(40) : 0;
        b.dspIn(spad, stride, rowElems, rows, dspRow, format, shift, dspStride);
      } else {
        b.dspOut(half + spad, stride, rowElems, rows, dspRow, format, dspStride);
      }
    }
    long storeRow = Math.min(half, 1 << 15);
    b.store(ext + 0x20000, storeRow, half, storeRow, storeRow, half / storeRow);
    if (r.nextBoolean()) {
      b.snapshot(ext + 0x40000);
    }
    b.halt();
    Program prog = b.build();
    System.arraycopy(prog.bytes(), 0, image, 0, prog.bytes().length);
    return new RandomPrograms.Case(image, prog, 0);
  }
}
