package org.llmnpu.sw.compress;

import java.util.Optional;
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
 * pruned matrix is stored in the N:M compressed layout (N values per group of M, the last group of a
 * ragged row padded, plus {@code indexBits} per kept value) at the quantized width, or FP16 when not
 * quantized; FP32 is 4 bytes per weight.
 *
 * <p>Calibration (clip, GPTQ, Wanda, SparseGPT): sequences of tokens, ideally sampled from the FP32 model
 * itself ({@link org.llmnpu.sw.eval.SampledSequences}). Layers are compressed in order; the inputs of
 * layer l's matrices are recorded with layers 0 … l−1 already compressed (the sequential scheme of GPTQ
 * and SparseGPT, so later layers correct for earlier layers' error).
 */
public final class ModelCompressor {

    private ModelCompressor() {
    }

    /** Compresses with one calibration sequence. */
    public static CompressedModel compress(ModelWeights model, CompressionSpec spec, int[] calibrationTokens) {
        return compress(model, spec, new int[][] {calibrationTokens});
    }

    public static CompressedModel compress(ModelWeights model, CompressionSpec spec, int[][] calibration) {
        LayerWeights[] out = model.layers().clone();
        long bytes = 0;
        long fp32 = 0;
        boolean calibrate = spec.needsCalibration();
        for (int l = 0; l < out.length; l++) {
            LayerWeights w = model.layers()[l];
            float[][][] inputs = calibrate ? recordLayerInputs(model.withLayers(out), calibration, l) : null;
            float[][][] mats = w.projections();
            float[][][] compressed = new float[mats.length][][];
            CompressionSpec matrixSpec = spec;
            if (spec.quantMethod() == QuantMethod.AWQ && spec.quant().isPresent()) {
                // prune as asked, fold the AWQ scales, then quantize min-max (pruned zeros stay zeros)
                CompressionSpec pruneOnly = new CompressionSpec(Optional.empty(), Optional.empty(), spec.sparsity(),
                        QuantMethod.MINMAX, spec.pruneMethod());
                float[][][] pruned = new float[mats.length][][];
                for (int m = 0; m < mats.length; m++) {
                    pruned[m] = compressMatrix(mats[m], pruneOnly, inputs[inputOf(m)]).weights;
                }
                w = AwqScaler.scale(model.config(), new LayerWeights(w.attnNorm(), pruned[0], pruned[1], pruned[2], pruned[3],
                        w.ffnNorm(), pruned[4], pruned[5], pruned[6]), inputs, spec.quant().get());
                mats = w.projections();
                matrixSpec = new CompressionSpec(spec.quant(), Optional.empty(), spec.sparsity(), QuantMethod.MINMAX,
                        PruneMethod.MAGNITUDE);
            }
            for (int m = 0; m < mats.length; m++) {
                float[][] samples = inputs == null ? null : inputs[inputOf(m)];
                MatrixResult r = compressMatrix(mats[m], matrixSpec, samples);
                compressed[m] = r.weights;
                bytes += r.bytes;
                fp32 += 4L * mats[m].length * mats[m][0].length;
            }
            out[l] = new LayerWeights(w.attnNorm(), compressed[0], compressed[1], compressed[2], compressed[3],
                    w.ffnNorm(), compressed[4], compressed[5], compressed[6]);
        }
        return new CompressedModel(spec, model.withLayers(out), bytes, fp32);
    }

    /** The clip grid search sees at most this many calibration inputs (evenly strided); its cost is linear in them. */
    static final int CLIP_SAMPLES = 256;

    private static float[][] strided(float[][] samples, int max) {
        if (samples.length <= max) {
            return samples;
        }
        float[][] out = new float[max][];
        for (int i = 0; i < max; i++) {
            out[i] = samples[(int) ((long) i * samples.length / max)];
        }
        return out;
    }

    private record MatrixResult(float[][] weights, long bytes) {
    }

    /** Prunes (magnitude, Wanda or SparseGPT) then quantizes one matrix; {@code samples} are its calibration inputs. */
    static MatrixResult compressMatrix(float[][] w, CompressionSpec spec, float[][] samples) {
        long rows = w.length;
        long cols = w[0].length;
        Optional<NmPattern> pattern = spec.sparsity();
        boolean gptq = spec.quant().isPresent() && spec.quantMethod() == QuantMethod.GPTQ;
        double[][] hessian = samples != null && (gptq || spec.pruneMethod() == PruneMethod.SPARSEGPT && pattern.isPresent())
                ? Hessian.of(samples) : null;
        float[][] pruned = w;
        QuantizedMatrix q = null;
        if (pattern.isPresent()) {
            pruned = switch (spec.pruneMethod()) {
                case MAGNITUDE -> NmPruner.prune(w, pattern.get());
                case WANDA -> WandaPruner.prune(w, samples, pattern.get());
                case SPARSEGPT -> {
                    // SparseGPT prunes and, with GPTQ, quantizes in the same sweep
                    ObsCompressor.Result r = ObsCompressor.run(w, hessian, pattern, false,
                            gptq ? spec.quant() : Optional.empty());
                    q = r.quantized().orElse(null);
                    yield r.weights();
                }
            };
        }
        if (spec.mx().isPresent()) {
            float[][] mq = MxWeights.quantizeDequantize(pruned, spec.mx().get());
            long bytes = MxWeights.storageBytes((int) rows, (int) cols, spec.mx().get());
            if (pattern.isPresent()) {
                bytes = bytes - (rows * cols * spec.mx().get().bits() + 7) / 8 + sparseBytes(rows, cols, pattern.get(), spec.mx().get().bits());
            }
            return new MatrixResult(mq, bytes);
        }
        if (spec.quant().isEmpty()) {
            long bytes = pattern.map(p -> sparseBytes(rows, cols, p, 16)).orElse(4 * rows * cols);
            return new MatrixResult(pruned, bytes);
        }
        QuantScheme scheme = spec.quant().get();
        if (q == null) {
            q = switch (spec.quantMethod()) {
                case MINMAX -> WeightQuantizer.quantize(pruned, scheme);
                case CLIP -> samples == null ? WeightQuantizer.quantize(pruned, scheme)
                        : ClipCalibrator.calibrate(pruned, strided(samples, CLIP_SAMPLES), scheme);
                case GPTQ -> ObsCompressor.run(pruned, hessian, Optional.empty(), pattern.isPresent(), spec.quant()).quantized().get();
                case AWQ -> throw new IllegalStateException("AWQ scales a whole block; see compress()");
            };
        }
        long bytes = q.storageBytes();
        if (pattern.isPresent()) {
            NmPattern p = pattern.get();
            long denseCodes = (rows * cols * scheme.bits() + 7) / 8;
            bytes = bytes - denseCodes + sparseBytes(rows, cols, p, scheme.bits());
            if (scheme.bits() == 8 && scheme.symmetric()) {
                bytes = NmCompressedMatrix.compress(codesOf(q), p).storageBytes() + (q.storageBytes() - denseCodes);
            }
        }
        return new MatrixResult(q.dequantize(), bytes);
    }

    private static long sparseBytes(long rows, long cols, NmPattern p, int valueBits) {
        long kept = rows * NmPruner.groupsPerRow((int) cols, p) * p.n();
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

    /**
     * The inputs of layer {@code layer}'s projections, [4][samples][width] (0: attention input, 1: wo input,
     * 2: FFN input, 3: w2 input), while {@code model} runs every calibration sequence from position 0.
     */
    static float[][][] recordLayerInputs(ModelWeights model, int[][] sequences, int layer) {
        var c = model.config();
        int total = 0;
        for (int[] seq : sequences) {
            if (seq.length == 0) {
                throw new IllegalArgumentException("calibration sequences must not be empty");
            }
            total += seq.length;
        }
        if (total == 0) {
            throw new IllegalArgumentException("calibration needs at least one token");
        }
        float[][][] rec = new float[4][total][];
        int at = 0;
        float[] attention = new float[c.dim()];
        for (int[] tokens : sequences) {
            DenseKvCache kv = new DenseKvCache(c, tokens.length);
            for (int pos = 0; pos < tokens.length; pos++, at++) {
                float[] x = BlockKernels.embed(model, tokens[pos]);
                for (int l = 0; l <= layer; l++) {
                    LayerWeights w = model.layers()[l];
                    BlockKernels.Qkv qkv = BlockKernels.attentionInputs(c, w, x, pos);
                    kv.write(l, pos, qkv.k(), qkv.v());
                    kv.attend(l, qkv.q(), pos, attention);
                    if (l == layer) {
                        rec[0][at] = Ops.rmsNorm(x, w.attnNorm(), c.normEps());
                        rec[1][at] = attention.clone();
                        float[] beforeFfn = x.clone();
                        float[] proj = Ops.matvec(w.wo(), attention);
                        for (int i = 0; i < beforeFfn.length; i++) {
                            beforeFfn[i] += proj[i];
                        }
                        float[] xb = Ops.rmsNorm(beforeFfn, w.ffnNorm(), c.normEps());
                        rec[2][at] = xb;
                        float[] gate = Ops.matvec(w.w1(), xb);
                        float[] up = Ops.matvec(w.w3(), xb);
                        for (int i = 0; i < gate.length; i++) {
                            gate[i] = Ops.silu(gate[i]) * up[i];
                        }
                        rec[3][at] = gate;
                    } else {
                        BlockKernels.finishBlock(c, w, x, attention);
                    }
                }
            }
        }
        return rec;
    }

    /** Convenience: the model executor over the compressed weights. */
    public static Transformer executor(CompressedModel m) {
        return new Transformer(m.effectiveWeights());
    }
}
