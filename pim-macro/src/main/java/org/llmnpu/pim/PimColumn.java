package org.llmnpu.pim;

import static org.llmnpu.hdl.Hw.bits;
import static org.llmnpu.hdl.Hw.bool;
import static org.llmnpu.hdl.Hw.boolLit;
import static org.llmnpu.hdl.Hw.cat;
import static org.llmnpu.hdl.Hw.log2Ceil;
import static org.llmnpu.hdl.Hw.mux;
import static org.llmnpu.hdl.Hw.sint;
import static org.llmnpu.hdl.Hw.uint;
import static org.llmnpu.hdl.Hw.uintLit;

import java.util.ArrayList;
import java.util.List;
import org.llmnpu.hdl.Bits;
import org.llmnpu.hdl.Bool;
import org.llmnpu.hdl.Mem;
import org.llmnpu.hdl.HwModule;
import org.llmnpu.hdl.SInt;
import org.llmnpu.hdl.UInt;

/**
 * One column of the PiM macro: the compute logic under the bitcells of one output channel, its
 * adder tree, shift-and-add accumulator and the periphery-latched psum bank.
 *
 * <p><b>Per compute cycle</b> every row's cell forms a partial product of its stored weight and the
 * input chunk of {@code k} bits on its row line, and the adder tree sums them exactly:
 * <ul>
 *   <li>INT / PRE: {@code weight (signed) × chunk}, the chunk signed on the first (most significant)
 *       cycle and unsigned after it;</li>
 *   <li>POST: {@code ±(chunk × significand_w) << (eb_x + eb_w − 2)} — each product is aligned by its
 *       own exponent sum before the tree (a shifter per cell: the extra hardware of post-alignment);
 *       a special weight code counts as zero and raises {@code weightSpecial}.</li>
 * </ul>
 * {@code mvm <= firstChunk ? tree : (mvm << k) + tree}, so after the last chunk {@code mvm} is the
 * exact integer matrix-vector product of the column.
 *
 * <p><b>Pipeline</b> ({@code stages} = s): with s ≥ 1 the column latches its row inputs (chunks; POST
 * also the row signs and exponents) and forms the partial products from the bitcells in the next
 * cycle — the registers cut the row lines' fan-out over all columns and the input decode off the
 * tree; the weights must then be read one cycle after the compute cycle, which the macro
 * guarantees (the bank select is delayed with them, and a write lands at the end of the cycle
 * after the last chunk). With s ≥ 2 the adder tree is cut at {@code s − 1} of its levels
 * ({@link #treeCuts}). {@code computing} and {@code firstChunk} travel with the data, so the
 * shift-and-add and the periphery cycle come s cycles later; the macro delays
 * {@code periphValid} and its tags by s − 1 and the column latches them (and the PRE group shift) once
 * more, so the periphery's controls leave a register of its own column.
 *
 * <p>{@code overflowFlag} is the column's sticky saturation flag (the macro ORs the columns'), set
 * at the end of a periphery cycle whose addition saturated.
 *
 * <p><b>Periphery cycle</b> ({@code periphValid}, the cycle after the last chunk): the contribution
 * ({@code mvm}, or for PRE {@code mvm << groupShift}) is added to the base — {@code psumIn} on the
 * first row group of a fold (the read-back, or 0), else the bank entry {@code periphBank} — and
 * clamped to the signed {@code accWidth}-bit range ({@code overflowFlag} is set when the clamp
 * changed it). The sum goes back into the bank unless the row group is the fold's last, when it leaves on
 * {@code result}. Read-modify-write in one cycle.
 */
public final class PimColumn extends HwModule {
  public final Bits chunks;
  public final Bits weights;
  public final Bits rowSigns;
  public final Bits rowExponents;
  public final Bool computing = in(bool());
  public final Bool firstChunk = in(bool());
  public final Bool periphValid = in(bool());
  public final Bool periphFirst = in(bool());
  public final Bool periphLast = in(bool());
  public final UInt periphBank;
  public final UInt groupShift;
  public final SInt psumIn;
  public final SInt result;
  /** Clears {@link #overflowFlag}. */
  public final Bool clearFlags = in(bool());
  /** Sticky: a periphery addition of this column saturated (since reset or {@code clearFlags}). */
  public final Bool overflowFlag = out(bool());
  public final Bool weightSpecial;
  private final PimMacroConfig c;
  private Bits signIn;
  private Bits expIn;

  public PimColumn(PimMacroConfig c) {
    this.c = c;
    int k = c.bitsPerCycle();
    int rows = c.rows();
    boolean post = c.alignment() == PimMacroConfig.Alignment.POST;
    boolean pre = c.alignment() == PimMacroConfig.Alignment.PRE;
    int chunkBits = post ? k : k + 1;
    int e = c.precision().exponentBits;
    chunks = in(bits(rows * chunkBits));
    weights = in(bits(rows * c.cellBits()));
    rowSigns = post ? in(bits(rows)) : null;
    rowExponents = post ? in(bits(rows * c.inputExponentBits())) : null;
    periphBank = in(uint(Math.max(1, log2Ceil(c.mTile()))));
    groupShift = pre ? in(uint(c.shiftBits())) : null;
    psumIn = in(sint(c.accWidth()));
    result = out(sint(c.accWidth()));
    weightSpecial = post ? out(bool()) : null;

    int s = c.stages();
    Bits chunkIn = s >= 1 ? regNext("chunksQ", chunks) : chunks;
    signIn = post && s >= 1 ? regNext("rowSignsQ", rowSigns) : rowSigns;
    expIn = post && s >= 1 ? regNext("rowExponentsQ", rowExponents) : rowExponents;
    List<Bool> computingAt = new ArrayList<>(List.of(computing));
    List<Bool> firstAt = new ArrayList<>(List.of(firstChunk));
    for (int i = 1; i <= s; i++) {
      computingAt.add(regNext("computing_d" + i, computingAt.get(i - 1)));
      firstAt.add(regNext("firstChunk_d" + i, firstAt.get(i - 1)));
    }
    Bool productCycle = computingAt.get(Math.min(s, 1));
    List<SInt> products = new ArrayList<>();
    List<Bool> specials = new ArrayList<>();
    for (int r = 0; r < rows; r++) {
      Bits w = weights.bits((r + 1) * c.cellBits() - 1, r * c.cellBits());
      Bits chunk = chunkIn.bits((r + 1) * chunkBits - 1, r * chunkBits);
      if (post) {
        products.add(postProduct(r, w, chunk, specials));
      } else {
        products.add(wire("product_" + r, w.asSInt().mul(chunk.asSInt())));
      }
    }
    SInt tree = adderTree(products, treeCuts(rows, s));
    Bool shiftAdd = wire("shiftAdd", computingAt.get(s));
    Bool shiftAddFirst = wire("shiftAddFirst", firstAt.get(s));
    int mvmWidth = mvmWidth();
    SInt mvm = reg("mvm", sint(mvmWidth));
    SInt shifted = wire("mvmShifted", mvm.shiftLeft(k).resize(mvmWidth));
    when(shiftAdd, () -> mvm.set(mux(shiftAddFirst, tree.resize(mvmWidth), shifted.add(tree.resize(mvmWidth)))));
    if (post) {
      Bool any = specials.get(0);
      for (int r = 1; r < rows; r++) {
        any = any.or(specials.get(r));
      }
      weightSpecial.set(productCycle.and(any));
    }

    int acc = c.accWidth();
    int wide = Math.max(acc, mvmWidth + (pre ? c.shiftMax() : 0)) + 1;
    // pipelined: the periphery controls arrive a cycle early and are latched here, off the macro's fan-out
    boolean local = s >= 1;
    Bool pValid = local ? regInit("periphValidQ", bool(), 0) : periphValid;
    if (local) {
      pValid.set(periphValid);
    }
    Bool pFirst = local ? regNext("periphFirstQ", periphFirst) : periphFirst;
    Bool pLast = local ? regNext("periphLastQ", periphLast) : periphLast;
    UInt pBank = local ? regNext("periphBankQ", periphBank) : periphBank;
    UInt pShift = pre && local ? regNext("groupShiftQ", groupShift) : groupShift;
    Mem<SInt> bank = mem("psumBank", sint(acc), c.mTile());
    SInt contribution = wire("contribution", pre ? mvm.resize(wide).shiftLeft(pShift) : mvm.resize(wide));
    SInt base = wire("base", mux(pFirst, psumIn, bank.readAsync(pBank.resize(bank.addressWidth()))));
    SInt exact = wire("exact", base.resize(wide).add(contribution));
    SInt sum = wire("sum", exact.saturate(acc));
    when(pValid.and(pLast.not()), () -> bank.write(pBank.resize(bank.addressWidth()), sum));
    result.set(sum);
    Bool saturated = wire("overflowEvent", pValid.and(exact.overflows(acc)));
    Bool sticky = regInit("overflowSticky", bool(), 0);
    when(clearFlags, () -> sticky.set(boolLit(false))).elseWhen(saturated, () -> sticky.set(boolLit(true)));
    overflowFlag.set(sticky);
  }

  /** Width of the shift-and-add register: holds every partial and final MVM value exactly. */
  int mvmWidth() {
    int serial = c.cyclesPerMvm() * c.bitsPerCycle();
    if (c.alignment() == PimMacroConfig.Alignment.POST) {
      return serial + c.precision().mantissaBits + 1 + c.shiftMax() + log2Ceil(c.rows()) + 2;
    }
    return serial + c.cellBits() + log2Ceil(c.rows()) + 1;
  }

  private SInt postProduct(int r, Bits code, Bits chunk, List<Bool> specials) {
    PimPrecision p = c.precision();
    int m = p.mantissaBits;
    int e = p.exponentBits;
    UInt exp = code.bits(m + e - 1, m).asUInt();
    Bool special = p == PimPrecision.FP8_E4M3
        ? code.bits(6, 0).andR()
        : exp.andR();
    specials.add(wire("special_" + r, special));
    Bool normal = exp.ne(0);
    UInt significand = wire("significand_" + r,
        mux(special, uintLit(0, m + 1), cat(normal, code.bits(m - 1, 0)).asUInt()));
    UInt eb = mux(normal, exp, uintLit(1, e));
    int xe = c.inputExponentBits();
    int sb = c.shiftBits();
    UInt ex = expIn.bits((r + 1) * xe - 1, r * xe).asUInt();
    UInt shift = wire("shift_" + r, ex.resize(sb).add(eb.resize(sb)).sub(2));
    int width = chunk.width() + m + 1 + c.shiftMax();
    UInt aligned = wire("aligned_" + r, chunk.asUInt().mul(significand).resize(width).shiftLeft(shift));
    SInt signed = aligned.toSInt();
    Bool negative = signIn.bit(r).xor(code.bit(m + e));
    return wire("product_" + r, mux(negative, signed.neg(), signed));
  }

  /**
   * Tree levels after which a pipeline register sits, for {@code s} stages on {@code rows} leaves:
   * none for s ≤ 1; else {@code s − 1} cuts spread over the tree's {@code depth} levels plus the
   * shift-and-add (counted as two levels): level {@code round(i · (depth + 2) / s)} for
   * {@code i = 1 .. s − 1}, clamped to 1..depth (a one-row tree has no level: its cut is at the leaves).
   */
  static List<Integer> treeCuts(int rows, int s) {
    int depth = log2Ceil(rows);
    List<Integer> cuts = new ArrayList<>();
    for (int i = 1; i < s; i++) {
      int level = Math.max(Math.min(1, depth), Math.min(depth, Math.round(i * (depth + 2) / (float) s)));
      if (!cuts.contains(level)) {
        cuts.add(level);
      }
    }
    while (cuts.size() < Math.max(0, s - 1)) {
      cuts.add(cuts.isEmpty() ? depth : cuts.get(cuts.size() - 1));
    }
    return cuts;
  }

  /** The exact column sum; a register after every level in {@code cuts} (level 0 = the leaves). */
  private SInt adderTree(List<SInt> leaves, List<Integer> cuts) {
    List<SInt> level = leaves;
    int depth = 0;
    int[] registered = {0};
    level = cut(level, depth, cuts, registered);
    while (level.size() > 1) {
      List<SInt> next = new ArrayList<>();
      for (int i = 0; i + 1 < level.size(); i += 2) {
        next.add(wire("tree_" + depth + "_" + i / 2, level.get(i).addExpand(level.get(i + 1))));
      }
      if (level.size() % 2 == 1) {
        next.add(level.get(level.size() - 1));
      }
      level = next;
      depth++;
      level = cut(level, depth, cuts, registered);
    }
    return wire("tree", level.get(0));
  }

  private List<SInt> cut(List<SInt> level, int depth, List<Integer> cuts, int[] registered) {
    List<SInt> out = level;
    for (int n = 0; n < cuts.size(); n++) {
      if (cuts.get(n) != depth) {
        continue;
      }
      List<SInt> q = new ArrayList<>();
      for (int i = 0; i < out.size(); i++) {
        q.add(regNext("treeQ" + registered[0] + "_" + i, out.get(i)));
      }
      registered[0]++;
      out = q;
    }
    return out;
  }

  @Override
  public String moduleName() {
    return "PimColumn_" + c.tag();
  }
}
