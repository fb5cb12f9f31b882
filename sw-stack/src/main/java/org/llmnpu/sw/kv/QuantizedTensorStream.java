package org.llmnpu.sw.kv;

import java.util.ArrayList;
import java.util.List;
import org.llmnpu.numerics.quant.Fp16Rounding;
import org.llmnpu.numerics.quant.MinMaxGroupQuantizer;

/**
 * One head's keys or values as a growing sequence of rows ({@code width} channels each), stored the way
 * a quantized KV cache stores them: the most recent tokens in an FP16 residual window, older tokens as
 * asymmetric min–max codes with FP16 scale and minimum per group (golden numerics from
 * {@link MinMaxGroupQuantizer}). Readers see the dequantized rows. With {@code bits == 0} nothing is
 * quantized and rows are kept exactly (FP32 reference).
 *
 * <p>Per-channel mode: when the window holds {@code residual} tokens they are quantized at once, each
 * channel in groups of {@code groupSize} consecutive tokens. Per-token mode: when the window exceeds
 * {@code residual} tokens the oldest is quantized, in groups of {@code groupSize} consecutive channels;
 * a group larger than the head (e.g. g32 on stories260K's 8-wide heads) or not dividing it leaves a
 * shorter last group with its own scale and minimum.
 */
final class QuantizedTensorStream {

    private final int width;
    private final int bits;
    private final int groupSize;
    private final int residual;
    private final boolean perChannel;
    private final List<float[]> rows = new ArrayList<>();
    private int quantizedRows;
    private long quantizedBits;
    /** How many recent appends can be undone (speculative rollback). */
    static final int UNDO_DEPTH = 64;
    /** Per recent append: the exact rows it quantized, so a rollback restores them. */
    private final java.util.ArrayDeque<Undo> undo = new java.util.ArrayDeque<>();

    /** What one append changed: rows {@code from..} replaced by their quantized values, bits added. */
    private record Undo(int from, float[][] exactRows, long bits) {
    }

    QuantizedTensorStream(int width, int bits, int groupSize, int residual, boolean perChannel) {
        this.width = width;
        this.bits = bits;
        this.groupSize = groupSize;
        this.residual = residual;
        this.perChannel = perChannel;
    }

    static QuantizedTensorStream exact(int width) {
        return new QuantizedTensorStream(width, 0, 1, 1, false);
    }

    void append(float[] row) {
        if (bits == 0) {
            rows.add(row.clone());
            return;
        }
        float[] r = new float[width];
        for (int i = 0; i < width; i++) {
            r[i] = Fp16Rounding.round(row[i]);
        }
        rows.add(r);
        int window = rows.size() - quantizedRows;
        int from = quantizedRows;
        long bitsBefore = quantizedBits;
        int count = perChannel && window == residual ? residual : !perChannel && window > residual ? 1 : 0;
        float[][] exact = new float[count][];
        for (int i = 0; i < count; i++) {
            exact[i] = rows.get(from + i).clone();
        }
        if (perChannel && count > 0) {
            quantizeBlock(from, residual);
        } else if (count > 0) {
            quantizeToken(from);
        }
        undo.addLast(new Undo(from, exact, quantizedBits - bitsBefore));
        if (undo.size() > UNDO_DEPTH) {
            undo.removeFirst();
        }
    }

    private void quantizeBlock(int from, int count) {
        float[] column = new float[groupSize];
        for (int c = 0; c < width; c++) {
            for (int g = from; g < from + count; g += groupSize) {
                for (int t = 0; t < groupSize; t++) {
                    column[t] = rows.get(g + t)[c];
                }
                MinMaxGroupQuantizer.Group q = MinMaxGroupQuantizer.quantize(column, bits);
                for (int t = 0; t < groupSize; t++) {
                    rows.get(g + t)[c] = q.dequantize(t);
                }
                quantizedBits += q.storageBits();
            }
        }
        quantizedRows += count;
    }

    private void quantizeToken(int index) {
        float[] row = rows.get(index);
        for (int g = 0; g < width; g += groupSize) {
            MinMaxGroupQuantizer.Group q = MinMaxGroupQuantizer.quantize(row, g, 1, Math.min(groupSize, width - g), bits);
            MinMaxGroupQuantizer.dequantize(q, row, g, 1);
            quantizedBits += q.storageBits();
        }
        quantizedRows++;
    }

    int size() {
        return rows.size();
    }

    /** How many of the newest appends {@link #dropNewest} can undo. */
    int undoableAppends() {
        return bits == 0 ? rows.size() : undo.size();
    }

    /**
     * Undoes the newest {@code count} appends exactly: the rows they added are removed and the
     * rows their arrival pushed out of the FP16 window get their exact values back, as if those
     * tokens had never been appended.
     */
    void dropNewest(int count) {
        if (count > undoableAppends()) {
            throw new IllegalArgumentException("cannot undo " + count + " appends: at most " + undoableAppends()
                    + " (the last " + UNDO_DEPTH + " appends are remembered)");
        }
        for (int i = 0; i < count; i++) {
            if (bits != 0) {
                Undo u = undo.removeLast();
                for (int r = 0; r < u.exactRows().length; r++) {
                    rows.set(u.from() + r, u.exactRows()[r]);
                }
                quantizedRows = u.from();
                quantizedBits -= u.bits();
            }
            rows.remove(rows.size() - 1);
        }
    }

    float[] row(int i) {
        return rows.get(i);
    }

    /** Bytes a decode step reads: quantized codes and metadata, FP16 residual (FP16 for all when exact). */
    long bytes() {
        long residualRows = rows.size() - quantizedRows;
        return (quantizedBits + 7) / 8 + residualRows * width * 2L;
    }
}
