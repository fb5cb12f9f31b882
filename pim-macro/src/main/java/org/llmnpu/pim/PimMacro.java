package org.llmnpu.pim;

import static org.llmnpu.hdl.Hw.bits;
import static org.llmnpu.hdl.Hw.bool;
import static org.llmnpu.hdl.Hw.cat;
import static org.llmnpu.hdl.Hw.catLsbFirst;
import static org.llmnpu.hdl.Hw.log2Ceil;
import static org.llmnpu.hdl.Hw.mux;
import static org.llmnpu.hdl.Hw.sint;
import static org.llmnpu.hdl.Hw.uint;
import static org.llmnpu.hdl.Hw.uintLit;

import java.util.ArrayList;
import java.util.List;
import org.llmnpu.hdl.Bits;
import org.llmnpu.hdl.Bool;
import org.llmnpu.hdl.HwValue;
import org.llmnpu.hdl.Mem;
import org.llmnpu.hdl.HwModule;
import org.llmnpu.hdl.UInt;

/**
 * A digital SRAM compute-in-memory macro: {@code rows × cols} weights stay in bitcells, input
 * vectors stream in bit-serially (or {@code k} bits per cycle), each column sums its cells' partial
 * products in an adder tree, a shift-and-add accumulator rebuilds the full-precision product, and
 * periphery-latched psum banks fold row groups (K tiles) locally.
 *
 * <p><b>Interface</b> (a GEMM-like command: load a weight tile row-wise, stream input vectors, read
 * psums; buses are packed, element 0 in the least significant bits):
 * <ul>
 *   <li>weights: {@code wrEn}, {@code wrRow}, {@code wrData} ({@code cols × cellBits}) write one
 *       bitcell row per cycle; PRE also {@code expWrEn}, {@code expData} ({@code cols × e}) for the
 *       columns' group exponents. With one bank, writes are taken only when {@code wrReady} (not
 *       computing). With {@code weightBanks = 2} writes always go to the bank that is not
 *       computing ({@code wrReady} stays high), and an input vector with {@code inSwap} makes the
 *       freshly written bank the active one for itself and the vectors after it.</li>
 *   <li>inputs: {@code inValid}/{@code inReady}, {@code inData} ({@code rows × inputBits}: INT
 *       two's complement or FP8 codes) with the tag {@code inBank} (psum bank entry), {@code inFirst}
 *       (first row group of a fold: the base is {@code psumIn}), {@code inLast} (last row group of
 *       a fold: the psum leaves instead of being latched).</li>
 *   <li>results: in the periphery cycle of each vector {@code outValid} is high; {@code outFirst}
 *       asks for {@code psumIn} (the read-back, or 0) in that same cycle; with {@code outLast},
 *       {@code outData} ({@code cols × accWidth}) holds the psums. {@code overflow} (saturation)
 *       and {@code special} (an FP NaN/Inf code seen) are sticky until reset or {@code clearFlags}.</li>
 * </ul>
 *
 * <p><b>Numerics</b>: INT exact products and tree, one saturating addition per row group into the
 * {@code accWidth}-bit psum (golden: {@code numerics.pim.PimIntGemm}); FP8 PRE aligns each input
 * vector to its largest exponent in the input periphery (truncating the shifted-out bits; weights
 * arrive pre-aligned per column with their exponents) and shifts each column's integer sum by
 * {@code ebX + ebW − 2} in the periphery; FP8 POST aligns every product in its cell and is exact
 * (golden: {@code numerics.pim.PimFpGemm}). NaN/Inf codes count as zero and set {@code special}.
 *
 * <p><b>Timing</b>: an accepted vector occupies the array for {@code C = ceil(serialBits / k)}
 * cycles ({@code inReady} is high again in its last one, so vectors stream back to back); its
 * periphery cycle comes {@code 1 + stages} cycles after its last chunk ({@code stages} pipeline
 * registers in the columns, {@link PimColumn}), overlapping the next vectors. A weight tile takes
 * {@code rows (+1 for PRE)} write cycles, which may overlap only the last vector's periphery cycle.
 * See {@link PimCycleModel} for the GEMM formula.
 */
public final class PimMacro extends HwModule {
  public final Bool wrEn = in(bool());
  public final Bool wrReady = out(bool());
  public final UInt wrRow;
  public final Bits wrData;
  public final Bool expWrEn;
  public final Bits expData;
  public final Bool inValid = in(bool());
  public final Bool inReady = out(bool());
  public final Bits inData;
  public final Bits inScale;
  public final UInt inBank;
  public final Bool inFirst = in(bool());
  public final Bool inLast = in(bool());
  public final Bool inSwap;
  public final Bits psumIn;
  public final Bool outValid = out(bool());
  public final Bool outFirst = out(bool());
  public final Bool outLast = out(bool());
  public final Bits outData;
  public final Bool overflow = out(bool());
  public final Bool special = out(bool());
  /** Clears the sticky {@code overflow} and {@code special} flags (e.g. at the start of a GEMM). */
  public final Bool clearFlags = in(bool());
  private final PimMacroConfig c;

  public PimMacro(PimMacroConfig c) {
    this.c = c;
    int rows = c.rows();
    int cols = c.cols();
    boolean pre = c.alignment() == PimMacroConfig.Alignment.PRE;
    boolean post = c.alignment() == PimMacroConfig.Alignment.POST;
    int e = c.precision().exponentBits;
    int k = c.bitsPerCycle();
    int chunkCount = c.cyclesPerMvm();
    int serialWidth = chunkCount * k;
    int bankBits = Math.max(1, log2Ceil(c.mTile()));
    boolean db = c.doubleBuffered();
    inSwap = db ? in(bool()) : null;
    wrRow = in(uint(Math.max(1, log2Ceil(rows))));
    wrData = in(bits(cols * c.cellBits()));
    expWrEn = pre ? in(bool()) : null;
    expData = pre ? in(bits(cols * e)) : null;
    inData = in(bits(rows * c.inputBits()));
    inScale = c.scaleBlocks() > 0 ? in(bits(8 * c.scaleBlocks())) : null;
    inBank = in(uint(bankBits));
    psumIn = in(bits(cols * c.accWidth()));
    outData = out(bits(cols * c.accWidth()));

    Bool busy = regInit("busy", bool(), 0);
    UInt count = regInit("count", uint(Math.max(1, log2Ceil(chunkCount))), 0);
    Bool lastChunk = wire("lastChunk", busy.and(count.eq(chunkCount - 1)));
    Bool accept = wire("accept", inValid.and(busy.not().or(lastChunk)));
    inReady.set(busy.not().or(lastChunk));
    wrReady.set(db ? lit(true) : busy.not());
    Bool activeBank = db ? regInit("activeBank", bool(), 0) : null;
    if (db) {
      when(accept.and(inSwap), () -> activeBank.set(activeBank.not()));
    }
    when(accept, () -> {
      busy.set(lit(true));
      count.set(uintLit(0, count.width()));
    }).elseWhen(lastChunk, () -> {
      busy.set(lit(false));
      count.set(uintLit(0, count.width()));
    }).elseWhen(busy, () -> count.set(count.add(1)));

    Mem<Bits> bitcells = mem("bitcells", bits(cols * c.cellBits()), rows);
    Mem<Bits> shadow = db ? mem("bitcellsShadow", bits(cols * c.cellBits()), rows) : null;
    if (db) {
      // the bank not computing takes the writes: bank 0 is "bitcells", bank 1 "bitcellsShadow"
      when(wrEn.and(activeBank), () -> bitcells.write(wrRow.resize(bitcells.addressWidth()), wrData));
      when(wrEn.and(activeBank.not()), () -> shadow.write(wrRow.resize(shadow.addressWidth()), wrData));
    } else {
      when(wrEn.and(busy.not()), () -> bitcells.write(wrRow.resize(bitcells.addressWidth()), wrData));
    }

    InputRows input = new InputRows(serialWidth, e, accept);
    List<HwValue> chunkList = new ArrayList<>();
    Bool top = wire("topChunk", count.eq(0));
    for (int r = 0; r < rows; r++) {
      Bits sr = input.shift.get(r);
      Bits load = input.load.get(r);
      Bits chunk = sr.bits(serialWidth - 1, serialWidth - k);
      chunkList.add(post ? chunk : wire("chunk_" + r, mux(top, chunk.asSInt().resize(k + 1), chunk.asUInt().toSInt())));
      when(accept, () -> sr.set(load)).elseWhen(busy, () -> sr.set(sr.shiftLeft(k).lsbs(serialWidth)));
    }
    Bits chunkBus = wire("chunkBus", catLsbFirst(chunkList));

    UInt tagBank = reg("tagBank", uint(bankBits));
    Bool tagFirst = reg("tagFirst", bool());
    Bool tagLast = reg("tagLast", bool());
    when(accept, () -> {
      tagBank.set(inBank);
      tagFirst.set(inFirst);
      tagLast.set(inLast);
    });
    // the tags of the vector whose last chunk was the previous cycle, then c.stages() cycles on to its periphery cycle
    int stages = c.stages();
    String d0 = stages == 0 ? "" : "_d0";
    Bool endValid = regNextInit("periphValid" + d0, lastChunk);
    // pipelined (stages ≥ 1): each column latches the last of the delays itself (PimColumn)
    int here = Math.max(0, stages - 1);
    Bool periphValid = delayInit("periphValid", endValid, here);
    UInt periphBank = delay("periphBank", regNext("periphBank" + d0, tagBank), here);
    Bool periphFirst = delay("periphFirst", regNext("periphFirst" + d0, tagFirst), here);
    Bool periphLast = delay("periphLast", regNext("periphLast" + d0, tagLast), here);
    UInt periphEbX = pre ? delay("periphEbX", regNext("periphEbX" + d0, input.ebX), here) : null;
    Bool outValidNow = stages == 0 ? periphValid : regNextInit("outValidQ", periphValid);
    Bool outFirstNow = stages == 0 ? periphFirst : regNext("outFirstQ", periphFirst);
    Bool outLastNow = stages == 0 ? periphLast : regNext("outLastQ", periphLast);
    outValid.set(outValidNow);
    outFirst.set(outValidNow.and(outFirstNow));
    outLast.set(outValidNow.and(outLastNow));

    List<UInt> colExp = new ArrayList<>();
    if (pre) {
      // the bank of the vector in its periphery cycle: the one active during its last chunk
      Bool periphBankSel = db ? regNext("periphBankSel", activeBank) : null;
      for (int j = 0; j < cols; j++) {
        int jj = j;
        UInt ce = reg("colExp_" + j, uint(e));
        if (!db) {
          when(expWrEn.and(busy.not()), () -> ce.set(expData.bits((jj + 1) * e - 1, jj * e).asUInt()));
          colExp.add(ce);
          continue;
        }
        UInt cs = reg("colExpShadow_" + j, uint(e));
        when(expWrEn.and(activeBank), () -> ce.set(expData.bits((jj + 1) * e - 1, jj * e).asUInt()));
        when(expWrEn.and(activeBank.not()), () -> cs.set(expData.bits((jj + 1) * e - 1, jj * e).asUInt()));
        colExp.add(wire("colExpUsed_" + j, mux(periphBankSel, cs, ce)));
      }
      // the next tile's exponent word may land before a pipelined periphery cycle: carry the value it sees now
      for (int j = 0; j < cols && stages > 1; j++) {
        colExp.set(j, delay("colExpPeriph_" + j, colExp.get(j), stages - 1));
      }
    }

    List<Bits> rowWords = new ArrayList<>();
    // with stages ≥ 1 the columns read the bitcells in the cycle after the compute cycle: with the bank of that cycle
    Bool readBank = db ? (stages >= 1 ? regNext("readBank", activeBank) : activeBank) : null;
    for (int r = 0; r < rows; r++) {
      Bits word = bitcells.readAsync(uintLit(r, bitcells.addressWidth()));
      if (db) {
        word = mux(readBank, shadow.readAsync(uintLit(r, shadow.addressWidth())), word);
      }
      rowWords.add(wire("row_" + r, word));
    }
    List<HwValue> results = new ArrayList<>();
    Bool anyOverflow = lit(false);
    Bool anySpecial = input.special;
    for (int j = 0; j < cols; j++) {
      PimColumn col = instance("column_" + j, new PimColumn(c));
      List<HwValue> cells = new ArrayList<>();
      for (int r = 0; r < rows; r++) {
        cells.add(rowWords.get(r).bits((j + 1) * c.cellBits() - 1, j * c.cellBits()));
      }
      col.weights.set(catLsbFirst(cells));
      col.chunks.set(chunkBus);
      if (post) {
        col.rowSigns.set(input.signBus);
        col.rowExponents.set(input.expBus);
        anySpecial = anySpecial.or(col.weightSpecial);
      }
      col.computing.set(busy);
      col.firstChunk.set(top);
      col.periphValid.set(periphValid);
      col.periphFirst.set(periphFirst);
      col.periphLast.set(periphLast);
      col.periphBank.set(periphBank);
      if (pre) {
        int sb = c.shiftBits();
        col.groupShift.set(periphEbX.resize(sb).add(colExp.get(j).resize(sb)).sub(2));
      }
      col.psumIn.set(psumIn.bits((j + 1) * c.accWidth() - 1, j * c.accWidth()).asSInt());
      col.clearFlags.set(clearFlags);
      results.add(col.result);
      anyOverflow = anyOverflow.or(col.overflowFlag);
    }
    outData.set(catLsbFirst(results));
    Bool specialFlag = regInit("specialFlag", bool(), 0);
    Bool specialNow = wire("specialNow", anySpecial);
    when(clearFlags, () -> specialFlag.set(lit(false))).elseWhen(specialNow, () -> specialFlag.set(lit(true)));
    overflow.set(anyOverflow);
    special.set(specialFlag);
  }

  /** {@code value} after {@code n} registers named {@code name_d1 .. name}; the value itself for n = 0. */
  private <T extends HwValue> T delay(String name, T value, int n) {
    T v = value;
    for (int i = 1; i <= n; i++) {
      v = regNext(i == n ? name : name + "_d" + i, v);
    }
    return v;
  }

  private Bool regNextInit(String name, Bool value) {
    Bool q = regInit(name, bool(), 0);
    q.set(value);
    return q;
  }

  /** As {@link #delay}, the registers reset to false. */
  private Bool delayInit(String name, Bool value, int n) {
    Bool v = value;
    for (int i = 1; i <= n; i++) {
      v = regNextInit(i == n ? name : name + "_d" + i, v);
    }
    return v;
  }

  private static Bool lit(boolean v) {
    return org.llmnpu.hdl.Hw.boolLit(v);
  }

  /**
   * The input periphery: per row the value each accepted vector loads into the row's shift
   * register (INT sign-extended; PRE aligned to the vector's largest exponent; POST the
   * significand), the row signs and exponents POST latches, and the special-code detector.
   */
  private final class InputRows {
    final List<Bits> shift = new ArrayList<>();
    final List<Bits> load = new ArrayList<>();
    Bits signBus;
    Bits expBus;
    UInt ebX;
    Bool special = lit(false);

    InputRows(int serialWidth, int e, Bool accept) {
      int rows = c.rows();
      int w = c.inputBits();
      int m = c.inputMantissaBits();
      int xe = c.inputExponentBits();
      List<UInt> eb = new ArrayList<>();
      List<UInt> sig = new ArrayList<>();
      List<Bool> neg = new ArrayList<>();
      for (int r = 0; r < rows; r++) {
        Bits raw = inData.bits((r + 1) * w - 1, r * w);
        if (!c.precision().isFp()) {
          load.add(wire("load_" + r, raw.asSInt().resize(serialWidth).asBits()));
          continue;
        }
        decode(r, raw, m, xe, eb, sig, neg);
      }
      special = accept.and(special);
      if (c.alignment() == PimMacroConfig.Alignment.PRE) {
        UInt max = eb.get(0);
        for (int r = 1; r < rows; r++) {
          max = max.max(eb.get(r));
        }
        UInt ebMax = wire("inEbMax", max);
        int a = c.alignBits();
        for (int r = 0; r < rows; r++) {
          UInt mag = wire("alignedMag_" + r,
              sig.get(r).shiftLeft(a - 1 - m).shiftRight(ebMax.sub(eb.get(r))));
          org.llmnpu.hdl.SInt s = mag.toSInt();
          load.add(wire("load_" + r, mux(neg.get(r), s.neg(), s).resize(serialWidth).asBits()));
        }
        ebX = reg("ebX", uint(c.inputExponentBits()));
        UInt held = ebX;
        when(accept, () -> held.set(ebMax));
      } else if (c.alignment() == PimMacroConfig.Alignment.POST) {
        List<HwValue> signs = new ArrayList<>();
        List<HwValue> exps = new ArrayList<>();
        for (int r = 0; r < rows; r++) {
          load.add(wire("load_" + r, sig.get(r).resize(serialWidth).asBits()));
          Bool sg = reg("rowSign_" + r, bool());
          UInt ex = reg("rowExp_" + r, uint(c.inputExponentBits()));
          Bool n = neg.get(r);
          UInt v = eb.get(r);
          when(accept, () -> {
            sg.set(n);
            ex.set(v);
          });
          signs.add(sg);
          exps.add(ex);
        }
        signBus = wire("rowSignBus", catLsbFirst(signs));
        expBus = wire("rowExpBus", catLsbFirst(exps));
      }
      for (int r = 0; r < rows; r++) {
        Bits sr = reg("inShift_" + r, bits(serialWidth));
        shift.add(sr);
      }
    }

    /**
     * Slices input element {@code r} into (eb, significand, sign) and flags NaN/Inf codes and NaN
     * scales; an MX block's E8M0 scale is added to the element's biased exponent.
     */
    private void decode(int r, Bits raw, int m, int ex, List<UInt> eb, List<UInt> sig, List<Bool> neg) {
      PimInput in = c.input();
      UInt scale = null;
      Bool nanScale = lit(false);
      if (in.blockScaled()) {
        int b = Math.min(r / 32, c.scaleBlocks() - 1);
        scale = wire("inScale_" + r, inScale.bits(8 * b + 7, 8 * b).asUInt());
        nanScale = wire("inNanScale_" + r, scale.andR());
      }
      if (in == PimInput.MXINT8) {
        Bool negative = raw.bit(7);
        org.llmnpu.hdl.SInt v = raw.asSInt().resize(9);
        UInt mag = wire("inMag_" + r, mux(negative, v.neg(), v).asUInt().resize(8));
        special = special.or(nanScale);
        eb.add(wire("inEb_" + r, mux(nanScale, uintLit(1, ex), scale.resize(ex).add(1))));
        sig.add(wire("inSig_" + r, mux(nanScale, uintLit(0, 8), mag)));
        neg.add(negative);
        return;
      }
      int e = in == PimInput.BF16 ? 8 : c.precision().exponentBits;
      UInt exp = raw.bits(m + e - 1, m).asUInt();
      Bool elemSpecial = in != PimInput.BF16 && c.precision() == PimPrecision.FP8_E4M3
          ? raw.bits(6, 0).andR() : exp.andR();
      Bool isSpecial = wire("inSpecial_" + r, elemSpecial.or(nanScale));
      special = special.or(isSpecial);
      Bool normal = exp.ne(0);
      UInt ebElem = mux(normal, exp, uintLit(1, e)).resize(ex);
      UInt ebScaled = in.blockScaled() ? ebElem.add(scale.resize(ex)) : ebElem;
      eb.add(wire("inEb_" + r, mux(isSpecial, uintLit(1, ex), ebScaled)));
      sig.add(wire("inSig_" + r, mux(isSpecial, uintLit(0, m + 1), cat(normal, raw.bits(m - 1, 0)).asUInt())));
      neg.add(raw.bit(w(in) - 1));
    }

    private int w(PimInput in) {
      return in.codeBits();
    }
  }

  @Override
  public String moduleName() {
    return "PimMacro_" + c.tag();
  }
}
