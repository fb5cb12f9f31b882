package org.llmnpu.isa;

import java.util.List;
import java.util.Optional;

/** Turns a {@link Program} back into {@code .npu} text that {@link Assembler} reads to the same words. */
public final class Disassembler {
  private Disassembler() {
  }

  public static String disassemble(Program program) {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < program.size(); i++) {
      b.append(line(program.words(i))).append('\n');
    }
    return b.toString();
  }

  /** One command as text; words that are not a valid encoding come out as {@code .raw}. */
  public static String line(int[] words) {
    Optional<Command> c = CommandCodec.decode(words);
    if (c.isEmpty() || !java.util.Arrays.equals(CommandCodec.encode(c.get()), words)) {
      StringBuilder b = new StringBuilder(".raw");
      for (int w : words) {
        b.append(" 0x").append(Integer.toHexString(w));
      }
      return b.toString();
    }
    Command cmd = c.get();
    List<String> names = Assembler.OPERANDS.get(cmd.opcode());
    long[] v = values(cmd);
    StringBuilder b = new StringBuilder(cmd.opcode().mnemonic());
    for (int i = 0; i < names.size(); i++) {
      b.append(' ').append(names.get(i)).append('=').append(v[i] >= 256 ? "0x" + Long.toHexString(v[i]) : v[i]);
    }
    if (cmd instanceof Command.Gemm g && g.sparsity() != Command.DENSE) {
      b.append(" sparsity=").append(g.sparsity());
    }
    if (cmd instanceof Command.Gemm g && g.accumulates()) {
      b.append(" accumulate=1");
    }
    return b.toString();
  }

  private static long[] values(Command c) {
    if (c instanceof Command.Load l) {
      return new long[] {l.ext(), l.extStride(), l.spad(), l.spadStride(), l.rowBytes(), l.rows()};
    } else if (c instanceof Command.Store s) {
      return new long[] {s.ext(), s.extStride(), s.spad(), s.spadStride(), s.rowBytes(), s.rows()};
    } else if (c instanceof Command.Load4 l) {
      return new long[] {l.ext(), l.extStride(), l.spad(), l.spadStride(), l.rowBytes(), l.rows()};
    } else if (c instanceof Command.LoadMx l) {
      return new long[] {l.ext(), l.extStride(), l.spad(), l.spadStride(), l.rowBytes(), l.rows(), l.format()};
    } else if (c instanceof Command.DspTab t) {
      return new long[] {t.ext()};
    } else if (c instanceof Command.DspIn d) {
      return new long[] {d.spad(), d.spadStride(), d.rowElems(), d.rows(), d.dst(), d.format(), d.shift()};
    } else if (c instanceof Command.DspOut d) {
      return new long[] {d.spad(), d.spadStride(), d.rowElems(), d.rows(), d.src(), d.format()};
    } else if (c instanceof Command.DspRun r) {
      return new long[] {r.prog(), r.words()};
    } else if (c instanceof Command.Snapshot sn) {
      return new long[] {sn.ext()};
    } else if (c instanceof Command.PpmCfg pc) {
      return new long[] {pc.ext(), pc.channels()};
    } else if (c instanceof Command.PpuTab t) {
      return new long[] {t.ext()};
    } else if (c instanceof Command.Ppm q) {
      return new long[] {q.src(), q.srcStride(), q.dst(), q.dstStride(), q.m(), q.n()};
    } else if (c instanceof Command.Gemm g) {
      return new long[] {g.m(), g.k(), g.n(), g.x(), g.xStride(), g.w(), g.wStride(), g.y(), g.yStride()};
    }
    return new long[0];
  }
}
