package org.llmnpu.rtl.npu;

import static org.llmnpu.hdl.Hw.uintLit;

import java.util.List;
import org.llmnpu.hdl.Bool;
import org.llmnpu.hdl.UInt;
import org.llmnpu.isa.Command;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.isa.Opcode;

/**
 * The DECODE checks of {@code ppmcfg}, {@code pputab} and {@code ppm}, and of the GEMM's sparsity field,
 * as {@code org.llmnpu.isa.IsaSimulator} makes them: {@link #unsupported} ({@code pputab} without the
 * PPU, {@code ppm} on a PPU before any {@code pputab}, a 2:4 or 4:8 GEMM whose mode is not the array's), then
 * shape, scratchpad and memory ranges; and the operands the controller latches.
 */
final class NpuPpmDecode {
  private static final int WIDE = 52;
  final Bool isPpmCfg;
  final Bool isPpuTab;
  final Bool isPpm;
  final Bool defined;
  final Bool unsupported;
  final Bool badShape;
  final Bool badSpad;
  final Bool badExt;
  /** Memory beats of a {@code ppmcfg} or {@code pputab}. */
  final UInt loadBeats;
  /** Items of a {@code ppmcfg} (channels) or {@code pputab} (C-LUT entries). */
  final UInt items;
  /** {@code ppm}: rows M, lanes N, lines per source row R = ceil(4N / line). */
  final UInt m;
  final UInt n;
  final UInt linesPerRow;

  NpuPpmDecode(Npu npu, MachineParams p, List<UInt> w, Bool isGemm, Bool tableLoaded, int tableEntries) {
    int line = p.lineBytes();
    int lineShift = Integer.numberOfTrailingZeros(line);
    UInt op = w.get(0).lsbs(8);
    isPpmCfg = npu.wireOf("decode_isPpmCfg", op.eq(Opcode.PPMCFG.code()));
    isPpuTab = npu.wireOf("decode_isPpuTab", op.eq(Opcode.PPUTAB.code()));
    isPpm = npu.wireOf("decode_isPpm", op.eq(Opcode.PPM.code()));
    defined = isPpmCfg.or(isPpuTab).or(isPpm);
    UInt sparsity = w.get(2).slice(18, 17);
    // an N:M mode other than the array's (a dense-built array: any N:M mode)
    Bool sparse = p.sparsity() == Command.S2_4 ? sparsity.eq(Command.S4_8)
        : p.sparsity() == Command.S4_8 ? sparsity.eq(Command.S2_4) : sparsity.eq(Command.S2_4).or(sparsity.eq(Command.S4_8));
    Bool noTable = p.ppu() ? isPpm.and(tableLoaded.not()) : isPpuTab;
    unsupported = npu.wireOf("decode_unsupported", noTable.or(isGemm.and(sparse)));

    UInt channels = w.get(2);
    m = npu.wireOf("decode_ppmM", w.get(5).lsbs(16));
    n = npu.wireOf("decode_ppmN", w.get(5).slice(31, 16));
    badShape = npu.wireOf("decode_ppmBadShape", isPpmCfg.and(channels.eq(0).or(channels.gt(p.rows())))
        .or(isPpm.and(m.eq(0).or(n.eq(0)).or(n.gt(p.rows())))).or(isGemm.and(sparsity.eq(3))));
    UInt mLess1 = m.sub(1);
    UInt srcEnd = end(w.get(1), mLess1, w.get(2), n.resize(18).shiftLeft(2).resize(18));
    UInt dstEnd = end(w.get(3), mLess1, w.get(4), n);
    UInt spadLimit = uintLit(p.spadBytes(), WIDE);
    badSpad = npu.wireOf("decode_ppmBadSpad", isPpm.and(misaligned(w.get(1), lineShift).or(misaligned(w.get(2), lineShift))
        .or(misaligned(w.get(3), lineShift)).or(misaligned(w.get(4), lineShift)).or(srcEnd.gt(spadLimit))
        .or(dstEnd.gt(spadLimit))));
    UInt extLimit = uintLit(p.extMemBytes(), WIDE);
    UInt cfgBytes = channels.lsbs(16).resize(WIDE).shiftLeft(4).resize(WIDE);
    int tableBytes = 2 * tableEntries;
    badExt = npu.wireOf("decode_ppmBadExt", isPpmCfg.and(misaligned(w.get(1), lineShift)
            .or(w.get(1).resize(WIDE).add(cfgBytes).gt(extLimit)))
        .or(isPpuTab.and(misaligned(w.get(1), lineShift)
            .or(w.get(1).resize(WIDE).add(uintLit(tableBytes, WIDE)).gt(extLimit)))));
    UInt cfgBeats = channels.lsbs(8).resize(16).shiftLeft(4).resize(16).add(line - 1).shiftRight(lineShift).resize(16);
    loadBeats = npu.wireOf("decode_ppmBeats", org.llmnpu.hdl.Hw.mux(isPpuTab,
        uintLit((tableBytes + line - 1) / line, 16), cfgBeats));
    items = npu.wireOf("decode_ppmItems", org.llmnpu.hdl.Hw.mux(isPpuTab, uintLit(tableEntries, 8),
        channels.lsbs(8)));
    linesPerRow = npu.wireOf("decode_ppmLines", n.resize(18).shiftLeft(2).resize(18).add(line - 1)
        .shiftRight(lineShift).resize(16));
  }

  private static Bool misaligned(UInt v, int lineShift) {
    return v.lsbs(lineShift).ne(0);
  }

  /** {@code base + count·stride + tail} in 52 bits. */
  private static UInt end(UInt base, UInt count, UInt stride, UInt tail) {
    return base.resize(WIDE).add(count.mul(stride).resize(WIDE)).add(tail.resize(WIDE));
  }
}
