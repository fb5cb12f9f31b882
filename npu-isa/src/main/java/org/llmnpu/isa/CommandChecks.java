package org.llmnpu.isa;

/**
 * The golden simulator's checks of one decoded command ({@link IsaSimulator}'s class comment gives their order):
 * the unit or mode it needs, its shape, its scratchpad, DSP-buffer and external-memory ranges and alignment. The
 * first failing check's {@link ErrorCause} is the command's; {@link ErrorCause#NONE} when all pass.
 */
final class CommandChecks {
  private final MachineParams p;
  private final EngineTiming engine;

  CommandChecks(MachineParams p) {
    this(p, EngineTiming.SYSTOLIC);
  }

  /** The checks of an NPU whose GEMMs run on {@code engine} (the PiM engine takes no streamed weights). */
  CommandChecks(MachineParams p, EngineTiming engine) {
    this.p = p;
    this.engine = engine;
  }

  /** The checks of the class comment for one decoded command; {@code ppuTableLoaded}: a PPU table was loaded. */
  ErrorCause check(Command c, boolean ppuTableLoaded) {
    return check(c, ppuTableLoaded, new HeldX());
  }

  /** As {@link #check(Command, boolean)} with the engine's X buffer holding {@code heldX} (a {@code gemm xKeep=1}). */
  ErrorCause check(Command c, boolean ppuTableLoaded, HeldX heldX) {
    return c.accept(new Checks(ppuTableLoaded, heldX));
  }

  /**
   * Per command kind: whether the NPU has what it needs ({@link ErrorCause#UNSUPPORTED}: a PPM for {@code ppmcfg}
   * and {@code ppm}, the PPU for {@code pputab} and a loaded table for a {@code ppm} or a {@code gemm ppm=1} on a PPU NPU, MX decoding for
   * {@code loadmx}, the GEMM's N:M mode), then its shape and ranges.
   */
  private final class Checks implements Command.Visitor<ErrorCause> {
    private final boolean ppuTableLoaded;
    private final HeldX heldX;

    Checks(boolean ppuTableLoaded, HeldX heldX) {
      this.ppuTableLoaded = ppuTableLoaded;
      this.heldX = heldX;
    }

    @Override
    public ErrorCause visitLoad(Command.Load l) {
      return checkDma(l.ext(), l.extStride(), l.spad(), l.spadStride(), l.rowBytes(), l.rows());
    }

    @Override
    public ErrorCause visitLoad4(Command.Load4 l) {
      // The scratchpad rows are twice as long as the source rows.
      ErrorCause shape = checkDma(l.ext(), l.extStride(), l.spad(), l.spadStride(), l.rowBytes(), l.rows());
      if (shape == ErrorCause.NONE || shape == ErrorCause.EXT_ADDRESS) {
        if (l.spad() + (l.rows() - 1) * l.spadStride() + 2 * l.rowBytes() > p.spadBytes()) {
          return ErrorCause.SPAD_ADDRESS;
        }
      }
      return shape;
    }

    @Override
    public ErrorCause visitLoadMx(Command.LoadMx l) {
      if (!p.mxLoad()) {
        return ErrorCause.UNSUPPORTED;
      }
      if (l.format() > MxLoad.LAST) {
        return ErrorCause.BAD_SHAPE;
      }
      return checkDma(l.ext(), l.extStride(), l.spad(), l.spadStride(), l.rowBytes(), l.rows());
    }

    @Override
    public ErrorCause visitDspTab(Command.DspTab t) {
      return extRange(t.ext(), Command.DSP_TABLE_BYTES);
    }

    @Override
    public ErrorCause visitDspIn(Command.DspIn d) {
      boolean shape = d.format() <= Command.FMT_INT32 && d.shift() >= -24 && d.shift() <= 15;
      return checkDspCopy(d.spad(), d.spadStride(), d.rowElems(), d.rows(), d.dst(), d.dstStride(), d.format(), shape);
    }

    @Override
    public ErrorCause visitDspOut(Command.DspOut d) {
      return checkDspCopy(d.spad(), d.spadStride(), d.rowElems(), d.rows(), d.src(), d.srcStride(), d.format(),
          d.format() <= Command.FMT_INT8);
    }

    @Override
    public ErrorCause visitDspRun(Command.DspRun r) {
      if (r.words() > p.dsp().programDepth() || r.entry() >= p.dsp().programDepth()) {
        return ErrorCause.DSP_ADDRESS;
      }
      return r.resident() ? ErrorCause.NONE : extRange(r.prog(), 8 * r.words());
    }

    @Override
    public ErrorCause visitDspLoad(Command.DspLoad l) {
      if (l.words() < 1) {
        return ErrorCause.BAD_SHAPE;
      }
      if (l.at() + l.words() > p.dsp().programDepth() || l.at() % programWordsPerLine(p) != 0) {
        return ErrorCause.DSP_ADDRESS;
      }
      return extRange(l.prog(), 8 * l.words());
    }

    @Override
    public ErrorCause visitSnapshot(Command.Snapshot sn) {
      return extRange(sn.ext(), 8L * Counter.values().length);
    }

    @Override
    public ErrorCause visitStore(Command.Store s) {
      return checkDma(s.ext(), s.extStride(), s.spad(), s.spadStride(), s.rowBytes(), s.rows());
    }

    @Override
    public ErrorCause visitPpmCfg(Command.PpmCfg pc) {
      if (!p.hasPpm()) {
        return ErrorCause.UNSUPPORTED;
      }
      if (pc.channels() < 1 || pc.first() + pc.channels() > PpmUnit.channels(p) || pc.bank() > 1) {
        return ErrorCause.BAD_SHAPE;
      }
      return extRange(pc.ext(), Command.PPM_RECORD_BYTES * pc.channels());
    }

    @Override
    public ErrorCause visitPpuTab(Command.PpuTab t) {
      if (!p.ppu()) {
        return ErrorCause.UNSUPPORTED;
      }
      return extRange(t.ext(), PpmUnit.tableBytes());
    }

    @Override
    public ErrorCause visitPpm(Command.Ppm q) {
      if (!p.hasPpm() || p.ppu() && !ppuTableLoaded) {
        return ErrorCause.UNSUPPORTED;
      }
      if (q.m() < 1 || q.n() < 1 || q.n() > p.rows()) {
        return ErrorCause.BAD_SHAPE;
      }
      long line = p.lineBytes();
      boolean aligned = (q.src() | q.srcStride() | q.dst() | q.dstStride()) % line == 0;
      boolean inside = q.src() + (q.m() - 1) * q.srcStride() + 4 * q.n() <= p.spadBytes()
          && q.dst() + (q.m() - 1) * q.dstStride() + q.n() <= p.spadBytes();
      return aligned && inside ? ErrorCause.NONE : ErrorCause.SPAD_ADDRESS;
    }

    @Override
    public ErrorCause visitGemm(Command.Gemm g) {
      if (g.gated() && !p.ppmGate()) {
        return ErrorCause.UNSUPPORTED; // the gate operand needs a PPM built with it
      }
      if (g.keepsX() && !(p.xKeep() && engine.weightStream())) {
        return ErrorCause.UNSUPPORTED; // a kept X buffer: the systolic engine of an NPU built with xKeep
      }
      if (g.throughPpm() && (!p.hasPpm() || p.ppu() && !ppuTableLoaded && !g.gated())) {
        return ErrorCause.UNSUPPORTED; // the epilogue needs the PPM (and, on a PPU NPU, a loaded table unless gated)
      }
      if (g.streamsWeights() && !(p.weightStream() && engine.weightStream()
          && (g.sparsity() == Command.DENSE || !g.int4Weights()))) {
        return ErrorCause.UNSUPPORTED; // streamed W: the systolic engine with one W row a cycle; N:M values INT8
      }
      if (g.sparsity() != Command.DENSE && g.sparsity() <= Command.S4_8 && g.sparsity() != p.sparsity()) {
        return ErrorCause.UNSUPPORTED;
      }
      if (g.sparsity() > Command.S4_8) {
        return ErrorCause.BAD_SHAPE;
      }
      if (g.m() < 1 || g.m() > p.maxM() || g.k() < 1 || g.k() > p.maxK() || g.n() < 1 || g.n() > p.maxN()) {
        return ErrorCause.BAD_SHAPE;
      }
      if (g.keepsX() && !heldX.fits(g)) {
        return ErrorCause.BAD_SHAPE; // the X buffer holds no copy of this M, K and sparsity
      }
      if (g.int4Weights() && !g.streamsWeights() || g.wInt4() > 2
          || g.groupScaledWeights() && g.k() > StreamedWeights.MAX_GROUP_SCALED_K) {
        return ErrorCause.BAD_SHAPE; // INT4 only on the stream; word 2 bits 20 and 22 not both; 16-bit stream rows
      }
      if (g.throughPpm() && g.accumulates() || g.gated() && !g.throughPpm()) {
        return ErrorCause.BAD_SHAPE; // INT8 codes cannot be accumulated into; the gate is a PPM operand
      }
      if (g.gated() && g.m() > 1 && g.yStride() < g.n()) {
        // overlapping gated rows: a row's gate bytes would be the codes of the row before, which the hardware's
        // pipelined PPM writes after it has read them
        return ErrorCause.BAD_SHAPE;
      }
      if (g.streamsWeights()) {
        return checkStreamedGemm(g);
      }
      long line = p.lineBytes();
      long nTiles = (g.n() + line - 1) / line;
      boolean aligned = (g.w() | g.wStride() | g.y() | g.yStride()) % line == 0 && xAligned(g);
      boolean inside = xInside(g)
          && g.w() + (g.wRows() - 1) * g.wStride() + nTiles * line <= p.spadBytes()
          && g.y() + (g.m() - 1) * g.yStride() + yRowBytes(g) <= p.spadBytes();
      return aligned && inside ? ErrorCause.NONE : ErrorCause.SPAD_ADDRESS;
    }

    /**
     * A GEMM whose W streams from the memory: X and Y in the scratchpad ({@code SPAD_ADDRESS}), W's
     * {@link StreamedWeights#rows} rows of {@link StreamedWeights#rowBytes} bytes at {@code w + r·wStride} in the
     * memory ({@code EXT_ADDRESS}).
     */
    private ErrorCause checkStreamedGemm(Command.Gemm g) {
      long line = p.lineBytes();
      boolean aligned = (g.y() | g.yStride()) % line == 0 && xAligned(g);
      boolean inside = xInside(g)
          && g.y() + (g.m() - 1) * g.yStride() + yRowBytes(g) <= p.spadBytes();
      if (!aligned || !inside) {
        return ErrorCause.SPAD_ADDRESS;
      }
      boolean extAligned = (g.w() | g.wStride()) % line == 0;
      return extAligned && g.w() + (StreamedWeights.rows(g) - 1) * g.wStride() + StreamedWeights.rowBytes(g)
          <= p.extMemBytes()
          ? ErrorCause.NONE : ErrorCause.EXT_ADDRESS;
    }

    /** X's operands line-aligned; a {@code gemm xKeep=1} reads no X from the scratchpad, so its X is not checked. */
    private boolean xAligned(Command.Gemm g) {
      return g.keepsX() || (g.x() | g.xStride()) % p.lineBytes() == 0;
    }

    /** X's M rows of {@code ceil(K/line)} lines inside the scratchpad (not checked with {@code xKeep}). */
    private boolean xInside(Command.Gemm g) {
      long line = p.lineBytes();
      return g.keepsX() || g.x() + (g.m() - 1) * g.xStride() + (g.k() + line - 1) / line * line <= p.spadBytes();
    }

    @Override
    public ErrorCause visitFence(Command.Fence f) {
      return ErrorCause.NONE;
    }

    @Override
    public ErrorCause visitHalt(Command.Halt h) {
      return ErrorCause.NONE;
    }
  }

  /** Bytes of one Y row of a GEMM: N INT8 codes through the PPM, else 4N (INT32). */
  static long yRowBytes(Command.Gemm g) {
    return g.throughPpm() ? g.n() : 4 * g.n();
  }

  /** DSP program words a memory line holds (at least one): a {@code dspld}'s {@code at} is a multiple of it. */
  static int programWordsPerLine(MachineParams p) {
    return Math.max(1, p.lineBytes() / 8);
  }

  private ErrorCause extRange(long ext, long bytes) {
    return ext % p.lineBytes() == 0 && ext + bytes <= p.extMemBytes() ? ErrorCause.NONE : ErrorCause.EXT_ADDRESS;
  }

  /** Shape (1..65535 rows and elements, a defined format), scratchpad range, DSP buffer range, in that order. */
  private ErrorCause checkDspCopy(long spadAddr, long spadStride, long rowElems, long rows, long dspRow,
                                  long dspStride, long format, boolean shapeOk) {
    if (!shapeOk || rows < 1 || rows > MachineParams.MAX_DMA_ROWS || rowElems < 1 || rowElems > MachineParams.MAX_DMA_ROWS) {
      return ErrorCause.BAD_SHAPE;
    }
    long rowBytes = rowElems * DspUnit.elementBytes(format);
    if ((spadAddr | spadStride) % p.lineBytes() != 0 || spadAddr + (rows - 1) * spadStride + rowBytes > p.spadBytes()) {
      return ErrorCause.SPAD_ADDRESS;
    }
    int lanes = p.dsp().lanes();
    if (DspCopyRows.end(lanes, dspRow, dspStride, rowElems, rows) > p.dsp().elements()
        || DspCopyRows.overlaps(lanes, dspStride, rowElems, rows)) {
      return ErrorCause.DSP_ADDRESS;
    }
    return ErrorCause.NONE;
  }

  private ErrorCause checkDma(long ext, long extStride, long spadAddr, long spadStride, long rowBytes, long rows) {
    long line = p.lineBytes();
    if (rows < 1 || rows > MachineParams.MAX_DMA_ROWS || rowBytes < 1 || rowBytes > MachineParams.MAX_DMA_ROWS) {
      return ErrorCause.BAD_SHAPE;
    }
    if ((spadAddr | spadStride) % line != 0 || spadAddr + (rows - 1) * spadStride + rowBytes > p.spadBytes()) {
      return ErrorCause.SPAD_ADDRESS;
    }
    if ((ext | extStride) % line != 0 || ext + (rows - 1) * extStride + rowBytes > p.extMemBytes()) {
      return ErrorCause.EXT_ADDRESS;
    }
    return ErrorCause.NONE;
  }
}
