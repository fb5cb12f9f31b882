package org.llmnpu.rtl.npu;

import static org.llmnpu.hdl.Hw.bitsToHold;
import static org.llmnpu.hdl.Hw.bool;
import static org.llmnpu.hdl.Hw.boolLit;
import static org.llmnpu.hdl.Hw.cat;
import static org.llmnpu.hdl.Hw.mux;
import static org.llmnpu.hdl.Hw.uint;
import static org.llmnpu.hdl.Hw.uintLit;
import static org.llmnpu.rtl.npu.PredecodeSums.PIECE;
import static org.llmnpu.rtl.npu.PredecodeSums.sum;
import static org.llmnpu.rtl.npu.PredecodeSums.toElements;
import static org.llmnpu.rtl.npu.PredecodeSums.withTerm;

import java.util.ArrayList;
import java.util.List;
import org.llmnpu.hdl.Bool;
import org.llmnpu.hdl.HwModule;
import org.llmnpu.hdl.HwValue;
import org.llmnpu.hdl.UInt;
import org.llmnpu.isa.Command;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.isa.MxLoad;
import org.llmnpu.isa.Opcode;
import org.llmnpu.rtl.npu.PredecodeSums.Product;
import org.llmnpu.rtl.npu.PredecodeSums.Sum;

/**
 * The range checks of DECODE, computed while a command lands instead of in DECODE. The checks that depend only
 * on the command's 32 bytes — shape, scratchpad range and alignment, DSP buffer range, memory range and
 * alignment, of {@code IsaSimulator} (and the operand sums {@code base + (rows − 1)·stride + bytes} with their
 * 16×32-bit products) — are stored with the command ({@link #width} bits beside each queue slot and beside the
 * command register); DECODE reads them from those registers. They take two cycles: in the cycle the command's
 * last beat arrives the products are computed from the arriving words and registered ({@code predecode_product*});
 * in the next cycle, while the command sits in {@link NpuFetch}'s landing register, the sums and comparisons are
 * computed from the landed words and those products. So neither the products nor the sums sit between the
 * memory's response and a register, or between the command register and the controller's decisions (halt or
 * dispatch, the store scoreboard). Cycles: a command lands one cycle after its last beat arrives
 * ({@code CycleModel}, "Command fetch").
 *
 * <p>Narrow sums, exact checks. A check {@code Σ terms > limit} has non-negative terms, so it holds as soon as one
 * term alone is {@code ≥ 2^e} with {@code e = bitsToHold(limit)} ({@code limit < 2^e}); otherwise every term is
 * below {@code 2^e} and their sum is exact in {@code e + ⌈log2 n⌉} bits. So each check adds only the low
 * {@code e} bits of its terms (e.g. 14 bits for a 4 KiB scratchpad, not the 52 bits of the full sum) and ORs the
 * high bits' flags. A product {@code (x − 1)·y} (x 16 bits) is formed from y's low e bits {@code y_e}, with the
 * flag {@code x ≥ 2 ∧ y ≥ 2^e}, as {@code x·y_e − y_e}: registered partial products of x's two bytes and
 * {@code y_e}'s pieces of at most 11 bits ({@code x[7:0]·y_e[10:0]}, …) are terms of the sum (each up to
 * {@code 2^(e+1)}: a larger one means {@code (x − 1)·y_e ≥ 2^e}) and {@code y_e} is subtracted from it, so no
 * decrement precedes the multipliers. The result of every check is the one of the 52-bit sum.
 *
 * <p>Layout of {@link #bits}: bit 0 a bad shape (BAD_SHAPE), 1 a bad scratchpad range (SPAD_ADDRESS), 2 a bad
 * DSP buffer range or program length (DSP_ADDRESS), 3 a bad memory range (EXT_ADDRESS) — each already limited
 * to the commands it belongs to — then the DMA's scratchpad end, the GEMM's result end and the DSP copy's
 * scratchpad end (the store scoreboard's ranges of a STORE, GEMM, DSPIN/DSPOUT; {@link #endBits}
 * bits each: the exact end when it is below {@code 2^endBits − 1}, else all ones; an end beyond the scratchpad
 * fails SPAD_ADDRESS, and the store scoreboard gives the same answer for it either way). The opcode checks
 * (undefined, unsupported) stay in DECODE: they are small, and {@code ppm}'s depends on the PPU table's state.
 */
public final class NpuPredecode extends HwModule {
  static final int SHAPE = 0;
  static final int SPAD = 1;
  static final int DSP = 2;
  static final int EXT = 3;
  static final int DMA_SPAD_END = 4;
  /**
   * Words 1..7 of the arriving command (its last beat arrives this cycle), of which the products are registered:
   * word 5's low half only (the {@code ppm}'s M), word 0 not at all.
   */
  public final List<UInt> arriving = new ArrayList<>();
  /** The same command one cycle later (the landing register): its opcode and words 1..7 ({@code landed[255:32]}). */
  public final UInt landedOpcode = in(uint(8));
  public final UInt landedFields = in(uint(224));
  /**
   * The arriving command's last beat arrives this cycle: the products' registers ({@code predecode_product*}) take
   * a value only then (they are read only in the next cycle, the landing cycle), on the clock gate
   * {@link NpuClockGates#PREDECODE_PRODUCTS} this opens.
   */
  public final Bool arrives = in(bool());
  /** The checks and ends of {@link #landed}, laid out as above. */
  public final UInt bits;
  private final int lineShift;
  private final MachineParams p;
  private final boolean ppu;

  /** Bits of a stored end: one more than the scratchpad size needs. */
  static int endBits(MachineParams p) {
    return bitsToHold(p.spadBytes()) + 1;
  }

  /** Bits stored per command. */
  static int width(MachineParams p) {
    return 4 + 3 * endBits(p);
  }

  /** The first bit of the GEMM's result end. */
  static int resultEnd(MachineParams p) {
    return DMA_SPAD_END + endBits(p);
  }

  /** The first bit of a DSP copy's scratchpad end. */
  static int copySpadEnd(MachineParams p) {
    return DMA_SPAD_END + 2 * endBits(p);
  }

  /** The predecode of an NPU of configuration {@code c} (its limits; the PPU's table size). */
  public NpuPredecode(NpuConfig c) {
    p = c.machine();
    ppu = c.ppu();
    bits = out(uint(width(p)));
    int snapshotBytes = NpuSnapshot.BYTES;
    int lutEntries = NpuPpm.config(p, c.ppu()).lutEntries();
    for (int i = 1; i < 8; i++) {
      arriving.add(in("arriving" + i, uint(i == 5 ? 16 : 32)));
    }
    List<UInt> w = new ArrayList<>();
    w.add(landedOpcode.resize(32));
    for (int i = 1; i < 8; i++) {
      w.add(landedFields.slice(32 * i - 1, 32 * i - 32));
    }
    List<UInt> early = new ArrayList<>();
    early.add(null);
    early.addAll(arriving);
    int line = p.lineBytes();
    lineShift = Integer.numberOfTrailingZeros(line);
    long spadLimit = p.spadBytes();
    long extLimit = p.extMemBytes();
    long dspLimit = p.dsp().elements();
    List<List<Product>> gatedProducts = new ArrayList<>();
    clockGatedPipeline(NpuClockGates.PREDECODE_PRODUCTS, arrives, c.clockGatingMode(),
        () -> gatedProducts.add(products(p, early, w, spadLimit, extLimit, dspLimit)));
    List<Product> products = gatedProducts.get(0);
    UInt op = w.get(0).lsbs(8);
    Bool isLoad4 = op.eq(Opcode.LOAD4.code());
    Bool isLoadMx = op.eq(Opcode.LOADMX.code());
    Bool isDma = op.eq(Opcode.LOAD.code()).or(op.eq(Opcode.STORE.code())).or(isLoad4).or(isLoadMx);
    Bool isGemm = op.eq(Opcode.GEMM.code());
    Bool isDspIn = op.eq(Opcode.DSPIN.code());
    Bool isCopy = isDspIn.or(op.eq(Opcode.DSPOUT.code()));
    Bool isDspTab = op.eq(Opcode.DSPTAB.code());
    Bool isDspRun = op.eq(Opcode.DSPRUN.code());
    Bool isDspLd = op.eq(Opcode.DSPLD.code());
    Bool isSnapshot = op.eq(Opcode.SNAPSHOT.code());
    Bool isPpmCfg = op.eq(Opcode.PPMCFG.code());
    Bool isPpuTab = op.eq(Opcode.PPUTAB.code());
    Bool isPpm = op.eq(Opcode.PPM.code());
    int endBits = endBits(p);

    // DMA: ext, extStride, spad, spadStride, rowBytes, rows
    UInt rows = w.get(6);
    UInt rowBytes = w.get(5);
    Bool dmaShape = rows.eq(0).or(rows.slice(31, 16).ne(0)).or(rowBytes.eq(0)).or(rowBytes.slice(31, 16).ne(0));
    Sum dmaSpadEnd = sum(spadLimit, products.get(0), w.get(3), rowBytes.lsbs(16));
    // load4: the scratchpad rows are twice the source rows
    Sum load4SpadEnd = sum(spadLimit, products.get(0), w.get(3), rowBytes.lsbs(16).shiftLeft(1));
    Bool dmaSpad = misaligned(w.get(3)).or(misaligned(w.get(4))).or(dmaSpadEnd.exceeds())
        .or(isLoad4.and(load4SpadEnd.exceeds()));
    Bool dmaExt = misaligned(w.get(1)).or(misaligned(w.get(2)))
        .or(sum(extLimit, products.get(1), w.get(1), rowBytes.lsbs(16)).exceeds());

    // GEMM
    UInt m = w.get(1).lsbs(16);
    UInt k = w.get(1).slice(31, 16);
    UInt n = w.get(2).lsbs(16);
    // gemm ppm=1 writes N INT8 codes a Y row, and may not accumulate
    Bool gemmPpm = w.get(2).slice(21, 21).eq(1);
    UInt xStride = w.get(6).lsbs(16).resize(32);
    UInt wStride = w.get(6).slice(31, 16).resize(32);
    Bool gemmShape = m.eq(0).or(m.gt(p.maxM())).or(k.eq(0)).or(k.gt(p.maxK())).or(n.eq(0)).or(n.gt(p.maxN()))
        .or(gemmPpm.and(w.get(2).slice(16, 16).eq(1)));
    if (p.ppmGate()) {
      // the gate is a PPM operand: gate=1 without ppm=1 is BAD_SHAPE (without ppmGate the decode's UNSUPPORTED)
      // and a gated GEMM's rows may not overlap (M > 1, yStride < N): its gates are read before the codes are written
      Bool gate = w.get(2).slice(24, 24).eq(1);
      gemmShape = gemmShape.or(gate.and(gemmPpm.not()))
          .or(gate.and(m.gt(1)).and(w.get(7).lt(n.resize(32))));
    }
    UInt[] kBytes = lineBytesOf(k);
    UInt[] nBytes = lineBytesOf(n);
    // the Y row's bytes (N INT8 codes with ppm=1, else N INT32) are a registered term of product 2
    Sum resultEnd = sum(spadLimit, products.get(2), w.get(5));
    // streamed W (word 2 bit 19): W is checked against the memory, not the scratchpad
    Bool wStream = w.get(2).slice(19, 19).eq(1);
    Bool wInt4 = w.get(2).slice(20, 20).eq(1).or(w.get(2).slice(22, 22).eq(1));
    // with xKeep, a gemm xKeep=1 reads no X: its x and xStride are not checked (NpuKeptX)
    Bool keptX = p.xKeep() ? NpuKeptX.flagOf(w.get(2)) : null;
    Bool gemmSpad = NpuKeptX.unlessKept(keptX, misaligned(w.get(3))).or(misaligned(w.get(5)))
        .or(NpuKeptX.unlessKept(keptX, misaligned(xStride)))
        .or(misaligned(w.get(7)))
        .or(wStream.not().and(misaligned(w.get(4)).or(misaligned(wStride))
            .or(sum(spadLimit, products.get(4), w.get(4), nBytes[0], nBytes[1]).exceeds())))
        .or(NpuKeptX.unlessKept(keptX, sum(spadLimit, products.get(3), w.get(3), kBytes[0], kBytes[1]).exceeds()))
        .or(resultEnd.exceeds());
    // a streamed row's bytes, N or ceil(N/2) (INT4), as two terms: N or floor(N/2), and N's low bit for INT4
    UInt streamRowBytes = mux(wInt4, n.shiftRight(1).resize(16), n);
    UInt streamRowOdd = mux(wInt4.and(n.lsbs(1).eq(1)), uintLit(1, 1), uintLit(0, 1));
    Bool gemmExt = wStream.and(misaligned(w.get(4)).or(misaligned(wStride))
        .or(sum(extLimit, products.get(9), w.get(4), streamRowBytes, streamRowOdd).exceeds()));

    // DSP copies: spad, spadStride, rowElems | rows, buffer row, format | shift
    UInt copyElems = w.get(3).lsbs(16);
    UInt copyRows = w.get(3).slice(31, 16);
    UInt format = w.get(5).lsbs(8);
    UInt shift = w.get(5).slice(15, 8);
    // shift is a signed byte; −24..15 is 0xE8..0xFF or 0x00..0x0F
    Bool shiftOk = shift.le(15).or(shift.ge(0xE8));
    Bool formatOk = mux(isDspIn, format.le(2).and(shiftOk), format.le(1));
    Bool copyShape = formatOk.not().or(copyRows.eq(0)).or(copyElems.eq(0));
    // the copy's row bytes (rowElems × 1, 2 or 4 by its format) are a registered term of product 5
    Sum copySpadEnd = sum(spadLimit, products.get(5), w.get(1));
    Bool copySpad = misaligned(w.get(1)).or(misaligned(w.get(2))).or(copySpadEnd.exceeds());
    int laneShift = Integer.numberOfTrailingZeros(p.dsp().lanes());
    // DSP row stride (word 6 bits 15:0): 0 packs the rows flat (dst·lanes + rows·rowElems); k ≥ 1 puts row r at
    // buffer row dst + r·k, so its last element is (dst + (rows − 1)·k)·lanes + rowElems (product 10 in rows, shifted
    // to elements), and its rows may not overlap (rows > 1 and rowElems > k·lanes) — both DSP_ADDRESS
    UInt copyStride = w.get(6).lsbs(16);
    Bool strided = copyStride.ne(0);
    Bool copyDspFlat = sum(dspLimit, products.get(6), w.get(4).shiftLeft(laneShift)).exceeds();
    Bool copyDspStrided = sum(dspLimit, toElements(products.get(10), laneShift), w.get(4).shiftLeft(laneShift),
        copyElems).exceeds();
    Bool copyOverlap = copyRows.gt(1).and(copyElems.resize(16 + laneShift)
        .gt(copyStride.resize(16 + laneShift).shiftLeft(laneShift).resize(16 + laneShift)));
    Bool copyDsp = mux(strided, copyDspStrided.or(copyOverlap), copyDspFlat);

    // dsptab ext; dsprun prog, words; snapshot ext
    Bool tabExt = misaligned(w.get(1)).or(sum(extLimit, null, w.get(1), uintLit(768, 10)).exceeds());
    UInt words = w.get(2);
    Bool runExt = misaligned(w.get(1)).or(sum(extLimit, null, w.get(1), words.shiftLeft(3)).exceeds());
    Bool snapExt = misaligned(w.get(1))
        .or(sum(extLimit, null, w.get(1), uintLit(snapshotBytes, bitsToHold(snapshotBytes))).exceeds());

    // ppmcfg: ext, channels; pputab: ext; ppm: src, srcStride, dst, dstStride, M | N
    UInt channels = w.get(2);
    UInt ppmM = w.get(5).lsbs(16);
    UInt ppmN = w.get(5).slice(31, 16);
    UInt cfgEnd = channels.resize(33).add(w.get(3).resize(33));
    Bool ppmShape = isPpmCfg.and(channels.eq(0).or(cfgEnd.gt(p.ppmChannels())).or(w.get(4).gt(1)))
        .or(isPpm.and(ppmM.eq(0).or(ppmN.eq(0)).or(ppmN.gt(p.rows())))).or(isGemm.and(w.get(2).slice(18, 17).eq(3)));
    Bool ppmSpad = isPpm.and(misaligned(w.get(1)).or(misaligned(w.get(2))).or(misaligned(w.get(3)))
        .or(misaligned(w.get(4)))
        .or(sum(spadLimit, products.get(7), w.get(1), ppmN.shiftLeft(2)).exceeds())
        .or(sum(spadLimit, products.get(8), w.get(3), ppmN).exceeds()));
    UInt cfgBytes = channels.lsbs(17).shiftLeft(4);
    Bool ppmExt = isPpmCfg.and(misaligned(w.get(1)).or(sum(extLimit, null, w.get(1), cfgBytes).exceeds()))
        .or(isPpuTab.and(misaligned(w.get(1))
            .or(sum(extLimit, null, w.get(1), uintLit(2L * lutEntries, bitsToHold(2L * lutEntries))).exceeds())));

    Bool badShape = isDma.and(dmaShape).or(isLoadMx.and(w.get(7).gt(MxLoad.LAST)))
        .or(isGemm.and(gemmShape.or(wInt4.and(wStream.not()))
            .or(w.get(2).slice(22, 22).eq(1).and(w.get(2).slice(20, 20).eq(1)
                .or(k.gt(org.llmnpu.isa.StreamedWeights.MAX_GROUP_SCALED_K))))))
        .or(isCopy.and(copyShape)).or(isDspLd.and(words.eq(0))).or(ppmShape);
    Bool badSpad = isDma.and(dmaSpad).or(isGemm.and(gemmSpad)).or(isCopy.and(copySpad)).or(ppmSpad);
    // dsprun: words beyond the program memory, entry (word 3) beyond it; dspld: at + words beyond it, at not a
    // multiple of a line's words
    int depth = p.dsp().programDepth();
    int lineWords = NpuDsp.programWords(p.lineBytes());
    UInt at = w.get(3);
    Bool loadRange = at.resize(33).add(words.resize(33)).gt(depth)
        .or(lineWords > 1 ? at.lsbs(Integer.numberOfTrailingZeros(lineWords)).ne(0) : boolLit(false));
    Bool badDsp = isCopy.and(copyDsp).or(isDspRun.and(words.gt(depth).or(at.gt(depth - 1))))
        .or(isDspLd.and(loadRange));
    Bool badExt = isDma.and(dmaExt).or(isGemm.and(gemmExt)).or(isDspTab.and(tabExt))
        .or(isDspRun.and(words.ne(0)).or(isDspLd).and(runExt)).or(isSnapshot.and(snapExt))
        .or(ppmExt);
    bits.set(cat(wire("copySpadEnd", copySpadEnd.stored(endBits)), wire("resultEnd", resultEnd.stored(endBits)),
        wire("dmaSpadEnd", dmaSpadEnd.stored(endBits)),
        badExt, badDsp, badSpad, badShape).asUInt());
  }

  private Bool misaligned(UInt v) {
    return v.lsbs(lineShift).ne(0);
  }

  /**
   * Product 9 with a streamed group-scaled INT4 W's multiplier rows added: {@code (K − 1 + 2·ceil(K/32))·wStride}
   * as product 9's terms of {@code (K − 1)·wStride} and those of {@code 2·(K >> 5)·wStride} (K's bits wired, no
   * adder before the multipliers) and, when {@code K mod 32 ≠ 0}, {@code 2·wStride} — all registered, each below
   * {@code 2^(e+1)} or flagged (a larger one alone exceeds the limit), so the sum stays exact.
   */
  private Product groupScaledRows(Product rows, List<UInt> w, UInt k, Bool nmStream, long ext) {
    int e = bitsToHold(ext);
    Bool groupScaled = w.get(2).slice(22, 22).eq(1).and(nmStream.not());
    UInt y = w.get(6).slice(31, 16);
    int yBits = Math.min(e, 16);
    UInt groups = wire("groupScaledRows", mux(groupScaled, cat(k.slice(15, 5), uintLit(0, 1)).asUInt(), uintLit(0, 12)));
    Bool partialGroup = groupScaled.and(k.lsbs(5).orR());
    Bool over = 16 > e ? groups.orR().or(partialGroup).and(y.msbs(16 - e).orR()) : boolLit(false);
    List<UInt> terms = new ArrayList<>(rows.terms());
    for (int xb = 0; xb < 12; xb += 8) {
      for (int yb = 0; yb < yBits; yb += PIECE) {
        UInt piece = y.slice(Math.min(yBits, yb + PIECE) - 1, yb);
        terms.add(reg0Next("product9g_x" + xb + "_y" + yb, groups.slice(Math.min(12, xb + 8) - 1, xb).mul(piece))
            .shiftLeft(xb + yb));
      }
    }
    terms.add(reg0Next("product9g_partial", wire("groupScaledPartial", mux(partialGroup, y.lsbs(yBits),
        uintLit(0, yBits)))).shiftLeft(1));
    return new Product(rows.over().or(reg0Next("product9g_over", over)), terms, rows.minus());
  }

  /**
   * The products of the operand sums, computed from the arriving command's words and registered: 0 DMA
   * (rows − 1)·spadStride, 1 DMA (rows − 1)·extStride, 2 GEMM (M − 1)·resultStride, 3 (M − 1)·xStride,
   * 4 (W rows − 1)·wStride, 5 copy (rows − 1)·spadStride, 6 copy rows·rowElems, 7 PPM (M − 1)·srcStride,
   * 8 (M − 1)·dstStride, 9 streamed W (rows − 1)·wStride, 10 copy (rows − 1)·DSP row stride (in DSP rows); each
   * against the limit of its check (scratchpad, memory, DSP buffer elements, DSP rows). A factor
   * {@code (x − 1)} is formed as {@code x·y − y} (no decrement before the multiply; {@code y} from the landed
   * words): x ≥ 1 whenever the check matters (x = 0 is a bad shape, which DECODE reports first). Products 2 and 5
   * carry one more registered term, the row's bytes of their end (the Y row: N, or 4·N without ppm=1; the copy's
   * scratchpad row: rowElems × 2, 1 or 4 by its format FP16, INT8, INT32), so those ends' sums start from registers.
   */
  private List<Product> products(MachineParams p, List<UInt> w, List<UInt> landed, long spad, long ext, long dsp) {
    UInt rows = w.get(6).lsbs(16);
    UInt m = w.get(1).lsbs(16);
    UInt k = w.get(1).slice(31, 16);
    int mode = p.sparsity();
    int groupShift = mode == Command.S2_4 ? 2 : 3;
    UInt valueRows = k.resize(17).add((1 << groupShift) - 1).shiftRight(groupShift)
        .shiftLeft(groupShift - 1).resize(16);
    UInt wRows = mode == Command.DENSE ? k : wire("wRows",
        mux(w.get(2).slice(18, 17).eq(mode), valueRows.shiftLeft(1).resize(16), k));
    UInt copyRows = w.get(3).slice(31, 16);
    UInt ppmM = w.get(5).lsbs(16);
    // a streamed N:M W: S value rows and ceil(S/P) packed metadata rows
    int fieldShift = mode == Command.S2_4 ? 2 : 1;
    // (a streamed group-scaled INT4 W has K + 2·ceil(K/32) rows: its 2·ceil(K/32) are groupScaledRows' terms)
    Bool nmStream = mode == Command.DENSE ? boolLit(false) : w.get(2).slice(18, 17).eq(mode);
    UInt streamRows = mode == Command.DENSE ? k : wire("streamRows", mux(nmStream,
        valueRows.add(valueRows.resize(17).add((1 << fieldShift) - 1).shiftRight(fieldShift).resize(16)).resize(16),
        k));
    List<UInt> xs = List.of(rows, rows, m, m, wRows, copyRows, copyRows, ppmM, ppmM, streamRows, copyRows);
    int[] yWord = {4, 2, 7, 6, 6, 2, 3, 2, 4, 6, 6};
    int[] yLow = {0, 0, 0, 0, 16, 0, 0, 0, 0, 16, 0};
    int[] yWidth = {32, 32, 32, 16, 16, 32, 16, 32, 32, 16, 16};
    long[] limits = {spad, ext, spad, spad, spad, spad, dsp, spad, spad, ext, p.dsp().rows()};
    List<Product> out = new ArrayList<>();
    for (int i = 0; i < xs.size(); i++) {
      int e = bitsToHold(limits[i]);
      boolean lessOne = i != 6;
      UInt x = xs.get(i);
      UInt y = w.get(yWord[i]).slice(yLow[i] + yWidth[i] - 1, yLow[i]);
      int yBits = Math.min(e, yWidth[i]);
      Bool xCounts = lessOne ? x.msbs(15).orR() : x.orR();
      Bool over = yWidth[i] > e ? xCounts.and(y.msbs(yWidth[i] - e).orR()) : boolLit(false);
      List<UInt> terms = new ArrayList<>();
      for (int xb = 0; xb < 16; xb += 8) {
        for (int yb = 0; yb < yBits; yb += PIECE) {
          UInt piece = y.slice(Math.min(yBits, yb + PIECE) - 1, yb);
          String name = "product" + i + "_x" + xb + "_y" + yb;
          terms.add(reg0Next(name, x.slice(xb + 7, xb).mul(piece)).shiftLeft(xb + yb));
        }
      }
      UInt minus = lessOne ? landed.get(yWord[i]).slice(yLow[i] + yBits - 1, yLow[i]) : null;
      out.add(new Product(reg0Next("product" + i + "_over", over), terms, minus));
    }
    out.set(9, groupScaledRows(out.get(9), w, k, nmStream, ext));
    // the row bytes of the two ends the store scoreboard reads, selected here so their sums start from registers
    UInt n = w.get(2).lsbs(16);
    out.set(2, withTerm(out.get(2), reg0Next("product2_yBytes",
        mux(w.get(2).slice(21, 21).eq(1), n.resize(18), n.shiftLeft(2)))));
    UInt elems = w.get(3).lsbs(16);
    UInt format = w.get(5).lsbs(8);
    out.set(5, withTerm(out.get(5), reg0Next("product5_rowBytes", mux(format.eq(2), elems.shiftLeft(2),
        mux(format.eq(1), elems.resize(18), elems.shiftLeft(1).resize(18))))));
    return out;
  }

  /** A register reset to 0 that takes {@code value} every cycle. */
  @SuppressWarnings("unchecked")
  private <T extends HwValue> T reg0Next(String name, T value) {
    T r = regInit(name, (T) value.copyType(), 0);
    r.set(value);
    return r;
  }

  /** Synthesized inside the NPU's top: its paths continue through the fetch. */
  @Override
  public boolean flattenInSynthesis() {
    return true;
  }

  @Override
  public String moduleName() {
    return "NpuPredecode_l" + p.lineBytes() + "_s" + p.spadBytes() / 1024 + "k_e" + p.extMemBytes() / (1024 * 1024)
        + "m_M" + p.maxM() + "_K" + p.maxK() + "_N" + p.maxN() + "_d" + p.dsp().elements() + "p"
        + p.dsp().programDepth() + (ppu ? "" : "_noppu") + (p.ppmGate() ? "_gate" : "")
        + (p.sparsity() == Command.DENSE ? "" : "_nm" + p.sparsity()) + (p.xKeep() ? "_xkeep" : "");
  }

  /**
   * {@code ceil(v / line)·line} for a 16-bit v as two terms of a sum, without an adder before it: v with its low
   * {@code log2 line} bits cleared, and {@code line} when those bits are not all zero.
   */
  private UInt[] lineBytesOf(UInt v) {
    UInt whole = lineShift == 0 ? v : cat(v.msbs(16 - lineShift), uintLit(0, lineShift)).asUInt();
    UInt part = lineShift == 0 ? uintLit(0, 1)
        : mux(v.lsbs(lineShift).ne(0), uintLit(1L << lineShift, lineShift + 1), uintLit(0, lineShift + 1));
    return new UInt[] {whole, part};
  }
}
