package org.llmnpu.sw.spec;

import java.io.IOException;
import java.nio.file.Path;
import org.llmnpu.sw.compress.CompressedModel;
import org.llmnpu.sw.compress.CompressionSpec;
import org.llmnpu.sw.compress.ModelCompressor;
import org.llmnpu.sw.io.Llama2cCheckpoint;
import org.llmnpu.sw.model.ModelWeights;
import org.llmnpu.sw.model.Transformer;

/**
 * Builds the draft model a {@link DraftSpec} names, with its cost relative to the target. The cost
 * ratio {@code c} is the draft's projection-weight bytes over the target's FP32 projection bytes:
 * decode on a bandwidth-bound NPU costs about the weight bytes it reads.
 */
public final class DraftFactory {

    /** A draft executor and its cost ratio c. */
    public record Draft(Transformer model, double costRatio, String description) {
    }

    private DraftFactory() {
    }

    public static Draft build(DraftSpec spec, ModelWeights target, int[] calibrationTokens) throws IOException {
        long targetBytes = 4L * target.projectionParameters();
        switch (spec.kind()) {
            case "skip" -> {
                int skip = parseSkip(spec.argument(), target.config().layers());
                boolean[] active = skippedLayers(target.config().layers(), skip);
                return new Draft(new Transformer(target, active), (target.config().layers() - skip) / (double) target.config().layers(),
                        "target with " + skip + " of " + target.config().layers() + " layers skipped");
            }
            case "file" -> {
                ModelWeights w = Llama2cCheckpoint.read(Path.of(spec.argument()));
                return new Draft(new Transformer(w), 4.0 * w.projectionParameters() / targetBytes,
                        "separate model " + spec.argument());
            }
            default -> {
                CompressedModel m = ModelCompressor.compress(target, CompressionSpec.parse(spec.argument(), true), calibrationTokens);
                return new Draft(new Transformer(m.effectiveWeights()), m.projectionBytes() / (double) targetBytes,
                        "target compressed to " + m.spec());
            }
        }
    }

    private static int parseSkip(String arg, int layers) {
        try {
            int skip = Integer.parseInt(arg);
            if (skip < 1 || skip > layers - 1) {
                throw new IllegalArgumentException("skip must be in 1.." + (layers - 1) + " layers, got " + skip);
            }
            return skip;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("draft=skipN needs an integer N, got 'skip" + arg + "'");
        }
    }

    /**
     * Skips {@code skip} layers spread evenly over the interior of the stack (the first and last
     * layers matter most, so they are kept while possible).
     */
    public static boolean[] skippedLayers(int layers, int skip) {
        boolean[] active = new boolean[layers];
        java.util.Arrays.fill(active, true);
        int interior = layers - 2;
        for (int i = 0; i < skip; i++) {
            int layer = interior >= skip ? 1 + (int) ((i + 0.5) * interior / skip) : layers - 1 - i;
            active[layer] = false;
        }
        return active;
    }
}
