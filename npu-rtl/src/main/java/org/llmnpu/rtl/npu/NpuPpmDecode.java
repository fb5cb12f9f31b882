package org.llmnpu.rtl.npu;

import static org.llmnpu.hdl.Hw.uintLit;

import java.util.List;
import org.llmnpu.hdl.Bool;
import org.llmnpu.hdl.UInt;
import org.llmnpu.isa.Command;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.isa.Opcode;

/**
 * The DECODE of {@code ppmcfg}, {@code pputab} and {@code ppm}, and of the GEMM's sparsity field, as
 * {@code org.llmnpu.isa.IsaSimulator} makes it: {@link #unsupported} ({@code pputab} without the PPU,
 * {@code ppm} or {@code gemm ppm=1} on a PPU before any {@code pputab}, a 2:4 or 4:8 GEMM whose mode is not the array's,
 * a {@code gemm gate=1} on an NPU without the PPM's gate operand, {@code ppmGate}; with it a gated GEMM needs no
 * table), and the
 * operands the controller latches. Their shape, scratchpad and memory range checks are computed when the
 * command arrives ({@link NpuPredecode}).
 */
final class NpuPpmDecode {
  final Bool isPpmCfg;
  final Bool isPpuTab;
  final Bool isPpm;
  final Bool defined;
  final Bool unsupported;
  /** Memory beats of a {@code ppmcfg} or {@code pputab}. */
  final UInt loadBeats;
  /** Items of a {@code ppmcfg} (channels) or {@code pputab} (C-LUT entries). */
  final UInt items;
  /** {@code ppm}: rows M, lanes N, lines per source row R = ceil(4N / line). */
  final UInt m;
  final UInt n;
  final UInt linesPerRow;
  /** {@code ppmcfg}: the parameter bank it writes (word 4; above 1 fails BAD_SHAPE, {@link NpuPredecode}). */
  final Bool cfgBank;
  /**
   * A {@code ppmcfg} that writes a bank the last dispatched GEMM's PPM does not read: it goes beside the back-end
   * ({@link NpuControl}); one of the bank that PPM reads waits for it. From registers
   * ({@link NpuFetch#registeredFlag}), off the dispatch decision's path from the command register: the back-end's
   * bank registers change only at a GEMM's dispatch, after which the controller is in GEMM_X, never in DECODE.
   */
  final Bool cfgBeside;

  NpuPpmDecode(NpuController npu, MachineParams p, List<UInt> w, Bool isGemm, Bool tableLoaded, int tableEntries, int itemBits) {
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
    Bool gemmPpm = isGemm.and(w.get(2).slice(21, 21).eq(1));
    // gemm gate=1 (word 2 bit 24, the SwiGLU gate through the PPM): the golden's UNSUPPORTED without ppmGate; from a
    // register computed a cycle early (NpuFetch#registeredFlag), off the decode's paths
    Bool gated = npu.fetch.registeredFlag("decode_gemmGated", c -> c.lsbs(8).eq(Opcode.GEMM.code())
        .and(c.slice(2 * 32 + 24, 2 * 32 + 24).eq(1)));
    if (p.ppmGate()) {
      // with the gate operand a gated GEMM needs no table (the PPU is bypassed)
      Bool noTable = isPpm.or(gemmPpm.and(gated.not())).and(tableLoaded.not());
      unsupported = npu.wireOf("decode_unsupported", noTable.or(isGemm.and(sparse)));
    } else {
      Bool noTable = p.ppu() ? isPpm.or(gemmPpm).and(tableLoaded.not()) : isPpuTab;
      unsupported = npu.wireOf("decode_unsupported", noTable.or(isGemm.and(sparse)).or(gated));
    }

    UInt channels = w.get(2);
    m = npu.wireOf("decode_ppmM", w.get(5).lsbs(16));
    n = npu.wireOf("decode_ppmN", w.get(5).slice(31, 16));
    int tableBytes = 2 * tableEntries;
    UInt cfgBeats = channels.lsbs(itemBits).resize(itemBits + 6).shiftLeft(4).resize(itemBits + 6).add(line - 1)
        .shiftRight(lineShift).resize(16);
    loadBeats = npu.wireOf("decode_ppmBeats", org.llmnpu.hdl.Hw.mux(isPpuTab,
        uintLit((tableBytes + line - 1) / line, 16), cfgBeats));
    items = npu.wireOf("decode_ppmItems", org.llmnpu.hdl.Hw.mux(isPpuTab, uintLit(tableEntries, itemBits),
        channels.lsbs(itemBits)));
    cfgBank = npu.wireOf("decode_ppmCfgBank", w.get(4).lsbs(1).eq(1));
    Bool reads = npu.io(npu.back.ppmReads);
    Bool bank = npu.io(npu.back.ppmBank);
    cfgBeside = npu.fetch.registeredFlag("decode_ppmCfgBeside", c -> c.lsbs(8).eq(Opcode.PPMCFG.code())
        .and(reads.and(bank.eq(c.slice(128, 128).eq(1))).not()));
    linesPerRow = npu.wireOf("decode_ppmLines", n.resize(18).shiftLeft(2).resize(18).add(line - 1)
        .shiftRight(lineShift).resize(16));
  }
}
