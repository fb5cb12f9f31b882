package org.llmnpu.rtl.dsp;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.llmnpu.hdl.sim.Simulator;
import org.llmnpu.isa.dsp.DspInstruction;
import org.llmnpu.isa.dsp.DspInterpreter;
import org.llmnpu.isa.dsp.DspMath;
import org.llmnpu.isa.dsp.DspOp;
import org.llmnpu.isa.dsp.DspProgram;
import org.llmnpu.isa.dsp.DspRunParameters;

/**
 * Run parameters on the {@code vector-dsp} RTL ({@link DspRunParameters}): random programs of row instructions (LD,
 * ST and, with {@code permute}, LDS, STS, LDG, STG), SETLEN and FP adds, every {@code rc} (0..31: with and without the
 * parameter flag), row immediates over the whole 32-bit range, row bases 0..65535 (wrapping mod the rows) and lengths
 * of either sign, run one after the other with registers and buffer carried over: the buffer equals the golden
 * {@link DspInterpreter} bit for bit and every run's cycles equal the golden's; the ports change right after each
 * start (the DSP holds what it sampled).
 */
class VectorDspRunParametersTest {

  @ParameterizedTest(name = "{0} execute stage(s), permute {1}")
  @CsvSource({"1, true", "4, false"})
  void randomParameterizedRunsEqualTheGolden(int executeStages, boolean permute) {
    VectorDsp.Config config = VectorDspTest.eightLanes(executeStages, permute);
    int lanes = config.lanes();
    int elements = config.rows() * lanes;
    Random rnd = new Random(32L * executeStages);
    DspInterpreter golden = new DspInterpreter(lanes, config.rows(), DspMath.DEFAULT).pipeline(config.pipeline())
        .permute(permute).fma32(permute);
    try (Simulator sim = VectorDspTest.start(config)) {
      VectorDspDriver driver = new VectorDspDriver(sim, config, DspMath.DEFAULT);
      for (int e = 0; e < elements; e++) {
        short v = (short) rnd.nextInt(0x7C00);
        golden.write(e, v);
        driver.writeElement(e, v);
      }
      sim.poke("buf_we", 0);
      for (int trial = 0; trial < 24; trial++) {
        DspProgram p = new DspProgram("params" + trial, program(rnd, permute));
        DspRunParameters q = trial == 0 ? new DspRunParameters(65535, 511, 512, 1, -1)
            : new DspRunParameters(rnd.nextInt(65536), rnd.nextInt(65536), rnd.nextInt(65536), rnd.nextInt(65536),
                rnd.nextInt());
        driver.loadProgram(p);
        long rtl = driver.execute(p.cycles(config.pipeline()), q);
        golden.parameters(q).run(p.instructions(), Long.MAX_VALUE);
        assertEquals(golden.cycles(), rtl, "cycles of run " + trial);
        if (trial % 6 == 5) {
          for (int e = 0; e < elements; e++) {
            sim.poke("buf_addr", e);
            assertEquals(golden.read(e), (short) sim.peekLong("buf_rdata"), "run " + trial + " element " + e);
          }
        }
      }
    }
  }

  /** A LOOP of 3 over 12 random instructions, then HALT. */
  private static List<DspInstruction> program(Random rnd, boolean permute) {
    List<DspOp> ops = new ArrayList<>(List.of(DspOp.LD, DspOp.ST, DspOp.SETLEN, DspOp.ADD16, DspOp.LD, DspOp.ST));
    if (permute) {
      ops.addAll(List.of(DspOp.LDS, DspOp.STS, DspOp.LDG, DspOp.STG));
    }
    List<DspInstruction> code = new ArrayList<>();
    code.add(new DspInstruction(DspOp.SETLEN, 0, 0, 0, rnd.nextInt(32), false, 0, rnd.nextInt()));
    code.add(new DspInstruction(DspOp.LOOP, 0, 0, 0, 0, false, 0, 12 << 16 | 3));
    for (int i = 0; i < 12; i++) {
      DspOp op = ops.get(rnd.nextInt(ops.size()));
      int aux = op == DspOp.LDS || op == DspOp.STS ? rnd.nextInt(4) : 0;
      int imm = op == DspOp.LDG || op == DspOp.STG ? rnd.nextInt(1 << 16) : rnd.nextInt();
      code.add(new DspInstruction(op, rnd.nextInt(4), rnd.nextInt(4), rnd.nextInt(4),
          op == DspOp.ADD16 ? rnd.nextInt(4) : rnd.nextInt(32), rnd.nextBoolean(), aux, imm));
    }
    code.add(new DspInstruction(DspOp.HALT, 0, 0, 0, 0, false, 0, 0));
    return code;
  }
}
