package org.llmnpu.isa;

import java.util.Optional;

/**
 * Binary encoding of {@link Command}s: eight little-endian 32-bit words per command.
 *
 * <pre>
 * word  LOAD / STORE            GEMM
 *  0    opcode[7:0]             opcode[7:0]
 *  1    ext (bytes)             M[15:0] | K[31:16]
 *  2    extStride (bytes)       N[15:0] | accumulate[16] | sparsity[18:17] | wStream[19] | wInt4[20], [22]
 *                               | ppm[21], bank[23] | gate[24] | xKeep[25]
 *  3    spad (bytes)            x (scratchpad bytes)
 *  4    spadStride (bytes)      w
 *  5    rowBytes                y
 *  6    rows                    xStride[15:0] | wStride[31:16]
 *  7    0                       yStride
 *
 * word  LOAD4       DSPTAB   DSPIN                          DSPOUT                 DSPRUN   DSPLD  SNAPSHOT
 *  1    as LOAD     ext      spad                           spad                   prog     prog   ext
 *  2                         spadStride                     spadStride             words    words
 *  3                         rowElems[15:0] | rows[31:16]   rowElems | rows        entry    at
 *  4                         dst (DSP buffer row)           src (DSP buffer row)
 *  5                         format[7:0] | shift[15:8]      format[7:0]
 *                            (shift: signed 8 bits)
 *
 * word  LOADMX: words 1..6 as LOAD, word 7 format (0 E4M3, 1 E5M2, 2 INT8)
 *
 * word  PPMCFG     PPUTAB   PPM
 *  1    ext        ext      src (scratchpad bytes, INT32 rows)
 *  2    channels            srcStride
 *  3    first               dst (scratchpad bytes, INT8 rows)
 *  4                        dstStride
 *  5                        M[15:0] | N[31:16]
 * </pre>
 * Unused bits are zero. Encoding checks only that each value fits its field (naming the field);
 * whether addresses are aligned and inside memory is checked when the command executes, where a
 * violation halts the NPU with an {@link ErrorCause}.
 */
public final class CommandCodec {
  public static final int WORDS = Command.BYTES / 4;

  private CommandCodec() {
  }

  /**
   * The eight words of {@code c}.
   *
   * @throws IllegalArgumentException naming the field when a value does not fit it
   */
  public static int[] encode(Command c) {
    int[] w = new int[WORDS];
    w[0] = c.opcode().code();
    return c.accept(new Encoder(w));
  }

  /** Fills words 1..7 of one command (word 0, the opcode, is set) and returns them. */
  private static final class Encoder implements Command.Visitor<int[]> {
    private final int[] w;

    Encoder(int[] w) {
      this.w = w;
    }

    @Override
    public int[] visitLoad(Command.Load l) {
      return dma(w, l.ext(), l.extStride(), l.spad(), l.spadStride(), l.rowBytes(), l.rows(), "load");
    }

    @Override
    public int[] visitStore(Command.Store s) {
      return dma(w, s.ext(), s.extStride(), s.spad(), s.spadStride(), s.rowBytes(), s.rows(), "store");
    }

    @Override
    public int[] visitLoad4(Command.Load4 l) {
      return dma(w, l.ext(), l.extStride(), l.spad(), l.spadStride(), l.rowBytes(), l.rows(), "load4");
    }

    @Override
    public int[] visitLoadMx(Command.LoadMx l) {
      dma(w, l.ext(), l.extStride(), l.spad(), l.spadStride(), l.rowBytes(), l.rows(), "loadmx");
      w[7] = (int) field(l.format(), 32, "loadmx format");
      return w;
    }

    @Override
    public int[] visitDspTab(Command.DspTab t) {
      w[1] = (int) field(t.ext(), 32, "dsptab ext");
      return w;
    }

    @Override
    public int[] visitDspIn(Command.DspIn d) {
      w[1] = (int) field(d.spad(), 32, "dspin spad");
      w[2] = (int) field(d.spadStride(), 32, "dspin spadStride");
      w[3] = (int) (field(d.rowElems(), 16, "dspin rowElems") | field(d.rows(), 16, "dspin rows") << 16);
      w[4] = (int) field(d.dst(), 32, "dspin dst");
      if (d.shift() < -128 || d.shift() > 127) {
        throw new IllegalArgumentException("dspin shift must be in -128..127 (the NPU accepts -24..15), got " + d.shift());
      }
      w[5] = (int) (field(d.format(), 8, "dspin format") | (d.shift() & 0xFF) << 8);
      w[6] = (int) field(d.dstStride(), 16, "dspin dstStride");
      return w;
    }

    @Override
    public int[] visitDspOut(Command.DspOut d) {
      w[1] = (int) field(d.spad(), 32, "dspout spad");
      w[2] = (int) field(d.spadStride(), 32, "dspout spadStride");
      w[3] = (int) (field(d.rowElems(), 16, "dspout rowElems") | field(d.rows(), 16, "dspout rows") << 16);
      w[4] = (int) field(d.src(), 32, "dspout src");
      w[5] = (int) field(d.format(), 8, "dspout format");
      w[6] = (int) field(d.srcStride(), 16, "dspout srcStride");
      return w;
    }

    @Override
    public int[] visitDspRun(Command.DspRun r) {
      w[1] = (int) field(r.prog(), 32, "dsprun prog");
      w[2] = (int) field(r.words(), 32, "dsprun words");
      w[3] = (int) field(r.entry(), 32, "dsprun entry");
      w[4] = (int) r.parameters().word4();
      w[5] = (int) r.parameters().word5();
      w[6] = (int) r.parameters().word6();
      return w;
    }

    @Override
    public int[] visitDspLoad(Command.DspLoad l) {
      w[1] = (int) field(l.prog(), 32, "dspld prog");
      w[2] = (int) field(l.words(), 32, "dspld words");
      w[3] = (int) field(l.at(), 32, "dspld at");
      return w;
    }

    @Override
    public int[] visitSnapshot(Command.Snapshot sn) {
      w[1] = (int) field(sn.ext(), 32, "snapshot ext");
      return w;
    }

    @Override
    public int[] visitPpmCfg(Command.PpmCfg pc) {
      w[1] = (int) field(pc.ext(), 32, "ppmcfg ext");
      w[2] = (int) field(pc.channels(), 32, "ppmcfg channels");
      w[3] = (int) field(pc.first(), 32, "ppmcfg first");
      w[4] = (int) field(pc.bank(), 32, "ppmcfg bank");
      return w;
    }

    @Override
    public int[] visitPpuTab(Command.PpuTab t) {
      w[1] = (int) field(t.ext(), 32, "pputab ext");
      return w;
    }

    @Override
    public int[] visitPpm(Command.Ppm q) {
      w[1] = (int) field(q.src(), 32, "ppm src");
      w[2] = (int) field(q.srcStride(), 32, "ppm srcStride");
      w[3] = (int) field(q.dst(), 32, "ppm dst");
      w[4] = (int) field(q.dstStride(), 32, "ppm dstStride");
      w[5] = (int) (field(q.m(), 16, "ppm m") | field(q.n(), 16, "ppm n") << 16);
      return w;
    }

    @Override
    public int[] visitGemm(Command.Gemm g) {
      w[1] = (int) (field(g.m(), 16, "gemm m") | field(g.k(), 16, "gemm k") << 16);
      if (g.sparsity() < 0 || g.sparsity() > 3) {
        throw new IllegalArgumentException("gemm sparsity must be 0 (dense), 1 (2:4) or 2 (4:8), got " + g.sparsity());
      }
      w[2] = (int) (field(g.n(), 16, "gemm n") | field(g.accumulate(), 1, "gemm accumulate") << 16
          | g.sparsity() << 17 | field(g.wStream(), 1, "gemm wStream") << 19 | (field(g.wInt4(), 2, "gemm wInt4") & 1) << 20
          | (g.wInt4() >> 1) << 22
          | ppmBits(g.ppm()) | field(g.gate(), 1, "gemm gate") << 24
          | field(g.xKeep(), 1, "gemm xKeep") << 25);
      w[3] = (int) field(g.x(), 32, "gemm x");
      w[4] = (int) field(g.w(), 32, "gemm w");
      w[5] = (int) field(g.y(), 32, "gemm y");
      w[6] = (int) (field(g.xStride(), 16, "gemm xStride") | field(g.wStride(), 16, "gemm wStride") << 16);
      w[7] = (int) field(g.yStride(), 32, "gemm yStride");
      return w;
    }

    @Override
    public int[] visitFence(Command.Fence f) {
      return w;
    }

    @Override
    public int[] visitHalt(Command.Halt h) {
      return w;
    }
  }

  /** Word 2's PPM bits of a GEMM: {@code ppm} 1 sets bit 21, 2 bits 21 and 23 (parameter bank 1). */
  private static int ppmBits(long ppm) {
    if (ppm < 0 || ppm > 2) {
      throw new IllegalArgumentException("gemm ppm must be 0, 1 (PPM, parameter bank 0) or 2 (PPM, bank 1), got " + ppm);
    }
    return ppm == 0 ? 0 : 1 << 21 | (int) (ppm - 1) << 23;
  }

  private static int[] dma(int[] w, long ext, long extStride, long spad, long spadStride, long rowBytes, long rows,
                           String op) {
    w[1] = (int) field(ext, 32, op + " ext");
    w[2] = (int) field(extStride, 32, op + " extStride");
    w[3] = (int) field(spad, 32, op + " spad");
    w[4] = (int) field(spadStride, 32, op + " spadStride");
    w[5] = (int) field(rowBytes, 32, op + " rowBytes");
    w[6] = (int) field(rows, 32, op + " rows");
    return w;
  }

  private static long field(long value, int bits, String name) {
    if (value < 0 || value >= (1L << bits)) {
      throw new IllegalArgumentException(name + " must be in 0.." + ((1L << bits) - 1) + ", got " + value);
    }
    return value;
  }

  /** The command these words hold, or empty when the opcode is undefined or a reserved bit of word 0 is set. */
  public static Optional<Command> decode(int[] w) {
    Optional<Opcode> op = Opcode.fromCode(w[0] & 0xFF);
    if (op.isEmpty() || (w[0] & ~0xFF) != 0) {
      return Optional.empty();
    }
    return Optional.of(switch (op.get()) {
      case LOAD -> new Command.Load(u(w[1]), u(w[2]), u(w[3]), u(w[4]), u(w[5]), u(w[6]));
      case STORE -> new Command.Store(u(w[1]), u(w[2]), u(w[3]), u(w[4]), u(w[5]), u(w[6]));
      case GEMM -> new Command.Gemm(w[1] & 0xFFFF, w[1] >>> 16, w[2] & 0xFFFF, u(w[3]), w[6] & 0xFFFF, u(w[4]),
          w[6] >>> 16, u(w[5]), u(w[7]), (w[2] >>> 17) & 3, (w[2] >>> 16) & 1, (w[2] >>> 19) & 1,
          (w[2] >>> 20) & 1 | ((w[2] >>> 22) & 1) << 1,
          ((w[2] >>> 21) & 1) == 0 ? 0 : 1 + ((w[2] >>> 23) & 1), (w[2] >>> 24) & 1,
          (w[2] >>> 25) & 1);
      case LOAD4 -> new Command.Load4(u(w[1]), u(w[2]), u(w[3]), u(w[4]), u(w[5]), u(w[6]));
      case LOADMX -> new Command.LoadMx(u(w[1]), u(w[2]), u(w[3]), u(w[4]), u(w[5]), u(w[6]), u(w[7]));
      case DSPTAB -> new Command.DspTab(u(w[1]));
      case DSPIN -> new Command.DspIn(u(w[1]), u(w[2]), w[3] & 0xFFFF, w[3] >>> 16, u(w[4]), w[5] & 0xFF,
          (byte) (w[5] >>> 8), w[6] & 0xFFFF);
      case DSPOUT -> new Command.DspOut(u(w[1]), u(w[2]), w[3] & 0xFFFF, w[3] >>> 16, u(w[4]), w[5] & 0xFF,
          w[6] & 0xFFFF);
      case DSPRUN -> new Command.DspRun(u(w[1]), u(w[2]), u(w[3]),
          org.llmnpu.isa.dsp.DspRunParameters.ofWords(u(w[4]), u(w[5]), u(w[6])));
      case DSPLD -> new Command.DspLoad(u(w[1]), u(w[2]), u(w[3]));
      case SNAPSHOT -> new Command.Snapshot(u(w[1]));
      case PPMCFG -> new Command.PpmCfg(u(w[1]), u(w[2]), u(w[3]), u(w[4]));
      case PPUTAB -> new Command.PpuTab(u(w[1]));
      case PPM -> new Command.Ppm(u(w[1]), u(w[2]), u(w[3]), u(w[4]), w[5] & 0xFFFF, w[5] >>> 16);
      case FENCE -> new Command.Fence();
      case HALT -> new Command.Halt();
    });
  }

  static long u(int word) {
    return word & 0xFFFFFFFFL;
  }

  /** Reads command {@code index} of a program at byte {@code base} of a little-endian memory image. */
  public static int[] wordsAt(byte[] memory, long address) {
    int[] w = new int[WORDS];
    for (int i = 0; i < WORDS; i++) {
      int a = (int) address + 4 * i;
      w[i] = (memory[a] & 0xFF) | (memory[a + 1] & 0xFF) << 8 | (memory[a + 2] & 0xFF) << 16 | (memory[a + 3] & 0xFF) << 24;
    }
    return w;
  }
}
