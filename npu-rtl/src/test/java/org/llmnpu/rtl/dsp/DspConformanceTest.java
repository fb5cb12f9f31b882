package org.llmnpu.rtl.dsp;

import org.llmnpu.isa.dsp.DspInterpreter;
import org.llmnpu.isa.dsp.DspProgram;
import org.llmnpu.isa.dsp.DspPipeline;
import org.llmnpu.isa.dsp.DspOp;
import org.llmnpu.isa.dsp.DspMath;
import org.llmnpu.isa.dsp.DspInstruction;
import org.llmnpu.isa.dsp.DspAssembler;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.llmnpu.hdl.ToolsForTests;
import org.llmnpu.hdl.sim.Simulator;

/**
 * Every instruction of the ISA on the RTL equals the {@link DspInterpreter} (the numerics golden
 * arithmetic): random straight-line programs of every register-writing op (random registers,
 * aux fields, immediates and masks, FP16 specials in the data) whose 16 registers are then
 * dumped, low and high half, into the buffer and compared element by element; also with each lane's pipelined
 * units on clock gates of their own ({@code pipeGating}), whose registers then advance only with their operations;
 * on 8 lanes, and on 64 (the DSP of a 64-wide MAC array: the cross-lane ops LSHIFT, BCAST and ROT over all of them,
 * lengths past the last lane).
 *
 * <p>Every configuration is a Verilator build of its own, which is most of the class's time in a cold build (617 s
 * cold, 32 s with the models cached, 2026-12-06). The gated 4-stage DSP without fma32 and permute is the 64-lane case's
 * structure, so on 8 lanes the gated 4-stage case runs with them: the model {@code VectorDspOptionsTest} builds (until
 * 2026-12-06 it ran without them, a build no other class made). Since 2026-12-07 that case runs with the gates
 * {@code checked} (the ungated design, stopped at the first register that changes while its enable is low: every
 * enable that {@code on} would have made wrong fails here), and the 15-program {@code checked} case, the first 15 of
 * the same seed's 40 programs, is gone; the gate cells themselves ({@code on}) run on 8 lanes at 2 stages and on the
 * 64-lane DSP at 4. One 8-lane build fewer (about 20 s of CPU).
 */
class DspConformanceTest {
  private static final int ROWS = 512;
  private static final int DUMP = 16;
  private static final int[] SPECIALS = {0x0000, 0x8000, 0x0001, 0x83FF, 0x0400, 0x3C00, 0xBC00, 0x7BFF, 0xFBFF,
      0x7C00, 0xFC00, 0x7E00, 0xFE01, 0x4A00, 0xCC80, 0xD100};
  @ParameterizedTest(name = "{0} execute stage(s), {1} programs, fma32 and permute {2}, pipelined units' gates {3}")
  @CsvSource({"1, 60, false, off", "2, 40, false, off", "3, 40, false, off", "4, 40, false, off", "1, 15, true, off",
      "2, 15, true, off", "3, 15, true, off", "4, 15, true, off", "4, 40, true, checked", "2, 15, true, on"})
  void randomProgramsOfEveryOpMatchTheInterpreter(int executeStages, int programs, boolean extended, String gating) {
    VectorDsp.Config config = VectorDspTest.eightLanes(executeStages, extended)
        .withPipeGating(org.llmnpu.hdl.ClockGating.parse("gating", gating));
    randomPrograms(config, programs, 0xD5B + executeStages + (extended ? 17 : 0));
  }

  /** The same on the 64-lane DSP of a 64-wide array (4 stages, pipelined units' gates on). */
  @Test
  void randomProgramsOnSixtyFourLanesMatchTheInterpreter() {
    randomPrograms(VectorDspTest.sixtyFourLanes(), 30, 0x64D5B);
  }

  private static void randomPrograms(VectorDsp.Config config, int programs, long seed) {
    ToolsForTests.require("verilator");
    int lanes = config.lanes();
    // without the FP32 FMA and the permutations their opcodes are undefined: NOPs on both
    // loads of arbitrary rows are left out: the RTL's buffer keeps earlier programs' rows (the
    // transposes and gathers of VectorDspPermuteTest cover LDS and LDG)
    List<DspOp> ops = List.of(DspOp.values()).stream()
        .filter(op -> op.writesRegister() && op != DspOp.LD && op != DspOp.LDS && op != DspOp.LDG).toList();
    Random rnd = new Random(seed);
    try (Simulator sim = VectorDspTest.start(config)) {
      VectorDspDriver driver = new VectorDspDriver(sim, config, DspMath.DEFAULT);
      for (int program = 0; program < programs; program++) {
        short[] data = new short[8 * lanes];
        for (int e = 0; e < data.length; e++) {
          data[e] = (short) (rnd.nextInt(4) == 0 ? SPECIALS[rnd.nextInt(SPECIALS.length)] : rnd.nextInt(0x10000));
        }
        List<DspInstruction> body = randomBody(rnd, ops, lanes);
        String mismatch = compare(sim, driver, data, body, body.size(), config);
        if (mismatch != null) {
          int lo = 0;
          int hi = body.size();
          while (hi - lo > 1) {
            int mid = (lo + hi) / 2;
            if (compare(sim, driver, data, body, mid, config) == null) {
              lo = mid;
            } else {
              hi = mid;
            }
          }
          throw new AssertionError("random program " + program + ": first differing instruction " + (hi - 1) + ": "
              + body.get(hi - 1) + "\n" + compare(sim, driver, data, body, hi, config) + "\n" + listing(body.subList(0, hi)));
        }
      }
    }
  }

  /** Runs the first {@code n} body instructions on both and compares the dumped registers; null if equal. */
  private static String compare(Simulator sim, VectorDspDriver driver, short[] data, List<DspInstruction> body, int n,
      VectorDsp.Config config) {
    DspPipeline pipeline = config.pipeline();
    int lanes = config.lanes();
    DspInterpreter golden = new DspInterpreter(lanes, ROWS, DspMath.DEFAULT).fma32(config.fma32()).permute(config.permute()).pipeline(pipeline);
    for (int e = 0; e < data.length; e++) {
      golden.write(e, data[e]);
      driver.writeElement(e, data[e]);
    }
    sim.poke("buf_we", 0);
    DspProgram p = program(data.length, body.subList(0, n), lanes);
    golden.run(p);
    driver.loadProgram(p);
    long cycles = driver.execute(golden.cycles());
    assertEquals(golden.cycles(), cycles, "cycles");
    if (config.fma32()) {
      assertEquals(p.cycles(pipeline), cycles, "static cycle count");
    }
    for (int e = 16 * lanes; e < (16 + 2 * DUMP) * lanes; e++) {
      sim.poke("buf_addr", e);
      int row = e / lanes - 16;
      long got = sim.peekLong("buf_rdata");
      if ((golden.read(e) & 0xFFFF) != got) {
        return String.format("register r%d %s half, lane %d: golden 0x%04x, RTL 0x%04x", row / 2,
            row % 2 == 0 ? "low" : "high", e % lanes, golden.read(e) & 0xFFFF, got);
      }
    }
    return null;
  }

  /** LSHIFT and ROT distances: small ones, and on a wide DSP the half, the last lane and one past it. */
  private static List<DspInstruction> randomBody(Random rnd, List<DspOp> OPS, int lanes) {
    int[] distances = lanes <= 8 ? new int[] {0, 1, 2, 3, 4, 5, 7, 8}
        : new int[] {0, 1, 2, 3, 5, 8, lanes / 4, lanes / 2, lanes - 1, lanes};
    DspAssembler a = new DspAssembler();
    for (int r = 8; r < DUMP; r++) {
      a.li(r, rnd.nextInt());
    }
    for (int i = 0; i < 100; i++) {
      if (rnd.nextInt(10) == 0) {
        a.emit(DspOp.SETLEN, 0, 0, 0, 0, false, 0, rnd.nextInt(lanes + 2));
      }
      DspOp op = OPS.get(rnd.nextInt(OPS.size()));
      int imm = op == DspOp.LSHIFT || op == DspOp.ROT ? distances[rnd.nextInt(distances.length)] : rnd.nextInt();
      a.emit(op, rnd.nextInt(DUMP), rnd.nextInt(DUMP), rnd.nextInt(DUMP), rnd.nextInt(DUMP), rnd.nextInt(4) == 0,
          rnd.nextInt(16), imm);
    }
    return a.finish("body").instructions().subList(0, a.size() - 1);
  }

  /** Loads r0..r7 from rows 0..7, clears r8..r15, runs the body, then dumps r0..r15 (low half, high half) from row 16. */
  private static DspProgram program(int elements, List<DspInstruction> body, int lanes) {
    DspAssembler a = new DspAssembler();
    for (int r = 0; r < 8; r++) {
      a.load(r, r);
    }
    for (int r = 8; r < DUMP; r++) {
      a.li(r, 0); // the RTL keeps registers between runs; the interpreter starts from 0
    }
    for (DspInstruction in : body) {
      a.emit(in.op(), in.rd(), in.ra(), in.rb(), in.rc(), in.masked(), in.aux(), in.imm());
    }
    a.emit(DspOp.SETLEN, 0, 0, 0, 0, false, 0, lanes); // the dump writes every lane
    for (int r = 0; r < DUMP; r++) {
      a.store(16 + 2 * r, r);
      a.op(DspOp.IHALF, 31, r, 0);
      for (int k = 1; k < 16; k++) {
        a.op(DspOp.IHALF, 31, 31, 0);
      }
      a.store(16 + 2 * r + 1, 31);
    }
    return a.finish("random program of " + body.size() + " instructions (" + elements + " elements)");
  }

  private static String listing(List<DspInstruction> body) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < body.size(); i++) {
      sb.append(String.format("%4d  %s%n", i, body.get(i)));
    }
    return sb.toString();
  }
}
