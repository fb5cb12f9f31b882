package org.llmnpu.isa;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.llmnpu.isa.dsp.DspInstruction;
import org.llmnpu.isa.dsp.DspInterpreter;
import org.llmnpu.isa.dsp.DspMath;
import org.llmnpu.isa.dsp.DspRunParameters;
import org.llmnpu.isa.dsp.DspTable;
import org.llmnpu.numerics.fp16.Fp16;

/**
 * The golden Vector DSP of the ISA simulator: program memory, polynomial tables and the buffer, with
 * the semantics of {@link Command.DspTab}, {@link Command.DspIn}, {@link Command.DspOut} and
 * {@link Command.DspRun}. Instructions execute in {@link DspInterpreter} (the DSP's own golden).
 */
final class DspUnit {
  private final MachineParams.DspParams p;
  private final DspInterpreter dsp;
  private final DspInstruction[] program;

  DspUnit(MachineParams.DspParams p) {
    this.p = p;
    this.dsp = new DspInterpreter(p.lanes(), p.rows(), DspMath.DEFAULT).pipeline(p.pipeline()).permute(p.permute());
    this.program = new DspInstruction[p.programDepth()];
    Arrays.fill(program, DspInstruction.decode(0));
    // After reset the tables are empty (every start NaN, every coefficient 0), as the hardware's registers.
    byte[] empty = new byte[Command.DSP_TABLE_BYTES];
    for (int slot = 0; slot < 3; slot++) {
      for (int s = 0; s < DspTable.MAX_SEGMENTS; s++) {
        putHalf(empty, 2 * (slot * 128 + s * 8), 0x7E00);
      }
    }
    loadTables(empty, 0);
  }

  /** Loads the tables from the {@link Command#DSP_TABLE_BYTES}-byte image at {@code at} of {@code mem}. */
  void loadTables(byte[] mem, int at) {
    DspTable[] tables = new DspTable[3];
    for (int slot = 0; slot < 3; slot++) {
      int[] starts = new int[p.tableSegments()];
      int[][] coefficients = new int[p.tableSegments()][p.tableDegree() + 1];
      for (int s = 0; s < p.tableSegments(); s++) {
        starts[s] = half(mem, at + 2 * (slot * 128 + s * 8));
        for (int k = 0; k <= p.tableDegree(); k++) {
          coefficients[s][k] = half(mem, at + 2 * (slot * 128 + s * 8 + 1 + k));
        }
      }
      tables[slot] = new DspTable(starts, coefficients);
    }
    DspMath d = DspMath.DEFAULT;
    dsp.tables(new DspMath(d.log2e(), d.ln2Hi(), d.ln2Lo(), d.geluC2(), d.geluC3(), tables[0], tables[1], tables[2]));
  }

  /** The table image of {@code math} for {@link Command.DspTab} (all 16 segment slots; unused ones start NaN). */
  static byte[] tableImage(DspMath math) {
    byte[] image = new byte[Command.DSP_TABLE_BYTES];
    for (int slot = 0; slot < 3; slot++) {
      DspTable t = math.table(slot);
      for (int s = 0; s < DspTable.MAX_SEGMENTS; s++) {
        int base = slot * 128 + s * 8;
        putHalf(image, 2 * base, s < t.segments() ? t.starts()[s] : 0x7E00);
        for (int k = 0; k < DspTable.MAX_COEFFICIENTS; k++) {
          putHalf(image, 2 * (base + 1 + k), s < t.segments() && k <= t.degree() ? t.coefficients()[s][k] : 0);
        }
      }
    }
    return image;
  }

  /**
   * Fills the memories without reset — the program memory (random instruction words), the buffer and the registers —
   * with values from {@code r}, as an earlier program may have left them ({@link IsaSimulator#runOnStaleState}).
   */
  void scramble(java.util.Random r) {
    for (int i = 0; i < program.length; i++) {
      program[i] = DspInstruction.decode(r.nextLong());
    }
    dsp.scramble(r);
  }

  /** Executes a {@link Command.DspIn} whose checks passed. */
  void copyIn(byte[] spad, Command.DspIn c) {
    int size = elementBytes(c.format());
    for (int r = 0; r < c.rows(); r++) {
      int row = (int) (c.spad() + r * c.spadStride());
      int element = (int) DspCopyRows.rowStart(p.lanes(), c.dst(), c.dstStride(), c.rowElems(), r);
      for (int e = 0; e < c.rowElems(); e++, element++) {
        int a = row + e * size;
        short v;
        if (c.format() == Command.FMT_FP16) {
          v = (short) half(spad, a);
        } else if (c.format() == Command.FMT_INT8) {
          v = Fp16.fromInt(spad[a], Fp16.ONE);
        } else {
          int i = (spad[a] & 0xFF) | (spad[a + 1] & 0xFF) << 8 | (spad[a + 2] & 0xFF) << 16 | spad[a + 3] << 24;
          v = Fp16.fromInt(i, Fp16.scalb(Fp16.ONE, (int) c.shift()));
        }
        dsp.write(element, v);
      }
    }
  }

  /** Executes a {@link Command.DspOut} whose checks passed. */
  void copyOut(byte[] spad, Command.DspOut c) {
    int size = elementBytes(c.format());
    for (int r = 0; r < c.rows(); r++) {
      int row = (int) (c.spad() + r * c.spadStride());
      int element = (int) DspCopyRows.rowStart(p.lanes(), c.src(), c.srcStride(), c.rowElems(), r);
      for (int e = 0; e < c.rowElems(); e++, element++) {
        short v = dsp.read(element);
        if (size == 2) {
          putHalf(spad, row + 2 * e, v);
        } else {
          spad[row + e] = (byte) v;
        }
      }
    }
  }

  /**
   * Loads {@code words} instruction words from {@code mem} at byte {@code from} into program memory addresses
   * {@code at .. at + words − 1} (a {@link Command.DspLoad}, and the load of a {@link Command.DspRun} at 0).
   */
  void load(byte[] mem, int from, int words, int at) {
    for (int i = 0; i < words; i++) {
      long w = 0;
      for (int b = 7; b >= 0; b--) {
        w = w << 8 | (mem[from + 8 * i + b] & 0xFF);
      }
      program[at + i] = DspInstruction.decode(w);
    }
  }

  /**
   * Runs the program memory from address {@code entry} with the run's row bases and length ({@code parameters});
   * returns the cycles it took, or −1 when it had not halted after {@code maxRunCycles}.
   */
  long run(int entry, DspRunParameters parameters) {
    List<DspInstruction> code = new ArrayList<>(Arrays.asList(program));
    return dsp.parameters(parameters).run(code, p.maxRunCycles(), entry) ? dsp.cycles() : -1;
  }

  /** Instructions the last {@link #run} issued (its cycles less the interlock stalls; up to the watchdog if it fired). */
  long issued() {
    return dsp.issued();
  }

  /** Operations of each pipelined unit the last {@link #run} issued ({@link org.llmnpu.isa.dsp.DspPipe} ordinals). */
  long[] issuedByPipe() {
    return dsp.issuedByPipe();
  }

  static int elementBytes(long format) {
    return format == Command.FMT_INT32 ? 4 : format == Command.FMT_INT8 ? 1 : 2;
  }

  private static int half(byte[] b, int a) {
    return (b[a] & 0xFF) | (b[a + 1] & 0xFF) << 8;
  }

  private static void putHalf(byte[] b, int a, int v) {
    b[a] = (byte) v;
    b[a + 1] = (byte) (v >>> 8);
  }
}
