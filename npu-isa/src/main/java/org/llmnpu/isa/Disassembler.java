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
    return c.get().accept(new Text());
  }

  /** A command as its mnemonic and operands ({@code name=value}, hexadecimal from 256), in the assembler's order. */
  private static final class Text implements Command.Visitor<String> {
    private static String line(Command c, long... v) {
      List<String> names = Assembler.OPERANDS.get(c.opcode());
      StringBuilder b = new StringBuilder(c.opcode().mnemonic());
      for (int i = 0; i < names.size(); i++) {
        b.append(' ').append(names.get(i)).append('=').append(v[i] >= 256 ? "0x" + Long.toHexString(v[i]) : v[i]);
      }
      return b.toString();
    }

    @Override
    public String visitLoad(Command.Load l) {
      return line(l, l.ext(), l.extStride(), l.spad(), l.spadStride(), l.rowBytes(), l.rows());
    }

    @Override
    public String visitStore(Command.Store s) {
      return line(s, s.ext(), s.extStride(), s.spad(), s.spadStride(), s.rowBytes(), s.rows());
    }

    @Override
    public String visitLoad4(Command.Load4 l) {
      return line(l, l.ext(), l.extStride(), l.spad(), l.spadStride(), l.rowBytes(), l.rows());
    }

    @Override
    public String visitLoadMx(Command.LoadMx l) {
      return line(l, l.ext(), l.extStride(), l.spad(), l.spadStride(), l.rowBytes(), l.rows(), l.format());
    }

    @Override
    public String visitDspTab(Command.DspTab t) {
      return line(t, t.ext());
    }

    @Override
    public String visitDspIn(Command.DspIn d) {
      return line(d, d.spad(), d.spadStride(), d.rowElems(), d.rows(), d.dst(), d.format(), d.shift())
          + (d.dstStride() != 0 ? " dstStride=" + d.dstStride() : "");
    }

    @Override
    public String visitDspOut(Command.DspOut d) {
      return line(d, d.spad(), d.spadStride(), d.rowElems(), d.rows(), d.src(), d.format())
          + (d.srcStride() != 0 ? " srcStride=" + d.srcStride() : "");
    }

    @Override
    public String visitDspRun(Command.DspRun r) {
      org.llmnpu.isa.dsp.DspRunParameters q = r.parameters();
      return line(r, r.prog(), r.words()) + (r.entry() != 0 ? " entry=" + r.entry() : "")
          + (q.base0() != 0 ? " base0=" + q.base0() : "") + (q.base1() != 0 ? " base1=" + q.base1() : "")
          + (q.base2() != 0 ? " base2=" + q.base2() : "") + (q.base3() != 0 ? " base3=" + q.base3() : "")
          + (q.length() != 0 ? " len=" + q.word6() : "");
    }

    @Override
    public String visitDspLoad(Command.DspLoad l) {
      return line(l, l.prog(), l.words(), l.at());
    }

    @Override
    public String visitSnapshot(Command.Snapshot sn) {
      return line(sn, sn.ext());
    }

    @Override
    public String visitPpmCfg(Command.PpmCfg pc) {
      return line(pc, pc.ext(), pc.channels()) + (pc.first() != 0 || pc.bank() != 0 ? " first=" + pc.first() : "")
          + (pc.bank() != 0 ? " bank=" + pc.bank() : "");
    }

    @Override
    public String visitPpuTab(Command.PpuTab t) {
      return line(t, t.ext());
    }

    @Override
    public String visitPpm(Command.Ppm q) {
      return line(q, q.src(), q.srcStride(), q.dst(), q.dstStride(), q.m(), q.n());
    }

    @Override
    public String visitGemm(Command.Gemm g) {
      return line(g, g.m(), g.k(), g.n(), g.x(), g.xStride(), g.w(), g.wStride(), g.y(), g.yStride())
          + (g.sparsity() != Command.DENSE ? " sparsity=" + g.sparsity() : "") + (g.accumulates() ? " accumulate=1" : "")
          + (g.streamsWeights() ? " wStream=1" : "") + (g.int4Weights() ? " wInt4=" + g.wInt4() : "") + (g.throughPpm() ? " ppm=" + g.ppm() : "")
          + (g.gated() ? " gate=1" : "") + (g.keepsX() ? " xKeep=1" : "");
    }

    @Override
    public String visitFence(Command.Fence f) {
      return line(f);
    }

    @Override
    public String visitHalt(Command.Halt h) {
      return line(h);
    }
  }
}
