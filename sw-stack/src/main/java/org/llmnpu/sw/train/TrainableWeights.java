package org.llmnpu.sw.train;

import java.util.ArrayList;
import java.util.List;
import org.llmnpu.sw.model.LayerWeights;
import org.llmnpu.sw.model.ModelConfig;
import org.llmnpu.sw.model.ModelWeights;

/**
 * A model's weights in double precision, as training reads and updates them (and, with the same shapes, as the
 * gradients are accumulated). Layouts follow {@link ModelWeights}: matrices [out][in]; {@code projections[l][m]}
 * holds layer l's matrix m in the order of {@link LayerWeights#PROJECTION_NAMES} (wq, wk, wv, wo, w1, w2, w3).
 * A model whose LM head is its embedding (the same array, as llama2.c stores shared weights) stays tied: both
 * names refer to one matrix, whose gradient sums both uses.
 */
public final class TrainableWeights {

    public final ModelConfig config;
    public final double[][] embedding;
    public final double[][] attnNorm;
    public final double[][] ffnNorm;
    public final double[][][][] projections;
    public final double[] finalNorm;
    public final double[][] lmHead;

    private TrainableWeights(ModelConfig config, double[][] embedding, double[][] attnNorm, double[][] ffnNorm,
                             double[][][][] projections, double[] finalNorm, double[][] lmHead) {
        this.config = config;
        this.embedding = embedding;
        this.attnNorm = attnNorm;
        this.ffnNorm = ffnNorm;
        this.projections = projections;
        this.finalNorm = finalNorm;
        this.lmHead = lmHead;
    }

    /** A double copy of {@code w}. */
    public static TrainableWeights of(ModelWeights w) {
        ModelConfig c = w.config();
        int layers = c.layers();
        double[][] attn = new double[layers][];
        double[][] ffn = new double[layers][];
        double[][][][] proj = new double[layers][][][];
        for (int l = 0; l < layers; l++) {
            LayerWeights lw = w.layers()[l];
            attn[l] = toDouble(lw.attnNorm());
            ffn[l] = toDouble(lw.ffnNorm());
            float[][][] mats = lw.projections();
            proj[l] = new double[mats.length][][];
            for (int m = 0; m < mats.length; m++) {
                proj[l][m] = toDouble(mats[m]);
            }
        }
        double[][] emb = toDouble(w.tokenEmbedding());
        double[][] head = w.lmHead() == w.tokenEmbedding() ? emb : toDouble(w.lmHead());
        return new TrainableWeights(c, emb, attn, ffn, proj, toDouble(w.finalNorm()), head);
    }

    /** Zeros of the same shapes (and the same tying): a gradient accumulator. */
    public TrainableWeights zerosLike() {
        int layers = config.layers();
        double[][][][] proj = new double[layers][][][];
        for (int l = 0; l < layers; l++) {
            proj[l] = new double[projections[l].length][][];
            for (int m = 0; m < proj[l].length; m++) {
                proj[l][m] = new double[projections[l][m].length][projections[l][m][0].length];
            }
        }
        double[][] emb = new double[embedding.length][embedding[0].length];
        double[][] head = isTied() ? emb : new double[lmHead.length][lmHead[0].length];
        return new TrainableWeights(config, emb, new double[layers][attnNorm[0].length], new double[layers][ffnNorm[0].length],
                proj, new double[finalNorm.length], head);
    }

    /** A copy that shares every array except the projection matrices, which {@code replace} may swap. */
    public TrainableWeights withProjections(double[][][][] replace) {
        return new TrainableWeights(config, embedding, attnNorm, ffnNorm, replace, finalNorm, lmHead);
    }

    public boolean isTied() {
        return lmHead == embedding;
    }

    /** Every row of every tensor once (tied matrices once), in a fixed order: what an optimizer updates. */
    public List<double[]> rows() {
        List<double[]> out = new ArrayList<>();
        addRows(out, embedding);
        for (int l = 0; l < config.layers(); l++) {
            out.add(attnNorm[l]);
            out.add(ffnNorm[l]);
            for (double[][] m : projections[l]) {
                addRows(out, m);
            }
        }
        out.add(finalNorm);
        if (!isTied()) {
            addRows(out, lmHead);
        }
        return out;
    }

    /** The rows of the projection matrices only, in layer order then {@code wq … w3}. */
    public List<double[]> projectionRows() {
        List<double[]> out = new ArrayList<>();
        for (double[][][] layer : projections) {
            for (double[][] m : layer) {
                addRows(out, m);
            }
        }
        return out;
    }

    /** Adds {@code other} element-wise into this (gradient reduction). */
    public void add(TrainableWeights other) {
        List<double[]> mine = rows();
        List<double[]> theirs = other.rows();
        for (int i = 0; i < mine.size(); i++) {
            double[] a = mine.get(i);
            double[] b = theirs.get(i);
            for (int j = 0; j < a.length; j++) {
                a[j] += b[j];
            }
        }
    }

    /** Back to float32 weights (rounded to nearest); a tied model stays tied. */
    public ModelWeights toModelWeights() {
        LayerWeights[] layers = new LayerWeights[config.layers()];
        for (int l = 0; l < layers.length; l++) {
            double[][][] p = projections[l];
            layers[l] = new LayerWeights(toFloat(attnNorm[l]), toFloat(p[0]), toFloat(p[1]), toFloat(p[2]), toFloat(p[3]),
                    toFloat(ffnNorm[l]), toFloat(p[4]), toFloat(p[5]), toFloat(p[6]));
        }
        float[][] emb = toFloat(embedding);
        return new ModelWeights(config, emb, layers, toFloat(finalNorm), isTied() ? emb : toFloat(lmHead));
    }

    private static void addRows(List<double[]> out, double[][] m) {
        for (double[] row : m) {
            out.add(row);
        }
    }

    static double[] toDouble(float[] v) {
        double[] out = new double[v.length];
        for (int i = 0; i < v.length; i++) {
            out[i] = v[i];
        }
        return out;
    }

    static double[][] toDouble(float[][] m) {
        double[][] out = new double[m.length][];
        for (int r = 0; r < m.length; r++) {
            out[r] = toDouble(m[r]);
        }
        return out;
    }

    static float[] toFloat(double[] v) {
        float[] out = new float[v.length];
        for (int i = 0; i < v.length; i++) {
            out[i] = (float) v[i];
        }
        return out;
    }

    static float[][] toFloat(double[][] m) {
        float[][] out = new float[m.length][];
        for (int r = 0; r < m.length; r++) {
            out[r] = toFloat(m[r]);
        }
        return out;
    }
}
