package org.llmnpu.sw.lower;

import org.llmnpu.isa.Command;
import org.llmnpu.isa.IsaSimulator;
import org.llmnpu.isa.MxLoad;
import org.llmnpu.isa.SparseWeights;
import org.llmnpu.isa.dsp.DspMath;
import org.llmnpu.numerics.fp.Rounding;
import org.llmnpu.numerics.fp16.Fp16;
import org.llmnpu.numerics.mx.E8M0;
import org.llmnpu.numerics.mx.MxBlock;
import org.llmnpu.numerics.mx.MxElementType;
import org.llmnpu.numerics.mx.MxQuantizer;
import org.llmnpu.numerics.sparse.NmPattern;
import org.llmnpu.numerics.sparse.NmPruner;
import org.llmnpu.sw.model.LayerWeights;
import org.llmnpu.sw.model.ModelConfig;
import org.llmnpu.sw.model.ModelWeights;

/**
 * Writes a {@link LoweredModel}'s memory image: the DSP tables, FP16 embedding rows and RoPE
 * tables, per layer the FP16 vector block (norm gains, weight scales: one vector per output
 * channel set, or per K group) and the block weights (INT8, INT4 two codes a byte, 2:4-compressed INT8, or MX
 * element bytes; the
 * llama2.c matrices transposed, fused QKV and W1|W3, Wo head-padded), the final norm and the
 * INT8 LM head. Layout and formats as described in {@link LoweredModel}.
 */
final class WeightImage {
  private final LoweredModel m;
  private final ModelConfig c;
  private final byte[] image;
  private final int line;
  private final int half;
  private final int bits;
  private final int weightGroup;

  WeightImage(LoweredModel model, byte[] image) {
    this.m = model;
    this.c = model.config();
    this.image = image;
    this.line = model.machine().lineBytes();
    this.half = model.half;
    this.bits = model.bits;
    this.weightGroup = model.weightGroup;
  }

  void write(ModelWeights w) {
    byte[] t = IsaSimulator.dspTableImage(DspMath.DEFAULT);
    System.arraycopy(t, 0, image, (int) m.tables, t.length);
    for (int tok = 0; tok < c.vocabSize(); tok++) {
      for (int i = 0; i < c.dim(); i++) {
        putHalf(m.embedding + (long) tok * m.embeddingStride + 2L * i, w.tokenEmbedding()[tok][i]);
      }
    }
    for (int pos = 0; pos < m.maxContext(); pos++) {
      for (int h = 0; h < c.heads(); h++) {
        for (int j = 0; j < half; j++) {
          double freq = 1.0 / Math.pow(c.ropeTheta(), (2 * j) / (double) c.headDim());
          double angle = pos * freq;
          long row = m.rope + (long) pos * m.ropeStride;
          putHalf(row + 2L * (h * half + j), (float) Math.cos(angle));
          putHalf(row + 2L * (m.qSpan + h * half + j), (float) Math.sin(angle));
        }
      }
    }
    for (int l = 0; l < c.layers(); l++) {
      LayerWeights lw = w.layers()[l];
      putVector(m.layerVectors[l] + 2L * m.vG1, lw.attnNorm());
      putVector(m.layerVectors[l] + 2L * m.vG2, lw.ffnNorm());
      writeQkv(lw, l);
      long vectors = m.layerVectors[l];
      float[][] wo = new float[c.dim()][];
      for (int n = 0; n < c.dim(); n++) {
        wo[n] = new float[m.oK];
        int padded = m.oK / c.heads();
        for (int h = 0; h < c.heads(); h++) {
          System.arraycopy(lw.wo()[n], h * c.headDim(), wo[n], h * padded, c.headDim());
        }
      }
      putMatrix(m.wO[l], vectors + 2L * m.vO, wo, m.oK, null, c.dim(), vectors + 2L * m.vOC);
      float[][] w13rows = new float[m.w13N][];
      for (int n = 0; n < m.w13N; n++) {
        w13rows[n] = n < c.hiddenDim() ? lw.w1()[n] : n >= m.h3Offset ? lw.w3()[n - m.h3Offset] : null;
      }
      putMatrix(m.w13[l], vectors + 2L * m.vW1, w13rows, c.dim(), new int[] {m.h3Offset, m.vW3 - m.vW1}, c.hiddenDim(),
          vectors + 2L * m.vW1C);
      putMatrix(m.w2[l], vectors + 2L * m.vW2, lw.w2(), c.hiddenDim(), null, c.dim(), vectors + 2L * m.vW2C);
    }
    putVector(m.finalVectors, w.finalNorm());
    putMatrix(m.lmHead, m.finalVectors + 2L * m.vLm, w.lmHead(), c.dim(), LoweredModel.shift(c.dim()), null, 8, 0, 0);
  }

  /**
   * The fused lowering's copy of layer {@code l}'s W1|W3 at {@code at}, W3's columns from {@code h3} (a line-aligned
   * start for the PPM epilogue's streamed GEMMs, {@link PpmEpilogues}); the scales it writes are the staged copy's.
   */
  void putW13(ModelWeights w, int l, long at, int h3) {
    LayerWeights lw = w.layers()[l];
    float[][] rows = new float[h3 + c.hiddenDim()][];
    for (int n = 0; n < rows.length; n++) {
      rows[n] = n < c.hiddenDim() ? lw.w1()[n] : n >= h3 ? lw.w3()[n - h3] : null;
    }
    long scales = m.layerVectors[l] + 2L * m.vW1;
    int[] split = {h3, m.vW3 - m.vW1};
    if (m.sparsity == Command.S2_4) {
      putSparse(at, scales, rows, c.dim(), split, true);
    } else {
      putMatrix(at, scales, rows, c.dim(), split, c.hiddenDim(), -1);
    }
  }

  /**
   * Layer l's fused QKV weight and its scales, its columns in the model's order: the default one, or per QKV tile
   * ({@link LoweredModel#orderQkvByTiles}, {@link QkvTiles}).
   */
  void writeQkv(LayerWeights lw, int l) {
    float[][] qkv = new float[m.qkvN][];
    for (int col = 0; col < m.qkvN; col++) {
      qkv[col] = qkvRow(lw, m.qkvTiles == null ? col : m.qkvTiles.defaultColumn(col));
    }
    long vectors = m.layerVectors[l];
    putMatrix(m.wQkv[l], vectors + 2L * m.vQkv, qkv, c.dim(), null, m.qkvN, vectors + 2L * m.vQkvC);
  }

  /**
   * The llama2.c output row of fused-QKV column {@code col} in the default order, null for a padding column (the
   * q and k halves padded to whole DSP rows, {@link LoweredModel#qSpan}).
   */
  private float[] qkvRow(LayerWeights lw, int col) {
    if (col < 2 * m.qSpan) {
      return pairRow(lw.wq(), col / m.qSpan, col % m.qSpan, c.heads());
    }
    col -= 2 * m.qSpan;
    if (col < 2 * m.kSpan) {
      return pairRow(lw.wk(), col / m.kSpan, col % m.kSpan, c.kvHeads());
    }
    return lw.wv()[col - 2 * m.kSpan];
  }

  /** Row of {@code w} of RoPE pair {@code i}'s member {@code part} (0 even, 1 odd), null past {@code heads}' pairs. */
  private float[] pairRow(float[][] w, int part, int i, int heads) {
    return i < heads * half ? w[(i / half) * c.headDim() + 2 * (i % half) + part] : null;
  }

  /**
   * Writes a block weight W[K×N] (column n = llama2.c row {@code rows[n]}, null = a zero column)
   * in the model's format at {@code at} and its scales (times 2^-σ) at {@code scales}, group g's
   * vector {@code g · groupStride(vecLen)} elements further; {@code split} = {column where a
   * second scale vector starts, its element offset} (for W1|W3).
   */
  private void putMatrix(long at, long scales, float[][] rows, int k, int[] split, int vecLen, long channelScales) {
    if (m.sparsity == Command.S2_4) {
      putSparse(at, scales, rows, k, split, false);
      return;
    }
    int group = weightGroup > 0 ? weightGroup : k;
    putMatrix(at, scales, rows, k, LoweredModel.shift(group), split, bits, group, m.groupStride(vecLen));
    if (m.groupScaledStream && channelScales >= 0) {
      putGroupScaled(at, scales, rows.length, k, split, vecLen, channelScales);
    }
  }

  /**
   * The group-scaled copy ({@link LoweredModel#groupScaledStream}) of the INT4 group weight just written at
   * {@code at} with its FP16 group scales from {@code scales}: per group two multiplier rows (even columns', odd
   * columns') then its INT4 rows as staged; the per-channel scales {@code s_c · 2^-σ(K)} at {@code channelScales}
   * (W3's columns of W1|W3 from {@link LoweredModel#vW3C}).
   */
  private void putGroupScaled(long at, long scales, int n, int k, int[] split, int vecLen, long channelScales) {
    int stride = m.extStride(n);
    long copy = m.groupScaled(at);
    int groups = (k + weightGroup - 1) / weightGroup;
    int sigmaGroup = LoweredModel.shift(weightGroup);
    int vecStride = m.groupStride(vecLen);
    int[] channelSplit = split == null ? null : new int[] {split[0], m.vW3C - m.vW1C};
    for (int col = 0; col < n; col++) {
      long scaleAt = split != null && col >= split[0] ? scales + 2L * (split[1] + col - split[0]) : scales + 2L * col;
      double[] s = new double[groups];
      double max = 0;
      for (int g = 0; g < groups; g++) {
        int at16 = (int) (scaleAt + 2L * g * vecStride);
        s[g] = Math.scalb(Fp16.toDouble((short) ((image[at16] & 0xFF) | (image[at16 + 1] & 0xFF) << 8)), sigmaGroup);
        max = Math.max(max, s[g]);
      }
      for (int g = 0; g < groups; g++) {
        int u = max > 0 ? (int) Math.rint(255 * s[g] / max) : 0;
        long mult = copy + (LoweredModel.groupScaledRow(g * weightGroup) + (col % 2)) * stride + col / 2;
        image[(int) mult] = (byte) u;
      }
      long channelAt = channelScales + 2L * (channelSplit != null && col >= channelSplit[0]
          ? channelSplit[1] + col - channelSplit[0] : col);
      putHalf(channelAt, (float) Math.scalb(max > 0 ? 16 * max / 255 : 1, -LoweredModel.shift(k)));
    }
    for (int i = 0; i < k; i++) {
      long row = copy + (LoweredModel.groupScaledRow(i / weightGroup * weightGroup) + i % weightGroup + 2) * stride;
      System.arraycopy(image, (int) (at + (long) i * stride), image, (int) row, (n + 1) / 2);
    }
  }


  private void putMatrix(long at, long scales, float[][] rows, int k, int sigma, int[] split, int b, int group,
                         int vecStride) {
    // MX blocks for the grouped block weights of an MX model; the LM head (group 0) stays INT8
    boolean mx = m.mxFormat >= 0 && group > 0;
    if (group == 0) {
      group = k;
    }
    for (int k0 = 0; k0 < k; k0 += group) {
      long groupScales = scales + 2L * (k0 / group) * vecStride;
      if (mx) {
        putMxBlocks(at, groupScales, rows, k0, Math.min(k, k0 + group), sigma, split);
      } else {
        putGroup(at, groupScales, rows, k0, Math.min(k, k0 + group), sigma, split, b);
      }
    }
  }

  /** Rows {@code k0..k1-1} of W, quantized with one scale per column. */
  private void putGroup(long at, long scales, float[][] rows, int k0, int k1, int sigma, int[] split, int b) {
    int n = rows.length;
    int qmax = b == 4 ? 7 : 127;
    int stride = b == 4 ? m.extStride(n) : LoweredModel.roundUp(n, line);
    for (int col = 0; col < n; col++) {
      float[] r = rows[col];
      double max = 0;
      if (r != null) {
        for (int i = k0; i < k1; i++) {
          max = Math.max(max, Math.abs(r[i]));
        }
      }
      double s = max > 0 ? max / qmax : 1;
      for (int i = k0; i < k1; i++) {
        long q = r == null ? 0 : Math.max(-qmax, Math.min(qmax, Math.round(Math.rint(r[i] / s))));
        if (b == 4) {
          int a = (int) (at + (long) i * stride + col / 2);
          image[a] = (byte) (col % 2 == 0 ? (image[a] & 0xF0) | (q & 0x0F) : (image[a] & 0x0F) | (q & 0x0F) << 4);
        } else {
          image[(int) (at + (long) i * stride + col)] = (byte) q;
        }
      }
      if (r == null) {
        continue;
      }
      long scaleAt = split != null && col >= split[0] ? scales + 2L * (split[1] + col - split[0]) : scales + 2L * col;
      putHalf(scaleAt, (float) Math.scalb(s, -sigma));
    }
  }

  /**
   * Rows {@code k0..k1-1} of W as one MX block per column: the element bytes, and the FP16 scale
   * {@code 2^(X − 127 + codeExponent − σ)} that turns the block's {@code loadmx} codes into its values.
   */
  private void putMxBlocks(long at, long scales, float[][] rows, int k0, int k1, int sigma, int[] split) {
    int n = rows.length;
    int stride = LoweredModel.roundUp(n, line);
    MxElementType type = MxLoad.type(m.mxFormat);
    for (int col = 0; col < n; col++) {
      float[] r = rows[col];
      if (r == null) {
        for (int i = k0; i < k1; i++) {
          image[(int) (at + (long) i * stride + col)] = 0;
        }
        continue;
      }
      MxBlock block = MxQuantizer.quantize(type, java.util.Arrays.copyOfRange(r, k0, k1), Rounding.NEAREST_EVEN);
      for (int i = k0; i < k1; i++) {
        image[(int) (at + (long) i * stride + col)] = (byte) block.element(i - k0);
      }
      int exponent = E8M0.exponent(block.scaleCode()) + MxLoad.codeExponent(m.mxFormat) - sigma;
      if (block.scaleIsNaN() || exponent > 15) {
        throw new IllegalArgumentException("an MX block scale of column " + col + ", rows " + k0 + ".." + (k1 - 1)
            + " is NaN or beyond FP16 (2^" + exponent + ")");
      }
      long scaleAt = split != null && col >= split[0] ? scales + 2L * (split[1] + col - split[0]) : scales + 2L * col;
      putHalf(scaleAt, (float) Math.scalb(1.0, exponent));
    }
  }

  /**
   * A 2:4-sparse INT8 block weight: each column pruned 2:4 along K by magnitude
   * ({@link NmPruner}, the ragged last group keeps its two largest), quantized per channel over its
   * kept values, then each K chunk compressed ({@link SparseWeights#compress}): its value rows from
   * row {@code k0/2}, its metadata rows packed two positions a byte from row {@code k0/2} of the
   * metadata block (layout in {@link LoweredModel}), and its streamed layout at {@link LoweredModel#streamedSparse};
   * with {@code streamedOnly} only the streamed layout, at {@code at} (the PPM epilogue's aligned W1|W3 copy).
   */
  private void putSparse(long at, long scales, float[][] rows, int k, int[] split, boolean streamedOnly) {
    int n = rows.length;
    byte[][] q = new byte[k][n];
    for (int col = 0; col < n; col++) {
      if (rows[col] == null) {
        continue;
      }
      float[] r = NmPruner.pruneRow(java.util.Arrays.copyOf(rows[col], k), NmPattern.TWO_FOUR);
      double max = 0;
      for (float v : r) {
        max = Math.max(max, Math.abs(v));
      }
      double s = max > 0 ? max / 127 : 1;
      for (int i = 0; i < k; i++) {
        q[i][col] = (byte) Math.max(-127, Math.min(127, Math.round(Math.rint(r[i] / s))));
      }
      long scaleAt = split != null && col >= split[0] ? scales + 2L * (split[1] + col - split[0]) : scales + 2L * col;
      putHalf(scaleAt, (float) Math.scalb(s, -LoweredModel.shift(k)));
    }
    int stride = m.extStride(n);
    int metaStride = m.metaStride(n);
    long meta = at + m.sparseMetaOffset(k, n);
    KSplit chunks = m.split(k);
    for (int c = 0; c < chunks.count(); c++) {
      int k0 = chunks.start(c);
      byte[][] packed = SparseWeights.compress(java.util.Arrays.copyOfRange(q, k0, k0 + chunks.length(c)), 2, 4);
      int v = packed.length / 2;
      for (int i = 0; i < v && !streamedOnly; i++) {
        System.arraycopy(packed[i], 0, image, (int) (at + (long) (k0 / 2 + i) * stride), n);
        long row = meta + (long) (k0 / 2 + i) * metaStride;
        for (int col = 0; col < n; col++) {
          int a = (int) (row + col / 2);
          int pos = packed[v + i][col] & 0x0F;
          image[a] = (byte) (col % 2 == 0 ? (image[a] & 0xF0) | pos : (image[a] & 0x0F) | pos << 4);
        }
      }
      // the streamed layout of the chunk: its value rows, then the positions packed four a byte
      byte[][] rowsStreamed = org.llmnpu.isa.StreamedWeights.compressPacked(
          java.util.Arrays.copyOfRange(q, k0, k0 + chunks.length(c)), 2, 4);
      long chunkAt = (streamedOnly ? at : m.streamedSparse(at)) + m.streamedSparseOffset(k, n, c);
      for (int r = 0; r < rowsStreamed.length; r++) {
        System.arraycopy(rowsStreamed[r], 0, image, (int) (chunkAt + (long) r * stride), n);
      }
    }
  }

  private void putVector(long at, float[] v) {
    for (int i = 0; i < v.length; i++) {
      putHalf(at + 2L * i, v[i]);
    }
  }

  private void putHalf(long at, float v) {
    short h = Fp16.fromFloat(v);
    image[(int) at] = (byte) h;
    image[(int) at + 1] = (byte) (h >>> 8);
  }

}
