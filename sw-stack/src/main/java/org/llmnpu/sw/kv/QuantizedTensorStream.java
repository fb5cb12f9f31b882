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
 * {@code residual} tokens the oldest is quantized, in groups of {@code groupSize} consecutive channels.
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
        if (perChannel && window == residual) {
            quantizeBlock(quantizedRows, residual);
        } else if (!perChannel && window > residual) {
            quantizeToken(quantizedRows);
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
            MinMaxGroupQuantizer.Group q = MinMaxGroupQuantizer.quantize(row, g, 1, groupSize, bits);
            MinMaxGroupQuantizer.dequantize(q, row, g, 1);
            quantizedBits += q.storageBits();
        }
        quantizedRows++;
    }

    int size() {
        return rows.size();
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
