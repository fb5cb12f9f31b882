package org.llmnpu.rtl.mac;

import static org.llmnpu.hdl.Hw.bitsToHold;
import static org.llmnpu.hdl.Hw.boolLit;
import static org.llmnpu.hdl.Hw.bool;
import static org.llmnpu.hdl.Hw.sint;
import static org.llmnpu.hdl.Hw.sintLit;
import static org.llmnpu.hdl.Hw.uint;
import static org.llmnpu.hdl.Hw.uintLit;

import java.util.ArrayList;
import java.util.List;
import org.llmnpu.hdl.Bool;
import org.llmnpu.hdl.ClockGating;
import org.llmnpu.hdl.HwModule;
import org.llmnpu.hdl.SInt;
import org.llmnpu.hdl.UInt;
import org.llmnpu.hdl.Vec;

/**
 * Weight-stationary {@code rows × cols} INT8 MAC array with double-buffered weights, skewed
 * activations, and per-column periphery accumulators for extended input-channel accumulation.
 *
 * <p><b>What it computes.</b> One <em>pass</em> multiplies a weight tile ({@code rows} K ×
 * {@code cols} N; with N:M sparsity {@code rows} compressed entries = {@code 2·rows} logical K)
 * by a stream of activation beats, one M row per cycle. For beat {@code i} and column {@code c}
 * the column sum {@code Σ_r act · w[r][c]} is exact ({@link MacArrayConfig#psumWidth()} bits) and
 * is folded by {@link PeripheryAccumulator} with one saturating addition into the
 * {@code accWidth}-bit bank entry {@code i}, or leaves through the column's write port
 * (write-back or final result), as the beat's {@link BeatTag} says. This is, bit for bit, the
 * golden {@code org.llmnpu.numerics.gemm.TiledGemm}: exact sum per K tile, then
 * {@code acc = clamp(acc + tilePsum)} with a sticky {@code overflow} flag.
 *
 * <p><b>Data movement.</b> A beat's lanes ({@code acts}: lane {@code r} for PE row {@code r};
 * with N:M, lanes {@code M·g..M·g+M−1} are the M activations of group {@code g}, fed to the N rows
 * {@code N·g..N·g+N−1}: 4 lanes to 2 rows with 2:4, 8 lanes to 4 rows with 4:8) enter the skew buffer: row {@code r} receives them {@code r}
 * cycles later, then they move one PE right per cycle. Partial sums move one PE down per cycle.
 * So PE(r, c) works on the beat presented in cycle {@code t} during cycle {@code t + r + c}, and
 * column {@code c}'s periphery writes that beat's result at the end of cycle {@code t + rows + c}.
 * The tag travels alongside (a {@code rows}-stage delay, then one stage per column).
 *
 * <p><b>Weights.</b> {@code weightLoad} writes the entry vector {@code weightEntry}
 * ({@code weightIndex} with N:M) into the shadow registers of PE row {@code weightRow}. A beat with
 * {@code tileStart} swaps shadow into active PE by PE along the wavefront. Loading row {@code r} at
 * cycle {@code P + r} for a pass whose first beat is presented at {@code S} is correct when
 * {@code S ≥ P + 1} (the shadow is written before the swap reaches the row) and the next pass's
 * load starts at {@code P' ≥ S + cols − 1} (after the last column of every row has swapped).
 *
 * <p><b>Cycles of one pass</b> of {@code Mc} beats on an idle array: preload starts at cycle 0
 * (row {@code r} at cycle {@code r}, overlapped with the stream), beats at cycles 1..Mc, fill
 * {@code rows} cycles to the bottom of column 0, drain {@code cols − 1} more to the last column:
 * the last result is written in cycle {@code Mc + rows + cols − 1}. Back-to-back passes overlap
 * completely (double buffering) when {@code Mc ≥ max(rows, cols)}; {@link GemmCycleModel} gives
 * the exact count for a whole GEMM.
 *
 * <p><b>Clock gates</b> ({@code peGating} ON or CHECKED, the NPU's {@code clockGating}): a PE's registers are
 * written only in the cycle its wavefront passes, so the PEs of wavefront {@code d = r + c} share a gate
 * ({@code wavefront<d>}, {@code HwModule#clockGatedPipeline}) opened by the tag's {@code valid} delayed {@code d}
 * cycles (the delay line's stage {@code d}): one cycle per beat, and a PE reads its neighbours' registers only in
 * the cycle after their wavefront's, when they hold that beat's values. The shadow weights are the array's, one
 * gate per PE row ({@code shadowRow<r>}, {@code HwModule#clockGated}) opened by the row's load: one cycle per pass.
 * The skews, the tag's delay line, the periphery and the counters stay on the array's clock. So a GEMV (one beat
 * a pass, a pass every {@code rows} cycles while the weights stream) clocks each PE register one cycle in
 * {@code rows}. Results and cycles are those of the ungated array.
 *
 * <p><b>Counters.</b> {@code psumWritebacks} / {@code psumReadbacks} count partial-sum elements
 * written to / read back from the psum memory (not final results); {@code clear} zeroes them and
 * the sticky {@code overflow} flag.
 */
public final class MacArray extends HwModule {
  public final Vec<SInt> acts;
  public final Bool tileStart = in(bool());
  public final BeatTag tag;
  public final UInt colCount;
  public final Vec<SInt> weightEntry;
  public final Vec<UInt> weightIndex;
  public final Bool weightLoad = in(bool());
  public final UInt weightRow;
  public final Bool clear = in(bool());
  public final Vec<Bool> writeValid;
  public final Vec<Bool> writeFinal;
  public final Vec<UInt> writeAddress;
  public final Vec<SInt> writeData;
  public final Vec<UInt> readbackAddress;
  public final Vec<SInt> readbackData;
  public final Bool overflow = out(bool());
  public final UInt psumWritebacks = out(uint(32));
  public final UInt psumReadbacks = out(uint(32));
  private final MacArrayConfig config;
  private final ClockGating peGating;
  private List<SInt> previousRowLanes;
  /** The tag's delay line by stage ({@link #delayLineTo}), the column count's and the valid bits. */
  private final List<BeatTag> tagStages = new ArrayList<>();
  private final List<UInt> countStages = new ArrayList<>();
  private final List<Bool> validStages = new ArrayList<>();
  /** The name prefixes of the wavefront gates ({@code wavefront<d>}, d = r + c) and the rows' ({@code shadowRow<r>}). */
  public static final String WAVEFRONT_GATE = "wavefront";
  public static final String SHADOW_GATE = "shadowRow";

  /** @param psumAddressBits width of the psum-memory address carried by each beat */
  public MacArray(MacArrayConfig c, int psumAddressBits) {
    this(c, psumAddressBits, ClockGating.OFF);
  }

  /**
   * With {@code peGating} ON or CHECKED the PEs' registers are on clock gates by wavefront and row (class comment).
   *
   * @param psumAddressBits width of the psum-memory address carried by each beat
   */
  public MacArray(MacArrayConfig c, int psumAddressBits, ClockGating peGating) {
    config = c;
    this.peGating = java.util.Objects.requireNonNull(peGating, "peGating");
    int rows = c.rows();
    int cols = c.cols();
    boolean sparse = c.sparsity().sparse();
    BeatTag tagType = new BeatTag(bitsToHold(c.mTile() - 1), psumAddressBits);
    acts = in(Vec.of(c.kPerTile(), () -> sint(8)));
    tag = in(tagType);
    colCount = in(uint(bitsToHold(cols)));
    weightEntry = in(Vec.of(cols, () -> sint(8)));
    weightIndex = sparse ? in(Vec.of(cols, () -> uint(c.sparsity().indexBits()))) : null;
    weightRow = in(uint(bitsToHold(rows - 1)));
    writeValid = out(Vec.of(cols, () -> bool()));
    writeFinal = out(Vec.of(cols, () -> bool()));
    writeAddress = out(Vec.of(cols, () -> uint(psumAddressBits)));
    writeData = out(Vec.of(cols, () -> sint(c.accWidth())));
    readbackAddress = out(Vec.of(cols, () -> uint(psumAddressBits)));
    readbackData = in(Vec.of(cols, () -> sint(c.accWidth())));

    boolean gated = peGating != ClockGating.OFF;
    WsPe[][] pe = new WsPe[rows][cols];
    if (gated) {
      // one gate per wavefront d = r + c: the PEs' active weights, activation, swap and partial-sum registers,
      // opened by the tag's valid delayed d cycles (the delay line built first, up to the last column)
      delayLineTo(cols - 1);
      for (int d = 0; d <= rows + cols - 2; d++) {
        int wave = d;
        clockGatedPipeline(WAVEFRONT_GATE + d, validStages.get(d), peGating, () -> {
          for (int r = Math.max(0, wave - cols + 1); r <= Math.min(rows - 1, wave); r++) {
            pe[r][wave - r] = instance("pe_" + r + "_" + (wave - r), WsPe.withExternalShadow(c.sparsity(),
                c.psumWidth(), r == 0 && wave == 0));
          }
        });
      }
    }
    for (int r = 0; r < rows; r++) {
      Bool loadRow = wire("loadRow_" + r, weightLoad.and(weightRow.eq(r)));
      List<SInt> rowActs = skewedActs(r, c.sparsity());
      Bool rowSwap = tileStart;
      for (int d = 0; d < r; d++) {
        rowSwap = regNext("skew_swap_" + r + "_" + d, rowSwap);
      }
      if (gated) {
        shadowRow(r, loadRow, pe[r]);
      }
      for (int col = 0; col < cols; col++) {
        WsPe p = gated ? pe[r][col]
            : instance("pe_" + r + "_" + col, new WsPe(c.sparsity(), c.psumWidth(), r == 0 && col == 0));
        pe[r][col] = p;
        for (int lane = 0; lane < rowActs.size(); lane++) {
          p.actsIn.get(lane).set(col == 0 ? rowActs.get(lane) : pe[r][col - 1].actsOut.get(lane));
        }
        p.swapIn.set(col == 0 ? rowSwap : pe[r][col - 1].swapOut);
        if (!gated) {
          p.weightIn.set(weightEntry.get(col));
          if (sparse) {
            p.indexIn.set(weightIndex.get(col));
          }
          p.loadShadow.set(loadRow);
        }
        p.psumIn.set(r == 0 ? sintLit(0, c.psumWidth()) : pe[r - 1][col].psumOut);
      }
    }

    List<Bool> readbacks = new ArrayList<>();
    List<Bool> writebacks = new ArrayList<>();
    List<Bool> overflows = new ArrayList<>();
    for (int col = 0; col < cols; col++) {
      delayLineTo(col);
      BeatTag columnTag = tagStages.get(rows + col);
      PeripheryAccumulator acc = instance("acc_" + col,
          new PeripheryAccumulator(c.psumWidth(), c.accWidth(), c.mTile(), tagType.copyType()));
      acc.psum.set(pe[rows - 1][col].psumOut);
      acc.tag.connectFrom(columnTag);
      acc.enabled.set(countStages.get(rows + col).gt(col));
      acc.readbackData.set(readbackData.get(col));
      readbackAddress.get(col).set(columnTag.psumAddress);
      writeValid.get(col).set(acc.writeValid);
      writeFinal.get(col).set(acc.writeFinal);
      writeAddress.get(col).set(acc.writeAddress);
      writeData.get(col).set(acc.writeData);
      readbacks.add(acc.readbackEvent);
      writebacks.add(acc.writebackEvent);
      overflows.add(acc.overflowEvent);
    }

    section("counters", () -> {
      UInt wb = regInit("psumWritebacks", uint(32), 0);
      UInt rb = regInit("psumReadbacks", uint(32), 0);
      Bool ovf = regInit("overflow", bool(), 0);
      UInt wbNow = wire("writebacksNow", popCount(writebacks));
      UInt rbNow = wire("readbacksNow", popCount(readbacks));
      Bool ovfNow = wire("overflowNow", anyOf(overflows));
      when(clear, () -> {
        wb.set(uintLit(0, 32));
        rb.set(uintLit(0, 32));
        ovf.set(boolLit(false));
      }).otherwise(() -> {
        wb.set(wb.add(wbNow));
        rb.set(rb.add(rbNow));
        ovf.set(ovf.or(ovfNow));
      });
      psumWritebacks.set(wb);
      psumReadbacks.set(rb);
      overflow.set(ovf);
    });
  }

  /**
   * Builds the tag's delay line (and the column count's beside it) up to column {@code col}'s periphery, if not yet:
   * {@code rows} stages to the bottom of column 0 ({@code tagFill_<d>}), then one a column ({@code tagDrain_<c>});
   * stage d (tag delayed d cycles) is at index d of {@link #tagStages}, stage 0 the input.
   */
  private void delayLineTo(int col) {
    int rows = config.rows();
    if (tagStages.isEmpty()) {
      tagStages.add(tag);
      countStages.add(colCount);
      validStages.add(tag.valid);
      for (int d = 0; d < rows; d++) {
        addStage("tagFill_" + d, "colCountFill_" + d);
      }
    }
    for (int c = tagStages.size() - rows; c <= col; c++) {
      addStage("tagDrain_" + c, "colCountDrain_" + c);
    }
  }

  private void addStage(String tagName, String countName) {
    BeatTag t = delayed(tagName, tagStages.get(tagStages.size() - 1));
    tagStages.add(t);
    countStages.add(regNext(countName, countStages.get(countStages.size() - 1)));
    validStages.add(t.valid);
  }

  /**
   * PE row {@code r}'s shadow weights (and N:M indices), on a clock gate opened by the row's load ({@link
   * #SHADOW_GATE}{@code r}), into the PEs' {@code shadowIn}.
   */
  private void shadowRow(int r, Bool loadRow, WsPe[] rowPes) {
    boolean sparse = config.sparsity().sparse();
    clockGated(SHADOW_GATE + r, loadRow, peGating, () -> {
      for (int col = 0; col < rowPes.length; col++) {
        SInt shadow = reg("shadow_" + r + "_" + col, sint(8));
        SInt value = weightEntry.get(col);
        when(loadRow, () -> shadow.set(value));
        rowPes[col].shadowIn.set(shadow);
        if (sparse) {
          UInt index = reg("shadowIndex_" + r + "_" + col, uint(config.sparsity().indexBits()));
          UInt indexValue = weightIndex.get(col);
          when(loadRow, () -> index.set(indexValue));
          rowPes[col].shadowIndexIn.set(index);
        }
      }
    });
  }

  /**
   * Row {@code r}'s activation lanes, delayed {@code r} cycles. N:M: the first row of a group
   * ({@code r = N·g}) delays the group's M lanes {@code r} stages; each further row of the group
   * extends the previous row's chain by one stage.
   */
  private List<SInt> skewedActs(int r, WeightSparsity s) {
    List<SInt> lanes = new ArrayList<>();
    if (!s.sparse()) {
      SInt v = acts.get(r);
      for (int d = 0; d < r; d++) {
        v = regNext("skew_act_" + r + "_" + d, v);
      }
      lanes.add(v);
      return lanes;
    }
    int g = r / s.kept();
    boolean firstOfGroup = r % s.kept() == 0;
    for (int lane = 0; lane < s.group(); lane++) {
      SInt v = firstOfGroup ? acts.get(s.group() * g + lane) : previousRowLanes.get(lane);
      for (int d = firstOfGroup ? 0 : r - 1; d < r; d++) {
        v = regNext("skew_group" + g + "_" + lane + "_" + d, v);
      }
      lanes.add(v);
    }
    previousRowLanes = lanes;
    return lanes;
  }

  /** The tag one cycle later; only {@code valid} is reset, the rest is qualified by it. */
  private BeatTag delayed(String name, BeatTag t) {
    BeatTag d = wire(name, t.copyType());
    Bool valid = regInit(name + "_validQ", bool(), 0);
    valid.set(t.valid);
    d.valid.set(valid);
    d.bankIndex.set(regNext(name + "_bankIndexQ", t.bankIndex));
    d.firstInGroup.set(regNext(name + "_firstQ", t.firstInGroup));
    d.readback.set(regNext(name + "_readbackQ", t.readback));
    d.lastInGroup.set(regNext(name + "_lastQ", t.lastInGroup));
    d.finalGroup.set(regNext(name + "_finalQ", t.finalGroup));
    d.psumAddress.set(regNext(name + "_addressQ", t.psumAddress));
    return d;
  }

  private UInt popCount(List<Bool> bits) {
    List<UInt> level = new ArrayList<>();
    for (Bool b : bits) {
      level.add(b.asUInt());
    }
    while (level.size() > 1) {
      List<UInt> next = new ArrayList<>();
      for (int i = 0; i + 1 < level.size(); i += 2) {
        next.add(level.get(i).addExpand(level.get(i + 1)));
      }
      if (level.size() % 2 == 1) {
        next.add(level.get(level.size() - 1));
      }
      level = next;
    }
    return level.get(0);
  }

  private static Bool anyOf(List<Bool> bits) {
    Bool any = bits.get(0);
    for (int i = 1; i < bits.size(); i++) {
      any = any.or(bits.get(i));
    }
    return any;
  }

  public MacArrayConfig config() {
    return config;
  }

  @Override
  public String moduleName() {
    return "MacArray_" + config.tag() + (peGating == ClockGating.OFF ? "" : "_g");
  }
}
