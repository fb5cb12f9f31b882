package org.llmnpu.reports.energy;

import java.util.Locale;
import java.util.Random;
import java.util.function.Consumer;
import org.llmnpu.hdl.emit.Verilog;
import org.llmnpu.hdl.emit.VerilogDesign;
import org.llmnpu.isa.dsp.DspAssembler;
import org.llmnpu.isa.dsp.DspMath;
import org.llmnpu.isa.dsp.DspOp;
import org.llmnpu.isa.dsp.DspProgram;
import org.llmnpu.reports.energy.CalibrationRuns.Measured;
import org.llmnpu.rtl.dsp.VectorDsp;
import org.llmnpu.rtl.dsp.VectorDspDriver;

/**
 * The Vector DSP's instruction classes and {@code DSP_IDLE} ({@link Calibration#dsp}): loops over fresh random
 * FP16 rows — loads and stores (4 memory ops per iteration), conversion (2 loads + 2 WIDEN + 2 NARROW), FP16
 * arithmetic (2 loads + 4 ops), FP32 (2 loads + 2 conversions + 4 ops) — each class solved after the ones it
 * contains, per lane-instruction, on a DSP of the given execute stages (the NPU builds 4 by default).
 */
final class DspCalibration {
  private DspCalibration() {
  }

  static void run(Calibration c, CalibrationRuns runs, int lanes, int rows, int stages, long seed) {
    VectorDsp.Config config = new VectorDsp.Config(lanes, rows, 64, 12, 2, stages);
    VerilogDesign d = Verilog.emit(new VectorDsp(config));
    Measured idle = runs.idle(d, "Vector DSP idle");
    CalibrationRuns.requireSimulated(idle);
    c.put(EnergyAction.DSP_IDLE, idle.energyPerCyclePj(), String.format(Locale.ROOT,
        "OpenSTA: %s (%d execute stages), %d cycles clocked with nothing to do: %.3f mW at %.3g ns", d.top(), stages,
        idle.cycles(), idle.mw(), runs.ppa.clockNs()));
    int iters = rows / 4;
    Random rnd = new Random(seed);
    String where = String.format(Locale.ROOT, "%s (%d execute stages)", d.top(), stages);
    double mem = dspClass(runs, d, config, idle, "DSP loads/stores", rnd, iters, a -> {
      a.load(1, 0).load(2, iters).store(2 * iters, 1).store(3 * iters, 2);
    });
    double ops = (double) iters * lanes;
    double memPer = mem / (4 * ops);
    c.put(EnergyAction.DSP_MEMORY, memPer, basis(runs, where, "4 LD/ST per iteration", iters, lanes));
    double conv = dspClass(runs, d, config, idle, "DSP conversions", rnd, iters, a -> {
      a.load(1, 0).load(2, iters).op(DspOp.WIDEN, 3, 1, 0).op(DspOp.WIDEN, 4, 2, 0)
          .op(DspOp.NARROW, 5, 3, 0).op(DspOp.NARROW, 6, 4, 0);
    });
    double convPer = (conv - 2 * ops * memPer) / (4 * ops);
    c.put(EnergyAction.DSP_CONVERT, convPer, basis(runs, where, "2 LD + 2 WIDEN + 2 NARROW per iteration, loads "
        + "subtracted", iters, lanes));
    double fp16 = dspClass(runs, d, config, idle, "DSP FP16", rnd, iters, a -> {
      a.load(1, 0).load(2, iters).op(DspOp.ADD16, 3, 1, 2).op(DspOp.MUL16, 4, 1, 2)
          .op(DspOp.SUB16, 5, 1, 2).op(DspOp.MAX16, 6, 1, 2);
    });
    c.put(EnergyAction.DSP_FP16, (fp16 - 2 * ops * memPer) / (4 * ops), basis(runs, where, "2 LD + ADD16, MUL16, "
        + "SUB16, MAX16 per iteration, loads subtracted", iters, lanes));
    double fp32 = dspClass(runs, d, config, idle, "DSP FP32", rnd, iters, a -> {
      a.load(1, 0).load(2, iters).op(DspOp.WIDEN, 3, 1, 0).op(DspOp.WIDEN, 4, 2, 0)
          .op(DspOp.ADD32, 5, 3, 4).op(DspOp.MUL32, 6, 3, 4).op(DspOp.SUB32, 7, 3, 4).op(DspOp.MUL32, 8, 4, 3);
    });
    c.put(EnergyAction.DSP_FP32, (fp32 - 2 * ops * memPer - 2 * ops * convPer) / (4 * ops), basis(runs, where,
        "2 LD + 2 WIDEN + ADD32, MUL32, SUB32, MUL32 per iteration, loads and conversions subtracted", iters, lanes));
  }

  private static String basis(CalibrationRuns runs, String where, String what, int iters, int lanes) {
    return String.format(Locale.ROOT, "OpenSTA with the activity of %s on random FP16 rows: %d iterations x %d lanes, "
        + "above idle, per lane-instruction, at %.3g ns", where, iters, lanes, runs.ppa.clockNs()) + "; " + what;
  }

  /** Energy above idle (pJ) of a loop of {@code iters} iterations of {@code body} on random buffer rows. */
  private static double dspClass(CalibrationRuns runs, VerilogDesign d, VectorDsp.Config config, Measured idle,
      String name, Random rnd, int iters, Consumer<DspAssembler> body) {
    DspAssembler a = new DspAssembler();
    a.emit(DspOp.SETLEN, 0, 0, 0, 0, false, 0, config.rows() * config.lanes());
    a.li(0, 0);
    a.loop(iters, () -> body.accept(a));
    a.emit(DspOp.HALT, 0, 0, 0, 0, false, 0, 0);
    DspProgram p = a.finish(name);
    Measured run = runs.measure(d, name, s -> {
      VectorDspDriver drv = new VectorDspDriver(s, config, DspMath.DEFAULT);
      drv.loadProgram(p);
      for (int e = 0; e < 2 * iters * config.lanes(); e++) {
        drv.writeElement(e, randomFp16(rnd));
      }
      s.poke("buf_we", 0);
      drv.execute(p.size() + (long) iters * 8);
    });
    CalibrationRuns.requireSimulated(run);
    return CalibrationRuns.aboveIdle(run, idle);
  }

  /** A finite FP16 value of magnitude 2^-4..2^4 with random sign and mantissa. */
  private static short randomFp16(Random rnd) {
    int exp = 11 + rnd.nextInt(8);
    return (short) ((rnd.nextBoolean() ? 0x8000 : 0) | (exp << 10) | rnd.nextInt(1024));
  }
}
