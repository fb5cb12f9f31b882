package org.llmnpu.sw.lower;

import java.util.function.ToLongFunction;
import org.llmnpu.isa.Command;
import org.llmnpu.isa.MachineParams;
import org.llmnpu.isa.dsp.DspProgram;
import org.llmnpu.numerics.fp16.Fp16;

/**
 * The command-emitting helpers the lowering's parts share: DSP runs, vector staging, weight staging, the tiled and
 * the PPM GEMMs and their results into the DSP; holds the program being built. A token's RMSNorm, quantization and
 * residual add are {@link NormEmitter}'s ({@link #norms}).
 */
final class LoweringEmitter {
  final LoweringLayout l;
  /** Places a DSP program in external memory (the command stream's, see {@link CommandStream}). */
  final ToLongFunction<DspProgram> pool;
  CommandStream b;
  private int wStride;
  /** The K chunks of the staged weight's GEMM. */
  private KSplit split;
  /** The N:M mode of the staged weight's GEMMs. */
  private int sparsity;
  /** Weights streamed from memory into the array ({@code gemm wStream=1}) instead of staged in sWT. */
  private final boolean stream;
  /** The streamed weight: its memory address, and whether its rows hold INT4 pairs ({@code wInt4=1}). */
  private long streamed;
  private boolean streamedInt4;
  /** The streamed weight is a group-scaled INT4 copy ({@code gemm wInt4=2}, {@link LoweredModel#groupScaledStream}). */
  private boolean streamedGroupScaled;
  private int streamedK;

  /** The static scale of the next {@link #normQuantize} (its GEMM's calibrated {@link StaticScales}), or 0: dynamic. */
  double inputScale;
  /** The calibrated static scales when the GEMM epilogues run on the PPM ({@link PpmEpilogues}), else null. */
  final StaticScales epilogue;
  /** q, k and v quantized with calibrated static scales ({@link DecoderLowering#staticQkv}; with {@link #epilogue}). */
  boolean staticQkv;

  /** The block's RMSNorms and residual adds. */
  final NormEmitter norms;

  LoweringEmitter(LoweringLayout layout, ToLongFunction<DspProgram> pool, Fusion fusion) {
    this.l = layout;
    this.pool = pool;
    this.stream = fusion != Fusion.NONE;
    this.epilogue = stream && layout.m.epilogues.applies ? layout.m.epilogueScales() : null;
    this.norms = new NormEmitter(this, fusion == Fusion.FULL);
  }

  void run(DspProgram program) {
    if (program.size() > l.p.dsp().programDepth()) {
      throw new IllegalArgumentException("DSP program '" + program.name() + "' has " + program.size()
          + " instructions but the DSP's program memory holds " + l.p.dsp().programDepth());
    }
    b.dspRun(program);
  }

  /**
   * The DSP row of token t's input scale (the codes' dequantization scale {@code d}): row {@code rDX + t} for a
   * dynamic (absmax) scale, one row {@code rDX} for every token when the site's scale is the calibrated static one
   * ({@link #inputScale} set): every token's {@code d} is then the same constant, so the quantization and dequantization
   * programs are the same for every token, and a resident program serves them all ({@link DspResidency}).
   */
  int xScaleRow(int t) {
    return inputScale > 0 ? l.rDX : l.rDX + t;
  }

  static short half(double v) {
    return Fp16.fromDouble(v);
  }

  /** FP16 vector at element {@code offset} of the vector block staged in sVEC → DSP rows. */
  void vecIn(int offset, int len, int row) {
    b.dspIn(l.sVEC + 2L * offset, l.line, len, 1, row, Command.FMT_FP16, 0);
  }

  /** {@link NormEmitter#normQuantize}. */
  void normQuantize(int t, int gamma, int scaleRow, long xs) {
    norms.normQuantize(t, gamma, scaleRow, xs);
  }

  /** {@link NormEmitter#normQuantizePair}. */
  void normQuantizePair(int t, int gamma, int scaleRow, long xs, long xsStride, int pairRows) {
    norms.normQuantizePair(t, gamma, scaleRow, xs, xsStride, pairRows);
  }

  /** {@link NormEmitter#residual}. */
  void residual(int t, int scaleRow, Short c, int wsRow) {
    norms.residual(t, scaleRow, c, wsRow);
  }

  /**
   * Stages a block weight: INT4 widened by load4 when the model's weights are 4-bit; MX elements decoded by loadmx; 2:4
   * per K chunk its value rows (load) and its packed metadata rows widened by load4 after them.
   */
  void weight(long ext, int k, int n) {
    split = l.weightSplit(k);
    sparsity = l.m.sparsity;
    wStride = l.m.spadStride(n);
    int es = l.m.extStride(n);
    if (stream) {
      // streamed by the GEMMs themselves: the rows stay in memory (INT8, INT4 pairs for wInt4, 2:4 value rows and
      // packed positions per chunk)
      streamedGroupScaled = groupScaledStream();
      streamed = sparsity == Command.S2_4 ? l.m.streamedSparse(ext) : streamedGroupScaled ? l.m.groupScaled(ext) : ext;
      streamedK = k;
      streamedInt4 = l.m.bits == 4;
      wStride = es;
      if (streamedGroupScaled) {
        split = l.split(k);
      }
    } else if (l.m.mxFormat >= 0) {
      b.loadmx(ext, es, l.sWT, wStride, es, k, l.m.mxFormat);
    } else if (l.m.bits == 4) {
      b.load4(ext, es, l.sWT, wStride, es, k);
    } else if (sparsity == Command.S2_4) {
      long meta = ext + l.m.sparseMetaOffset(k, n);
      int ms = l.m.metaStride(n);
      for (int c = 0; c < split.count(); c++) {
        int k0 = split.start(c);
        int v = SparseRows.values(split.length(c));
        b.load(ext + (long) k0 / 2 * es, es, l.sWT + (long) k0 * wStride, wStride, es, v);
        b.load4(meta + (long) k0 / 2 * ms, ms, l.sWT + (long) (k0 + v) * wStride, wStride, SparseRows.metaBytes(n), v);
      }
    } else {
      b.load(ext, es, l.sWT, wStride, es, k);
    }
  }

  /** Stages the LM head (INT8). */
  void headWeight(long ext, int k, int n) {
    split = l.split(k);
    sparsity = Command.DENSE;
    wStride = LoweredModel.roundUp(n, l.line);
    if (stream) {
      streamed = ext;
      streamedInt4 = false;
      streamedGroupScaled = false;
    } else {
      b.load(ext, wStride, l.sWT, wStride, wStride, k);
    }
  }

  /**
   * Y[M×N] = X · W (W staged in sWT), N tiled to the machine's maxN, K in the staged weight's chunks (chunk c's
   * partial results at {@code sY + c·yChunkBytes}); sparse GEMMs for a 2:4 weight, chunk c's compressed rows starting
   * at row {@code k0} (see {@link LoweredModel}); gemmColumns: columns [from, to) (from on a tile) to y0 + c·yChunkBytes
   */
  void gemmTiled(int mRows, int k, int n, long x, int xStride) {
    gemmColumns(mRows, k, n, 0, n, x, xStride, l.sY, l.yStride);
  }

  void gemmColumns(int mRows, int k, int n, int from, int to, long x, int xStride, long y0, int yStride) {
    if (split.k() != k) {
      throw new IllegalStateException("GEMM K " + k + " is not the staged weight's K " + split.k());
    }
    int tile = streamTile();
    for (int c = 0; c < split.count(); c++) {
      int k0 = split.start(c);
      for (int n0 = from; n0 < to; n0 += tile) {
        int nn = Math.min(tile, to - n0);
        long y = y0 + c * l.yChunkBytes + 4L * (n0 - from);
        if (stream) {
          long chunk = sparsity == Command.S2_4 ? l.m.streamedSparseOffset(streamedK, n, c)
              : (streamedGroupScaled ? LoweredModel.groupScaledRow(k0) : k0) * wStride;
          long w = streamed + chunk + (streamedInt4 ? n0 / 2 : n0);
          b.add(new Command.Gemm(mRows, split.length(c), nn, x + k0, xStride, w, wStride, y, yStride,
              sparsity, 0, 1, streamedGroupScaled ? 2 : streamedInt4 ? 1 : 0, 0, 0, l.keepsX(n0 > from)));
        } else {
          b.add(new Command.Gemm(mRows, split.length(c), nn, x + k0, xStride, l.sWT + (long) k0 * wStride + n0,
              wStride, y, yStride, sparsity, 0, 0, 0, 0, 0, l.keepsX(n0 > from)));
        }
      }
    }
  }

  /** Columns per GEMM of the weight staged last ({@link #streamTile(MachineParams, boolean)}). */
  int streamTile() {
    return streamTile(l.p, stream && streamedInt4);
  }

  /**
   * Columns per streamed GEMM on {@code p}, the one home of the tile width (the lowering's tiles, the walk's
   * ({@link PhaseWalk#streamTiles}), the woven streams' ({@link GatedWeave}, {@link QkvTiles#streamTile})): maxN in
   * whole lines (the W tile's start stays line-aligned), for {@code int4} streamed rows in whole pairs of lines (its
   * byte offset n0/2 too).
   */
  static int streamTile(MachineParams p, boolean int4) {
    int unit = int4 ? 2 * p.lineBytes() : p.lineBytes();
    int tile = p.maxN() / unit * unit;
    return tile < 1 ? p.maxN() : tile;
  }

  /**
   * {@code elems} INT32 results of the last block GEMM, from byte {@code offset} of its Y region, to FP16 DSP rows from
   * {@code dst}: K chunks summed, group-quantized weights dequantized with their group scales (at {@code wsRow}, one
   * block of rows per group).
   */
  void resultIn(long offset, int elems, int dst, int wsRow) {
    partialsIn(split, l.sY + offset, l.yChunkBytes, l.line, elems, 1, dst, split.sigma(), split.grouped() ? wsRow : -1);
  }

  /** Whether the block weights stream as their group-scaled INT4 copies (one scale per channel on the DSP). */
  boolean groupScaledStream() {
    return stream && l.m.groupScaledStream;
  }

  /** The per-channel weight scale vector for {@link DspRoutines#scale}, or none (-1) when groups applied them. */
  int channelScales(int wsRow) {
    return split.grouped() ? -1 : wsRow;
  }

  /**
   * A GEMM result ({@code rows} × {@code elems} INT32 at {@code y}, row stride {@code stride}) to FP16 DSP rows from
   * {@code dst} with {@code dspin}'s shift {@code sigma}: one {@code dspin}, or each K chunk's partial (at {@code y +
   * c·chunkBytes}) to the staging rows and {@link DspRoutines#sumPartials} (times the group scales at {@code scales}
   * when not negative).
   */
  void partialsIn(KSplit ks, long y, long chunkBytes, int stride, int elems, int rows, int dst, int sigma, int scales) {
    if (!ks.combined()) {
      b.dspIn(y, stride, elems, rows, dst, Command.FMT_INT32, sigma);
      return;
    }
    int len = elems * rows;
    int partRows = l.r.rows(len);
    for (int c = 0; c < ks.count(); c++) {
      b.dspIn(y + c * chunkBytes, stride, elems, rows, l.rPart + c * partRows, Command.FMT_INT32, sigma);
    }
    run(l.r.sumPartials(l.rPart, ks.count(), partRows, len, scales, dst));
  }
  /**
   * Columns {@code col0 .. col0+cols−1} of the streamed weight at {@code w} (row stride {@code stride}, one K chunk)
   * through the PPM: per N tile a {@code ppmcfg} of its columns' records ({@code records}, channels from 0, bank
   * {@link #ppmBank}) and a {@code gemm wStream=1 ppm=1} writing INT8 codes to {@code y + j} (column {@code col0 + j}),
   * rows {@code yStride} apart ({@code gate}: times the gate code at that byte, {@code gate=1}); with {@code records}
   * negative no PPM: INT32 results to {@code y + 4j}. {@code col0}: a multiple of the tile. 2:4 W in the streamed
   * 2:4 layout. {@code sameX}: the GEMM just before read this X (W1's last tile: with xKeep the first tile keeps it).
   */
  void gemmPpm(int mRows, int k, long w, int stride, boolean int4, int sparsity, int col0, int cols, long x,
               int xStride, long y, long records, boolean gate, boolean sameX) {
    gemmPpm(mRows, k, w, stride, int4, sparsity, col0, cols, x, xStride, y, records, gate, sameX, 0,
        ppmTiles(cols, int4));
  }

  /**
   * As above, its N tiles {@code [from, to)} only ({@link #ppmTiles}): the first of them keeps X with {@code sameX},
   * the later ones always (a woven piece, {@link TileWeave}).
   */
  void gemmPpm(int mRows, int k, long w, int stride, boolean int4, int sparsity, int col0, int cols, long x,
               int xStride, long y, long records, boolean gate, boolean sameX, int from, int to) {
    int tile = ppmTile(int4);
    boolean ppm = records >= 0;
    for (int i = from; i < to; i++) {
      int j0 = i * tile;
      int nn = Math.min(tile, cols - j0);
      int bank = ppmBank(j0, tile);
      if (ppm) {
        b.add(new Command.PpmCfg(records + (long) j0 * Command.PPM_RECORD_BYTES, nn, 0, bank));
      }
      int col = col0 + j0;
      b.add(new Command.Gemm(mRows, k, nn, x, xStride, w + (int4 ? col / 2 : col), stride, y + (ppm ? j0 : 4L * j0),
          l.yStride, sparsity, 0, 1, int4 ? 1 : 0, ppm ? 1 + bank : 0, gate ? 1 : 0, l.keepsX(sameX || i > from)));
    }
  }

  /** Columns of one N tile of {@link #gemmPpm}. */
  int ppmTile(boolean int4) {
    int unit = int4 ? 2 * l.line : l.line;
    return Math.max(unit, l.p.maxN() / unit * unit);
  }

  /** N tiles of {@code cols} columns in {@link #gemmPpm}. */
  int ppmTiles(int cols, boolean int4) {
    return (cols + ppmTile(int4) - 1) / ppmTile(int4);
  }

  /**
   * The PPM parameter bank of the N tile starting at column {@code j0} ({@code tile} columns a tile): tiles alternate
   * banks, so that a tile's {@code ppmcfg} fills one bank while the previous tile's GEMM drains through the other.
   */
  static int ppmBank(int j0, int tile) {
    return j0 / tile % 2;
  }
}
