package org.llmnpu.hdl.bench;

import static org.llmnpu.hdl.Hw.bool;
import static org.llmnpu.hdl.Hw.sint;
import static org.llmnpu.hdl.Hw.sintLit;

import org.llmnpu.hdl.Bool;
import org.llmnpu.hdl.HwModule;
import org.llmnpu.hdl.SInt;
import org.llmnpu.hdl.Vec;
import org.llmnpu.hdl.examples.MacPe;

/**
 * The PE array as a user writes it from the guide: instances without explicit names, held in
 * a 2-D array field (named {@code pes_r_c} from the field), every PE input connected by
 * {@code set}. The emission benchmark times it beside {@code MacArrayExample}.
 */
final class UnnamedMacArray extends HwModule {
  public final Vec<SInt> acts;
  public final Vec<SInt> weights;
  public final Bool load = in(bool());
  public final Vec<SInt> psums;
  private final MacPe[][] pes;
  private final int n;

  UnnamedMacArray(int n) {
    this.n = n;
    acts = in(Vec.of(n, () -> sint(8)));
    weights = in(Vec.of(n, () -> sint(8)));
    psums = out(Vec.of(n, () -> sint(32)));
    pes = new MacPe[n][n];
    for (int r = 0; r < n; r++) {
      for (int c = 0; c < n; c++) {
        MacPe pe = instance(new MacPe());
        pes[r][c] = pe;
        pe.actIn.set(c == 0 ? acts.get(r) : pes[r][c - 1].actOut);
        pe.weightIn.set(r == 0 ? weights.get(c) : pes[r - 1][c].weightOut);
        pe.psumIn.set(r == 0 ? sintLit(0, 32) : pes[r - 1][c].psumOut);
        pe.load.set(load);
      }
    }
    for (int c = 0; c < n; c++) {
      psums.get(c).set(pes[n - 1][c].psumOut);
    }
  }

  @Override
  public String moduleName() {
    return "UnnamedMacArray_" + n + "x" + n;
  }
}
