package org.llmnpu.rtl.dsp;

import static org.llmnpu.hdl.Hw.boolLit;
import static org.llmnpu.hdl.Hw.mux;
import static org.llmnpu.hdl.Hw.uint;
import static org.llmnpu.hdl.Hw.uintLit;

import java.util.ArrayList;
import java.util.List;
import org.llmnpu.hdl.Bool;
import org.llmnpu.hdl.ClockGating;
import org.llmnpu.hdl.HwModule;
import org.llmnpu.hdl.UInt;
import org.llmnpu.isa.dsp.DspOp;

/**
 * Parts of the {@link VectorDsp} outside its issue logic: the polynomial table registers written
 * by the host, and the buffer permutations of {@code permute} (the skewed rows of {@code LDS}/
 * {@code STS} at issue, the lane rotation of {@code ROT} in execute 1). Each method builds its logic
 * into the DSP (the generated Verilog is the DSP's).
 */
abstract class VectorDspPaths extends HwModule {
  /**
   * Slots 0..2 × {@code segments} × (start, c0..c{degree}) registers, written by the host ({@code entries}
   * per write; entries beyond the capacity in a wide write are dropped: slices of the gated data);
   * starts reset to NaN (unused), coefficients to 0. They change only in the cycles of a table write: with
   * {@code gating} ON or CHECKED they are on the clock gate {@value #TABLE_GATE}, open in those cycles.
   */
  UInt[][][] tableRegisters(Bool write, UInt address, UInt data, int segments, int degree, int entries,
                            ClockGating gating) {
    UInt[][][] tables = new UInt[VectorDsp.TABLE_SLOTS][segments][degree + 2];
    UInt tableWord = entries == 1 ? data : mux(write, data, uintLit(0, 16 * entries));
    clockGated(TABLE_GATE, write, gating, () -> tableRegisters(tables, write, address, tableWord, entries));
    return tables;
  }

  /** The clock gate of the polynomial tables' registers (written by the host only). */
  public static final String TABLE_GATE = "tables";

  private void tableRegisters(UInt[][][] tables, Bool write, UInt address, UInt tableWord, int entries) {
    int segments = tables[0].length;
    int degree = tables[0][0].length - 2;
    for (int slot = 0; slot < VectorDsp.TABLE_SLOTS; slot++) {
      for (int s = 0; s < segments; s++) {
        for (int f = 0; f <= degree + 1; f++) {
          UInt r = regInit("table_" + slot + "_" + s + "_" + f, uint(16), f == 0 ? 0x7E00 : 0);
          int at = slot * 128 + s * 8 + f;
          int j = at % entries;
          UInt entry = tableWord.slice(16 * j + 15, 16 * j);
          when(write.and(address.eq(at / entries)), () -> r.set(entry));
          tables[slot][s][f] = r;
        }
      }
    }
  }

  /** ROT: lane l takes operand a of lane (l + k) mod lanes (a barrel rotation of the vector by {@code k}). */
  static void rotate(List<DspLane> lanes, UInt k) {
    List<UInt> v = new ArrayList<>();
    for (DspLane lane : lanes) {
      v.add(lane.sourceA);
    }
    for (int bit = 0; (1 << bit) < lanes.size(); bit++) {
      List<UInt> rotated = new ArrayList<>();
      for (int l = 0; l < lanes.size(); l++) {
        rotated.add(mux(k.bit(bit), v.get((l + (1 << bit)) % lanes.size()), v.get(l)));
      }
      v = rotated;
    }
    for (int l = 0; l < lanes.size(); l++) {
      lanes.get(l).rotateIn.set(v.get(l));
    }
  }

  /**
   * Row of lane {@code l} at issue: {@code imm + idx}, skewed for LDS ({@code ((l − idx) mod lanes)·2^aux})
   * and STS ({@code ((l + idx) mod lanes)·2^aux}).
   */
  UInt permutedRow(UInt op, UInt imm, UInt idx, UInt aux, int l, int rowBits, int laneCount) {
    // rows and lanes are powers of two: everything is taken mod rows (rowBits bits)
    int lanesMask = (laneCount - 1) & ((1 << rowBits) - 1);
    UInt lane = uintLit(l & ((1 << rowBits) - 1), rowBits);
    UInt index = idx.resize(rowBits);
    UInt mask = uintLit(lanesMask, rowBits);
    UInt skewLoad = lane.sub(index).and(mask).shiftLeft(aux);
    UInt skewStore = lane.add(index).and(mask).shiftLeft(aux);
    UInt base = imm.lsbs(rowBits);
    return mux(op.eq(DspOp.LDS.code()), base.add(skewLoad), mux(op.eq(DspOp.STS.code()), base.add(skewStore),
        base.add(index)));
  }

  /** Whether the 6-bit {@code code} is one of the ops {@code which} selects. */
  static Bool opIn(UInt code, java.util.function.Predicate<DspOp> which) {
    Bool any = boolLit(false);
    for (DspOp o : DspOp.values()) {
      if (which.test(o)) {
        any = any.or(code.eq(o.code()));
      }
    }
    return any;
  }
}
