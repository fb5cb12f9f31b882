package org.llmnpu.cosim.pim.bench;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.extension.ExtendWith;
import org.llmnpu.hdl.bench.BenchRecord;
import org.llmnpu.hdl.emit.Verilog;
import org.llmnpu.hdl.gen.BlockGenerator;
import org.llmnpu.hdl.gen.BlockRegistry;
import org.llmnpu.hdl.gen.Params;
import org.llmnpu.pim.PimCycleModel;
import org.llmnpu.pim.PimMacroConfig;
import org.llmnpu.pim.PimPrecision;
import org.llmnpu.reports.ppa.NodeScaling;
import org.llmnpu.reports.ppa.PpaFlow;
import org.llmnpu.reports.ppa.PpaOptions;
import org.llmnpu.reports.ppa.PpaResult;
import org.llmnpu.reports.ppa.SramMacro;
import org.llmnpu.reports.ppa.SramModel;
import org.llmnpu.rtl.mac.GemmCycleModel;
import org.llmnpu.rtl.mac.MacArrayConfig;
import org.llmnpu.rtl.mac.WeightSparsity;

/**
 * PiM macro vs the weight-stationary systolic array on the GEMV/GEMM shapes of stories260K and
 * LLaMA-7B: cycles (both from cycle formulas that tests hold to the RTL), psum and weight traffic,
 * area and energy from real synthesis (Yosys + OpenSTA, osu018, 5 ns, activity 0.1) of 16×16
 * instances, extrapolated per cell to 64×64.
 *
 * <p>Run: {@code mvn -q -pl cosim -am test -Dbench -Dtest=PimVsSystolicBench -Dsurefire.failIfNoSpecifiedTests=false}
 * (about 3 minutes: four syntheses).
 */
@ExtendWith(BenchRecord.class)
public final class PimVsSystolicBench {
  private static final int SIZE = 64;
  private static final int PPA_SIZE = 16;
  private static final double CLOCK_NS = 5.0;

  @org.junit.jupiter.api.Test
  void figures() {
    main(new String[0]);
  }

  record Shape(String name, int m, int k, int n) {
  }

  static final List<Shape> SHAPES = List.of(
      new Shape("stories260K decode wq (64→64)", 1, 64, 64),
      new Shape("stories260K decode wk/wv (64→32)", 1, 64, 32),
      new Shape("stories260K decode w1/w3 (64→172)", 1, 64, 172),
      new Shape("stories260K decode w2 (172→64)", 1, 172, 64),
      new Shape("stories260K decode classifier (64→512)", 1, 64, 512),
      new Shape("stories260K prefill w1 (M=64)", 64, 64, 172),
      new Shape("LLaMA-7B decode 4096×4096", 1, 4096, 4096),
      new Shape("LLaMA-7B decode 4096×11008", 1, 4096, 11008),
      new Shape("LLaMA-7B decode 11008×4096", 1, 11008, 4096),
      new Shape("LLaMA-7B prefill 4096×4096 (M=128)", 128, 4096, 4096));

  /** Per-cell area (µm², 180 nm, std cells + modelled memories) and energy per cycle (pJ, 180 nm). */
  record CellFigures(String name, double areaUm2, double stdAreaUm2, double sramAreaUm2, double energyPerCyclePj,
                     double fmaxMhz) {
  }

  public static void main(String[] args) {
    CellFigures sys = ppa("systolic mac-array (+ weight SRAM of equal capacity, modelled)", "mac-array",
        Map.of("rows", "" + PPA_SIZE, "cols", "" + PPA_SIZE, "mTile", "16"), true);
    CellFigures pimSerial = ppa("pim-macro INT8 bit-serial (k=1)", "pim-macro",
        Map.of("rows", "" + PPA_SIZE, "cols", "" + PPA_SIZE, "mTile", "16"), false);
    CellFigures pimDouble = ppa("pim-macro INT8 bit-serial, double-buffered bitcells", "pim-macro",
        Map.of("rows", "" + PPA_SIZE, "cols", "" + PPA_SIZE, "mTile", "16", "weightBanks", "2"), false);
    CellFigures pimPre = ppa("pim-macro FP8 E4M3 pre-alignment (8 bits)", "pim-macro",
        Map.of("rows", "" + PPA_SIZE, "cols", "" + PPA_SIZE, "mTile", "16", "precision", "fp8_e4m3", "alignment", "pre"), false);
    CellFigures pimPost = ppa("pim-macro FP8 E4M3 post-alignment", "pim-macro",
        Map.of("rows", "" + PPA_SIZE, "cols", "" + PPA_SIZE, "mTile", "16", "precision", "fp8_e4m3", "alignment", "post"), false);
    System.out.printf(Locale.ROOT, "%n## Synthesized %d×%d instances (osu018, %.0f ns clock, activity 0.1), per cell%n%n", PPA_SIZE, PPA_SIZE, CLOCK_NS);
    System.out.println("| design | area / cell (µm², 180 nm) | of which std cells | of which modelled SRAM/bitcells | energy / cycle / cell (pJ, 180 nm) | cycles per MVM | energy / MAC (pJ, 180 nm) | Fmax (MHz) |");
    System.out.println("|---|---|---|---|---|---|---|---|");
    int[] mvmCycles = {1, 8, 8, 9, 4};
    List<CellFigures> all = List.of(sys, pimSerial, pimDouble, pimPre, pimPost);
    for (int i = 0; i < all.size(); i++) {
      CellFigures f = all.get(i);
      System.out.printf(Locale.ROOT, "| %s | %.0f | %.0f | %.0f | %.2f | %d | %.1f | %.0f |%n", f.name, f.areaUm2, f.stdAreaUm2,
          f.sramAreaUm2, f.energyPerCyclePj, mvmCycles[i], f.energyPerCyclePj * mvmCycles[i], f.fmaxMhz);
    }

    MacArrayConfig array = new MacArrayConfig(SIZE, SIZE, 32, 16, MacArrayConfig.ALL_K_TILES, WeightSparsity.NONE);
    PimMacroConfig serial = new PimMacroConfig(SIZE, SIZE, PimPrecision.INT8, PimMacroConfig.Alignment.NONE, 8, 1, 0, 32, 16, 0);
    PimMacroConfig parallel = new PimMacroConfig(SIZE, SIZE, PimPrecision.INT8, PimMacroConfig.Alignment.NONE, 8, 8, 0, 32, 16, 0);
    PimMacroConfig doubled = serial.withWeightBanks(2);
    int macrosAtEqualArea = (int) Math.max(1, Math.floor(sys.areaUm2 / pimSerial.areaUm2));
    double weightBytePj = weightBufferPjPerByte();
    System.out.printf(Locale.ROOT, "%n## Cycles and energy, %d×%d each (equal MAC count); equal area = %d bit-serial macros per array%n%n",
        SIZE, SIZE, macrosAtEqualArea);
    System.out.printf(Locale.ROOT, "Weight movement: %.1f pJ per byte read from a 256 KiB weight SRAM (SramModel, 180 nm); "
        + "energy = cells × energy/cycle/cell × cycles + weight bytes moved × that (every cycle costs the measured "
        + "power at activity 0.1, busy or idle: this OpenSTA build reads no VCD). Times at each design's Fmax. "
        + "PiM 'resident' = the weights already sit in the bitcells (no weight-write cycles or traffic per GEMM).%n%n", weightBytePj);
    StringBuilder cyclesTable = new StringBuilder();
    StringBuilder energyTable = new StringBuilder();
    cyclesTable.append("| shape | M×K×N | systolic cycles | PiM k=1 cycles (reload) | PiM k=8 cycles (reload) | PiM k=1 double-buffered cycles (reload) | PiM k=1 cycles (resident) | PiM k=1 ×")
        .append(macrosAtEqualArea).append(" macros (equal area, reload) | systolic time (µs) | PiM k=1 reload time (µs) | PiM k=1 double-buffered time (µs) | PiM k=1 resident time (µs) | systolic / PiM time, reload | systolic / PiM time, double-buffered | systolic / PiM time, resident |\n")
        .append("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    energyTable.append("| shape | weight bytes moved per GEMM (systolic = PiM reload; resident 0) | psum write-backs, icAccumDepth 1 (both engines) | energy systolic (nJ) | energy PiM k=1 reload (nJ) | energy PiM k=1 double-buffered (nJ) | energy PiM k=1 resident (nJ) | systolic / PiM energy, reload | systolic / PiM energy, double-buffered | systolic / PiM energy, resident |\n")
        .append("|---|---|---|---|---|---|---|---|---|---|\n");
    for (Shape s : SHAPES) {
      long sysCycles = GemmCycleModel.cycles(array, s.m, s.k, s.n);
      long pimCycles = PimCycleModel.gemmCycles(serial, s.m, s.k, s.n);
      long parCycles = PimCycleModel.gemmCycles(parallel, s.m, s.k, s.n);
      long dbCycles = PimCycleModel.gemmCycles(doubled, s.m, s.k, s.n);
      long kTiles = PimCycleModel.ceilDiv(s.k, SIZE);
      long nTiles = PimCycleModel.ceilDiv(s.n, SIZE);
      long mChunks = PimCycleModel.ceilDiv(s.m, 16);
      long resident = pimCycles - nTiles * kTiles * mChunks * serial.tileWriteCycles();
      long perMacroN = Math.min(s.n, PimCycleModel.ceilDiv(nTiles, macrosAtEqualArea) * SIZE);
      long equalArea = PimCycleModel.gemmCycles(serial, s.m, s.k, (int) perMacroN);
      long weightBytes = (long) s.k * s.n * mChunks;
      long psum = GemmCycleModel.psumWritebacks(new MacArrayConfig(SIZE, SIZE, 32, 16, 1, WeightSparsity.NONE), s.m, s.k, s.n);
      long psumPim = PimCycleModel.psumWritebacks(new PimMacroConfig(SIZE, SIZE, PimPrecision.INT8,
          PimMacroConfig.Alignment.NONE, 8, 1, 0, 32, 16, 1), s.m, s.k, s.n);
      if (psum != psumPim) {
        throw new IllegalStateException("psum traffic formulas disagree for " + s);
      }
      double tSys = sysCycles / sys.fmaxMhz;
      double tPim = pimCycles / pimSerial.fmaxMhz;
      double tRes = resident / pimSerial.fmaxMhz;
      double tDb = dbCycles / pimDouble.fmaxMhz;
      cyclesTable.append(String.format(Locale.ROOT, "| %s | %d×%d×%d | %d | %d | %d | %d | %d | %d | %.2f | %.2f | %.2f | %.2f | %.2f× | %.2f× | %.2f× |%n",
          s.name, s.m, s.k, s.n, sysCycles, pimCycles, parCycles, dbCycles, resident, equalArea, tSys, tPim, tDb, tRes,
          tSys / tPim, tSys / tDb, tSys / tRes));
      double cells = (double) SIZE * SIZE;
      double eSys = cells * sys.energyPerCyclePj * sysCycles + weightBytes * weightBytePj;
      double ePim = cells * pimSerial.energyPerCyclePj * pimCycles + weightBytes * weightBytePj;
      double eRes = cells * pimSerial.energyPerCyclePj * resident;
      double eDb = cells * pimDouble.energyPerCyclePj * dbCycles + weightBytes * weightBytePj;
      energyTable.append(String.format(Locale.ROOT, "| %s | %d | %d | %.1f | %.1f | %.1f | %.1f | %.2f× | %.2f× | %.2f× |%n",
          s.name, weightBytes, psum, eSys / 1000, ePim / 1000, eDb / 1000, eRes / 1000, eSys / ePim, eSys / eDb, eSys / eRes));
    }
    System.out.println(cyclesTable);
    System.out.println(energyTable);
    System.out.printf(Locale.ROOT, "%nEnergies at 180 nm; ×%.4f at 45 nm and ×%.5f at 7 nm (Stillmaker & Baas 2017) leave the ratios unchanged.%n",
        NodeScaling.energy(NodeScaling.Node.N180, 1.8, NodeScaling.Node.N45),
        NodeScaling.energy(NodeScaling.Node.N180, 1.8, NodeScaling.Node.N7));
  }

  /** Energy of reading one weight byte from a 256 KiB, 64-bit-wide SRAM (SramModel, Horowitz), at 180 nm. */
  static double weightBufferPjPerByte() {
    SramMacro buffer = new SramMacro("W", "weights", "buffer", 64, 32768, 15, 1, 1, true, 1);
    return SramModel.accessEnergyPj(buffer, NodeScaling.Node.N180) / 8;
  }

  private static CellFigures ppa(String name, String block, Map<String, String> params, boolean addWeightSram) {
    BlockGenerator g = BlockRegistry.find(block);
    Params p = Params.resolve(g, params);
    PpaResult r = PpaFlow.run(Verilog.emit(g.build(p)), new LinkedHashMap<>(p.asMap()), PpaOptions.defaults());
    double cells = (double) PPA_SIZE * PPA_SIZE;
    double sram = r.sramAreaUm2(NodeScaling.Node.N180);
    if (addWeightSram) {
      sram += SramModel.areaUm2(new SramMacro("W", "weights", "buffer", 8 * PPA_SIZE, PPA_SIZE, 4, 1, 1, true, 1),
          NodeScaling.Node.N180);
    }
    double std = r.synthesis().chipAreaUm2();
    System.out.printf(Locale.ROOT, "%s: std cells %.0f µm², modelled memories %.0f µm², %.1f mW at %.0f ns, Fmax %.0f MHz%n",
        name, std, sram, r.power().totalMw(), CLOCK_NS, r.timing().fmaxMhz());
    return new CellFigures(name, (std + sram) / cells, std / cells, sram / cells,
        r.power().energyPerCyclePj(CLOCK_NS) / cells, r.timing().fmaxMhz());
  }
}
