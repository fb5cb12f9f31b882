package org.llmnpu.sw.compress;

import java.util.ArrayList;
import java.util.List;
import org.llmnpu.numerics.quant.ClipCalibrator;
import org.llmnpu.numerics.quant.QuantScheme;
import org.llmnpu.numerics.quant.QuantizedMatrix;
import org.llmnpu.numerics.quant.WeightQuantizer;
import org.llmnpu.numerics.sparse.NmCompressedMatrix;
import org.llmnpu.numerics.sparse.NmPattern;
import org.llmnpu.numerics.sparse.NmPruner;
import org.llmnpu.sw.model.BlockKernels;
import org.llmnpu.sw.model.DenseKvCache;
import org.llmnpu.sw.model.LayerWeights;
import org.llmnpu.sw.model.ModelWeights;
import org.llmnpu.sw.model.Ops;
import org.llmnpu.sw.model.Transformer;

/**
 * Applies a {@link CompressionSpec} to every projection matrix of a model using the golden numerics
 * of {@code org.llmnpu.numerics} (the same code the RTL tests check against).
 *
 * <p>Storage accounting: dense quantized matrices take {@link QuantizedMatrix#storageBytes()}; a
 * pruned matrix is stored in the N:M compressed layout (N of M values plus {@code indexBits} per kept
 * value) at the quantized width, or FP16 when not quantized; FP32 is 4 bytes per weight.
 *
 * <p>Calibration: the inputs of each matrix are recorded while the FP32 model runs a calibration
 * sequence, and {@link ClipCalibrator} picks per-channel clip ratios on them.
 */
public final class ModelCompressor {

    private ModelCompressor() {
    }

    public static CompressedModel compress(ModelWeights model, CompressionSpec spec, int[] calibrationTokens) {
        LayerWeights[] out = new LayerWeights[model.layers().length];
        long bytes = 0;
        long fp32 = 0;
        List<float[][][]> inputs = spec.calibrate() && spec.quant().isPresent()
                ? recordInputs(model, calibrationTokens) : null;
        for (int l = 0; l < out.length; l++) {
            LayerWeights w = model.layers()[l];
            float[][][] mats = w.projections();
            float[][][] compressed = new float[mats.length][][];
            for (int m = 0; m < mats.length; m++) {
                float[][] samples = inputs == null ? null : inputs.get(l)[inputOf(m)];
                MatrixResult r = compressMatrix(mats[m], spec, samples);
                compressed[m] = r.weights;
                bytes += r.bytes;
                fp32 += 4L * mats[m].length * mats[m][0].length;
            }
            out[l] = new LayerWeights(w.attnNorm(), compressed[0], compressed[1], compressed[2], compressed[3],
                    w.ffnNorm(), compressed[4], compressed[5], compressed[6]);
        }
        return new CompressedModel(spec, model.withLayers(out), bytes, fp32);
    }

    private record MatrixResult(float[][] weights, long bytes) {
    }

    private static MatrixResult compressMatrix(float[][] w, CompressionSpec spec, float[][] samples) {
        float[][] pruned = spec.sparsity().map(p -> NmPruner.prune(w, p)).orElse(w);
        long rows = w.length;
        long cols = w[0].length;
        if (spec.mx().isPresent()) {
            float[][] q = MxWeights.quantizeDequantize(pruned, spec.mx().get());
            long bytes = MxWeights.storageBytes((int) rows, (int) cols, spec.mx().get());
            if (spec.sparsity().isPresent()) {
                NmPattern p = spec.sparsity().get();
                bytes = bytes - (rows * cols * spec.mx().get().bits() + 7) / 8 + sparseBytes(rows, cols, p, spec.mx().get().bits());
            }
            return new MatrixResult(q, bytes);
        }
        if (spec.quant().isEmpty()) {
            long bytes = spec.sparsity().map(p -> sparseBytes(rows, cols, p, 16)).orElse(4 * rows * cols);
            return new MatrixResult(pruned, bytes);
        }
        QuantScheme scheme = spec.quant().get();
        QuantizedMatrix q = samples != null
                ? ClipCalibrator.calibrate(pruned, samples, scheme)
                : WeightQuantizer.quantize(pruned, scheme);
        long bytes = q.storageBytes();
        if (spec.sparsity().isPresent()) {
            NmPattern p = spec.sparsity().get();
            long denseCodes = (rows * cols * scheme.bits() + 7) / 8;
            bytes = bytes - denseCodes + sparseBytes(rows, cols, p, scheme.bits());
            if (scheme.bits() == 8 && scheme.symmetric()) {
                bytes = NmCompressedMatrix.compress(codesOf(q), p).storageBytes() + (q.storageBytes() - denseCodes);
            }
        }
        return new MatrixResult(q.dequantize(), bytes);
    }

    private static long sparseBytes(long rows, long cols, NmPattern p, int valueBits) {
        long kept = rows * cols / p.m() * p.n();
        return (kept * valueBits + 7) / 8 + rows * NmCompressedMatrix.rowIndexBytes((int) cols, p);
    }

    private static byte[][] codesOf(QuantizedMatrix q) {
        byte[][] codes = new byte[q.rows()][q.cols()];
        for (int r = 0; r < q.rows(); r++) {
            for (int c = 0; c < q.cols(); c++) {
                codes[r][c] = (byte) q.code(r, c);
            }
        }
        return codes;
    }

    /** Which recorded input feeds projection m: 0 attention input, 1 wo input, 2 FFN input, 3 w2 input. */
    private static int inputOf(int m) {
        return switch (m) {
            case 0, 1, 2 -> 0;
            case 3 -> 1;
            case 4, 6 -> 2;
            default -> 3;
        };
    }

    /** Per layer: [4][tokens][width] inputs of the projections while the FP32 model runs the tokens. */
    static List<float[][][]> recordInputs(ModelWeights model, int[] tokens) {
        if (tokens == null || tokens.length == 0) {
            throw new IllegalArgumentException("calibration needs at least one token");
        }
        var c = model.config();
        List<float[][][]> perLayer = new ArrayList<>();
        for (int l = 0; l < c.layers(); l++) {
            perLayer.add(new float[4][tokens.length][]);
        }
        DenseKvCache kv = new DenseKvCache(c, tokens.length);
        float[] attention = new float[c.dim()];
        for (int pos = 0; pos < tokens.length; pos++) {
            float[] x = BlockKernels.embed(model, tokens[pos]);
            for (int l = 0; l < c.layers(); l++) {
                LayerWeights w = model.layers()[l];
                float[][][] rec = perLayer.get(l);
                rec[0][pos] = Ops.rmsNorm(x, w.attnNorm(), c.normEps());
                BlockKernels.Qkv qkv = BlockKernels.attentionInputs(c, w, x, pos);
                kv.write(l, pos, qkv.k(), qkv.v());
                kv.attend(l, qkv.q(), pos, attention);
                rec[1][pos] = attention.clone();
                float[] beforeFfn = x.clone();
                float[] proj = Ops.matvec(w.wo(), attention);
                for (int i = 0; i < beforeFfn.length; i++) {
                    beforeFfn[i] += proj[i];
                }
                float[] xb = Ops.rmsNorm(beforeFfn, w.ffnNorm(), c.normEps());
                rec[2][pos] = xb;
                float[] gate = Ops.matvec(w.w1(), xb);
                float[] up = Ops.matvec(w.w3(), xb);
                for (int i = 0; i < gate.length; i++) {
                    gate[i] = Ops.silu(gate[i]) * up[i];
                }
                rec[3][pos] = gate;
                BlockKernels.finishBlock(c, w, x, attention);
            }
        }
        return perLayer;
    }

    /** Convenience: the model executor over the compressed weights. */
    public static Transformer executor(CompressedModel m) {
        return new Transformer(m.effectiveWeights());
    }
}
