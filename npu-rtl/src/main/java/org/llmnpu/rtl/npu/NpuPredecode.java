package org.llmnpu.rtl.npu;

import static org.llmnpu.hdl.Hw.cat;
import static org.llmnpu.hdl.Hw.mux;
import static org.llmnpu.hdl.Hw.uint;
import static org.llmnpu.hdl.Hw.uintLit;

import java.util.List;
import org.llmnpu.hdl.Bool;
import org.llmnpu.hdl.UInt;
import org.llmnpu.isa.Command;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.isa.MxLoad;
import org.llmnpu.isa.Opcode;

/**
 * The range checks of DECODE, computed while a command lands instead of in DECODE. The checks that depend only
 * on the command's 32 bytes — shape, scratchpad range and alignment, DSP buffer range, memory range and
 * alignment, of {@code IsaSimulator} (and the operand sums {@code base + (rows − 1)·stride + bytes} with their
 * 16×32-bit products) — are stored with the command ({@link #WIDTH} bits beside each queue slot and beside the
 * command register); DECODE reads them from those registers. They take two cycles: in the cycle the command's
 * last beat arrives the products are computed from the arriving words and registered ({@code predecode_product*});
 * in the next cycle, while the command sits in {@link NpuFetch}'s landing register, the sums and comparisons are
 * computed from the landed words and those products. So neither the products nor the 52-bit sums sit between the
 * memory's response and a register, or between the command register and the controller's decisions (halt or
 * dispatch, the store scoreboard). Cycles: a command lands one cycle after its last beat arrives
 * ({@code CycleModel}, "Command fetch").
 *
 * <p>Layout of {@link #bits}: bit 0 a bad shape (BAD_SHAPE), 1 a bad scratchpad range (SPAD_ADDRESS), 2 a bad
 * DSP buffer range or program length (DSP_ADDRESS), 3 a bad memory range (EXT_ADDRESS) — each already limited
 * to the commands it belongs to — then the DMA's scratchpad end (52 bits, for the store scoreboard) and the
 * GEMM's result end (52 bits). The opcode checks (undefined, unsupported) stay in DECODE: they are small, and
 * {@code ppm}'s depends on the PPU table's state.
 */
final class NpuPredecode {
  private static final int WIDE = 52;
  /** Bits stored per command. */
  static final int WIDTH = 4 + 2 * WIDE;
  static final int SHAPE = 0;
  static final int SPAD = 1;
  static final int DSP = 2;
  static final int EXT = 3;
  static final int DMA_SPAD_END = 4;
  static final int RESULT_END = 4 + WIDE;
  /** The checks and ends of the command of {@code w}, laid out as above. */
  final UInt bits;
  private final int lineShift;

  /**
   * The checks of the command whose words are {@code w} (registers: the landed command), with the products
   * registered from {@code arriving} (the same command's words one cycle earlier).
   */
  NpuPredecode(Npu npu, MachineParams p, List<UInt> arriving, List<UInt> w, int snapshotBytes, int lutEntries) {
    int line = p.lineBytes();
    lineShift = Integer.numberOfTrailingZeros(line);
    List<UInt> products = products(npu, p, arriving);
    UInt op = w.get(0).lsbs(8);
    Bool isLoad4 = op.eq(Opcode.LOAD4.code());
    Bool isLoadMx = op.eq(Opcode.LOADMX.code());
    Bool isDma = op.eq(Opcode.LOAD.code()).or(op.eq(Opcode.STORE.code())).or(isLoad4).or(isLoadMx);
    Bool isGemm = op.eq(Opcode.GEMM.code());
    Bool isDspIn = op.eq(Opcode.DSPIN.code());
    Bool isCopy = isDspIn.or(op.eq(Opcode.DSPOUT.code()));
    Bool isDspTab = op.eq(Opcode.DSPTAB.code());
    Bool isDspRun = op.eq(Opcode.DSPRUN.code());
    Bool isSnapshot = op.eq(Opcode.SNAPSHOT.code());
    Bool isPpmCfg = op.eq(Opcode.PPMCFG.code());
    Bool isPpuTab = op.eq(Opcode.PPUTAB.code());
    Bool isPpm = op.eq(Opcode.PPM.code());
    UInt spadLimit = uintLit(p.spadBytes(), WIDE);
    UInt extLimit = uintLit(p.extMemBytes(), WIDE);

    // DMA: ext, extStride, spad, spadStride, rowBytes, rows
    UInt rows = w.get(6);
    UInt rowBytes = w.get(5);
    Bool dmaShape = rows.eq(0).or(rows.slice(31, 16).ne(0)).or(rowBytes.eq(0)).or(rowBytes.slice(31, 16).ne(0));
    UInt dmaSpadEnd = npu.wireOf("predecode_dmaSpadEnd", end(w.get(3), products.get(0), rowBytes.lsbs(16)));
    // load4: the scratchpad rows are twice the source rows
    UInt load4SpadEnd = end(w.get(3), products.get(0), rowBytes.lsbs(16).resize(17).shiftLeft(1).resize(17));
    Bool dmaSpad = misaligned(w.get(3)).or(misaligned(w.get(4))).or(dmaSpadEnd.gt(spadLimit))
        .or(isLoad4.and(load4SpadEnd.gt(spadLimit)));
    Bool dmaExt = misaligned(w.get(1)).or(misaligned(w.get(2)))
        .or(end(w.get(1), products.get(1), rowBytes.lsbs(16)).gt(extLimit));

    // GEMM
    UInt m = w.get(1).lsbs(16);
    UInt k = w.get(1).slice(31, 16);
    UInt n = w.get(2).lsbs(16);
    UInt xStride = w.get(6).lsbs(16).resize(32);
    UInt wStride = w.get(6).slice(31, 16).resize(32);
    Bool gemmShape = m.eq(0).or(m.gt(p.maxM())).or(k.eq(0)).or(k.gt(p.maxK())).or(n.eq(0)).or(n.gt(p.maxN()));
    UInt kBytes = roundUpLines(k, line).resize(16 + lineShift).shiftLeft(lineShift).resize(16 + lineShift);
    UInt nBytes = roundUpLines(n, line).resize(16 + lineShift).shiftLeft(lineShift).resize(16 + lineShift);
    UInt yBytes = n.resize(18).shiftLeft(2).resize(18);
    UInt resultEnd = npu.wireOf("predecode_resultEnd", end(w.get(5), products.get(2), yBytes));
    Bool gemmSpad = misaligned(w.get(3)).or(misaligned(w.get(4))).or(misaligned(w.get(5))).or(misaligned(xStride))
        .or(misaligned(wStride)).or(misaligned(w.get(7)))
        .or(end(w.get(3), products.get(3), kBytes).gt(spadLimit))
        .or(end(w.get(4), products.get(4), nBytes).gt(spadLimit))
        .or(resultEnd.gt(spadLimit));

    // DSP copies: spad, spadStride, rowElems | rows, buffer row, format | shift
    UInt copyElems = w.get(3).lsbs(16);
    UInt copyRows = w.get(3).slice(31, 16);
    UInt format = w.get(5).lsbs(8);
    UInt shift = w.get(5).slice(15, 8);
    // shift is a signed byte; −24..15 is 0xE8..0xFF or 0x00..0x0F
    Bool shiftOk = shift.le(15).or(shift.ge(0xE8));
    Bool formatOk = mux(isDspIn, format.le(2).and(shiftOk), format.le(1));
    Bool copyShape = formatOk.not().or(copyRows.eq(0)).or(copyElems.eq(0));
    UInt copyRowBytes = mux(format.eq(2), copyElems.resize(19).shiftLeft(2).resize(19), mux(format.eq(1),
        copyElems.resize(19), copyElems.resize(19).shiftLeft(1).resize(19)));
    Bool copySpad = misaligned(w.get(1)).or(misaligned(w.get(2)))
        .or(end(w.get(1), products.get(5), copyRowBytes).gt(spadLimit));
    int laneShift = Integer.numberOfTrailingZeros(p.dsp().lanes());
    UInt firstElement = w.get(4).resize(WIDE).shiftLeft(laneShift).resize(WIDE);
    Bool copyDsp = firstElement.add(products.get(6).resize(WIDE)).gt(uintLit(p.dsp().elements(), WIDE));

    // dsptab ext; dsprun prog, words; snapshot ext
    Bool tabExt = misaligned(w.get(1)).or(w.get(1).resize(WIDE).add(uintLit(768, WIDE)).gt(extLimit));
    UInt words = w.get(2);
    Bool runExt = misaligned(w.get(1)).or(w.get(1).resize(WIDE).add(words.resize(WIDE).shiftLeft(3).resize(WIDE))
        .gt(extLimit));
    Bool snapExt = misaligned(w.get(1)).or(w.get(1).resize(WIDE).add(uintLit(snapshotBytes, WIDE)).gt(extLimit));

    // ppmcfg: ext, channels; pputab: ext; ppm: src, srcStride, dst, dstStride, M | N
    UInt channels = w.get(2);
    UInt ppmM = w.get(5).lsbs(16);
    UInt ppmN = w.get(5).slice(31, 16);
    Bool ppmShape = isPpmCfg.and(channels.eq(0).or(channels.gt(p.rows())))
        .or(isPpm.and(ppmM.eq(0).or(ppmN.eq(0)).or(ppmN.gt(p.rows())))).or(isGemm.and(w.get(2).slice(18, 17).eq(3)));
    Bool ppmSpad = isPpm.and(misaligned(w.get(1)).or(misaligned(w.get(2))).or(misaligned(w.get(3)))
        .or(misaligned(w.get(4)))
        .or(end(w.get(1), products.get(7), ppmN.resize(18).shiftLeft(2).resize(18)).gt(spadLimit))
        .or(end(w.get(3), products.get(8), ppmN).gt(spadLimit)));
    UInt cfgBytes = channels.lsbs(16).resize(WIDE).shiftLeft(4).resize(WIDE);
    Bool ppmExt = isPpmCfg.and(misaligned(w.get(1)).or(w.get(1).resize(WIDE).add(cfgBytes).gt(extLimit)))
        .or(isPpuTab.and(misaligned(w.get(1))
            .or(w.get(1).resize(WIDE).add(uintLit(2L * lutEntries, WIDE)).gt(extLimit))));

    Bool badShape = isDma.and(dmaShape).or(isLoadMx.and(w.get(7).gt(MxLoad.LAST))).or(isGemm.and(gemmShape))
        .or(isCopy.and(copyShape)).or(isDspRun.and(words.eq(0))).or(ppmShape);
    Bool badSpad = isDma.and(dmaSpad).or(isGemm.and(gemmSpad)).or(isCopy.and(copySpad)).or(ppmSpad);
    Bool badDsp = isCopy.and(copyDsp).or(isDspRun.and(words.gt(p.dsp().programDepth())));
    Bool badExt = isDma.and(dmaExt).or(isDspTab.and(tabExt)).or(isDspRun.and(runExt)).or(isSnapshot.and(snapExt))
        .or(ppmExt);
    bits = npu.wireOf("predecode", cat(resultEnd, dmaSpadEnd, badExt, badDsp, badSpad, badShape).asUInt());
  }

  private Bool misaligned(UInt v) {
    return v.lsbs(lineShift).ne(0);
  }

  /** {@code base + count·stride + tail} in 52 bits. */
  /** {@code base + product + tail} in 52 bits ({@code product}: a registered {@code count·stride}). */
  private static UInt end(UInt base, UInt product, UInt tail) {
    return base.resize(WIDE).add(product.resize(WIDE)).add(tail.resize(WIDE));
  }

  /**
   * The products of the operand sums, computed from the arriving command's words and registered: 0 DMA
   * (rows − 1)·spadStride, 1 DMA (rows − 1)·extStride, 2 GEMM (M − 1)·resultStride, 3 (M − 1)·xStride,
   * 4 (W rows − 1)·wStride, 5 copy (rows − 1)·spadStride, 6 copy rows·rowElems, 7 PPM (M − 1)·srcStride,
   * 8 (M − 1)·dstStride.
   */
  private static List<UInt> products(Npu npu, MachineParams p, List<UInt> w) {
    UInt rowsLess1 = npu.wireOf("predecode_rowsLess1", w.get(6).lsbs(16).sub(1));
    UInt m = w.get(1).lsbs(16);
    UInt k = w.get(1).slice(31, 16);
    UInt mLess1 = npu.wireOf("predecode_mLess1", m.sub(1));
    int mode = p.sparsity();
    int groupShift = mode == Command.S2_4 ? 2 : 3;
    UInt valueRows = k.resize(17).add((1 << groupShift) - 1).shiftRight(groupShift)
        .shiftLeft(groupShift - 1).resize(16);
    UInt wRows = mode == Command.DENSE ? k
        : mux(w.get(2).slice(18, 17).eq(mode), valueRows.shiftLeft(1).resize(16), k);
    UInt copyRows = w.get(3).slice(31, 16);
    UInt ppmLess1 = npu.wireOf("predecode_ppmMLess1", w.get(5).lsbs(16).sub(1));
    List<UInt> raw = List.of(rowsLess1.mul(w.get(4)), rowsLess1.mul(w.get(2)), mLess1.mul(w.get(7)),
        mLess1.mul(w.get(6).lsbs(16).resize(32)),
        npu.wireOf("predecode_wRowsLess1", wRows.sub(1)).mul(w.get(6).slice(31, 16).resize(32)),
        npu.wireOf("predecode_copyRowsLess1", copyRows.sub(1)).mul(w.get(2)), copyRows.mul(w.get(3).lsbs(16)),
        ppmLess1.mul(w.get(2)), ppmLess1.mul(w.get(4)));
    List<UInt> out = new java.util.ArrayList<>();
    for (int i = 0; i < raw.size(); i++) {
      UInt r = npu.reg0("predecode_product" + i, uint(raw.get(i).width()));
      r.set(raw.get(i));
      out.add(r);
    }
    return out;
  }

  /** {@code ceil(v / line)} for a 16-bit v. */
  private UInt roundUpLines(UInt v, int line) {
    return v.resize(17).add(line - 1).shiftRight(lineShift).resize(16);
  }
}
