package org.llmnpu.rtl.dsp;

import org.llmnpu.isa.dsp.DspTable;
import org.llmnpu.isa.dsp.DspProgram;
import org.llmnpu.isa.dsp.DspMath;
import org.llmnpu.isa.dsp.DspLayout;
import org.llmnpu.isa.dsp.DspKernels;
import org.llmnpu.isa.dsp.DspKernel;
import org.llmnpu.isa.dsp.DspRunParameters;
import org.llmnpu.hdl.sim.Simulator;

/**
 * Drives a simulated {@link VectorDsp}: loads the polynomial tables, compiles and loads a kernel,
 * writes its operands into the buffer in the {@link DspLayout}, starts it, waits for {@code done}
 * and reads the outputs and the cycle counter. Pokes are batched; the wait and the reads are
 * round trips. One driver runs any number of kernels on one model.
 */
public final class VectorDspDriver {
  /** One kernel run: outputs (as {@link DspKernel#outputs()}), cycles from start to done, program size. */
  public record Run(short[][] outputs, long cycles, int instructions) {
  }

  private final Simulator sim;
  private final VectorDsp.Config config;

  /** Resets the model and loads the tables of {@code math}. */
  public VectorDspDriver(Simulator sim, VectorDsp.Config config, DspMath math) {
    this.sim = sim;
    this.config = config;
    sim.reset(2);
    for (int slot = 0; slot < 3; slot++) {
      loadTable(slot, math.table(slot));
    }
  }

  /** Writes table {@code slot} (0..2); the DSP's other segments get the start NaN (unused). */
  public void loadTable(int slot, DspTable table) {
    if (table.segments() > config.tableSegments() || table.degree() > config.tableDegree()) {
      throw new IllegalArgumentException("table " + slot + " has " + table.segments() + " segments of degree "
          + table.degree() + "; the DSP holds tableSegments = " + config.tableSegments() + " of tableDegree = "
          + config.tableDegree());
    }
    for (int s = 0; s < config.tableSegments(); s++) {
      boolean used = s < table.segments();
      writeTable(slot, s, 0, used ? table.starts()[s] : 0x7E00);
      for (int k = 0; k <= config.tableDegree(); k++) {
        writeTable(slot, s, 1 + k, used && k <= table.degree() ? table.coefficients()[s][k] : 0);
      }
    }
    sim.poke("table_we", 0);
  }

  private void writeTable(int slot, int segment, int field, int value) {
    sim.poke("table_we", 1);
    sim.poke("table_addr", slot * 128 + segment * 8 + field);
    sim.poke("table_data", value);
    sim.step();
  }

  /** Compiles and runs {@code kernel} on the operands {@code inputs} (each of {@link DspKernel#inputLength}). */
  public Run run(DspKernel kernel, int len, float eps, DspMath math, short[][] inputs) {
    return run(kernel, len, eps, math, inputs, DspKernels.Options.DEFAULT);
  }

  /** As {@link #run(DspKernel, int, float, DspMath, short[][])} with the program compiled with {@code options}. */
  public Run run(DspKernel kernel, int len, float eps, DspMath math, short[][] inputs, DspKernels.Options options) {
    DspLayout layout = new DspLayout(kernel, len, config.lanes());
    if (layout.totalRows() > config.rows()) {
      throw new IllegalArgumentException(kernel.cliName() + " at len " + len + " needs " + layout.totalRows()
          + " buffer rows; the DSP has rows = " + config.rows());
    }
    if (inputs.length != kernel.inputs().size()) {
      throw new IllegalArgumentException(kernel.cliName() + " takes " + kernel.inputs() + ", got " + inputs.length
          + " operands");
    }
    DspProgram program = DspKernels.compile(kernel, len, config.lanes(), eps, math, options);
    loadProgram(program);
    int lanes = config.lanes();
    for (int op = 0; op < inputs.length; op++) {
      if (inputs[op].length != kernel.inputLength(len)) {
        throw new IllegalArgumentException("operand " + kernel.inputs().get(op) + " must have "
            + kernel.inputLength(len) + " elements, got " + inputs[op].length);
      }
      for (int i = 0; i < inputs[op].length; i++) {
        writeElement(layout.inputBase(op) * lanes + i, inputs[op][i]);
      }
    }
    sim.poke("buf_we", 0);
    long cycles = execute(program.cycles(config.pipeline()));
    short[][] out = new short[kernel.outputs().size()][kernel.outputLength(len)];
    for (int op = 0; op < out.length; op++) {
      for (int i = 0; i < out[op].length; i++) {
        sim.poke("buf_addr", (long) layout.outputBase(op) * lanes + i);
        out[op][i] = (short) sim.peekLong("buf_rdata");
      }
    }
    return new Run(out, cycles, program.size());
  }

  /** Writes the program words from address 0. */
  public void loadProgram(DspProgram program) {
    if (program.size() > config.programDepth()) {
      throw new IllegalArgumentException("program " + program.name() + " has " + program.size()
          + " instructions; the DSP has programDepth = " + config.programDepth());
    }
    long[] words = program.words();
    for (int i = 0; i < words.length; i++) {
      sim.poke("prog_we", 1);
      sim.poke("prog_addr", i);
      sim.poke("prog_data", new java.math.BigInteger(Long.toUnsignedString(words[i])));
      sim.step();
    }
    sim.poke("prog_we", 0);
  }

  /** Writes one buffer element (the caller clears {@code buf_we} after a batch). */
  public void writeElement(int element, short value) {
    sim.poke("buf_we", 1);
    sim.poke("buf_addr", element);
    sim.poke("buf_wdata", value & 0xFFFF);
    sim.step();
  }

  /**
   * Starts the loaded program and waits for {@code done}; returns the DSP's cycle counter after
   * checking it against the cycles waited. {@code expected} bounds the wait (4× + 1000).
   */
  public long execute(long expected) {
    return execute(expected, DspRunParameters.NONE);
  }

  /**
   * As {@link #execute(long)}, the run handed {@code parameters}; the ports are changed right after the start, as a
   * host may (the DSP holds what it sampled).
   */
  public long execute(long expected, DspRunParameters parameters) {
    int rowBits = Integer.numberOfTrailingZeros(config.rows());
    long bases = 0;
    for (int k = 0; k < DspRunParameters.BASES; k++) {
      bases |= (long) (parameters.base(k) & (config.rows() - 1)) << (rowBits * k);
    }
    sim.poke("run_bases", java.math.BigInteger.valueOf(bases));
    sim.poke("run_length", parameters.word6());
    sim.poke("start", 1);
    sim.step();
    sim.poke("start", 0);
    sim.poke("run_bases", java.math.BigInteger.ONE.shiftLeft(DspRunParameters.BASES * rowBits)
        .subtract(java.math.BigInteger.ONE));
    sim.poke("run_length", 0x5A5A5A5AL);
    long waited = sim.runUntil("done", 1, 4 * expected + 1000);
    long cycles = sim.peekLong("cycles");
    if (cycles != waited) {
      throw new IllegalStateException("cycle counter " + cycles + " disagrees with the " + waited + " cycles waited");
    }
    return cycles;
  }
}
