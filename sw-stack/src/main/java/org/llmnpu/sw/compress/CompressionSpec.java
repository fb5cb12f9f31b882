package org.llmnpu.sw.compress;

import java.util.Optional;
import org.llmnpu.numerics.mx.MxElementType;
import org.llmnpu.numerics.quant.QuantScheme;
import org.llmnpu.numerics.sparse.NmPattern;

/**
 * How the projection matrices of every block are compressed: optional N:M magnitude pruning along
 * K (applied first, in FP32), then either integer quantization (scales computed over the kept
 * weights; pruned zeros stay exactly zero; optionally calibrated on sample activations) or OCP MX
 * block quantization ({@link MxWeights}). Token
 * embedding, norms and LM head stay FP32, as deployed low-bit models usually keep them.
 */
public record CompressionSpec(Optional<QuantScheme> quant, Optional<MxElementType> mx, Optional<NmPattern> sparsity,
                              boolean calibrate) {

    public CompressionSpec {
        if (quant.isPresent() && mx.isPresent()) {
            throw new IllegalArgumentException("quant takes one format: an INT scheme or an MX format, not both");
        }
    }

    public static CompressionSpec none() {
        return new CompressionSpec(Optional.empty(), Optional.empty(), Optional.empty(), false);
    }

    /** Parses e.g. {@code fp32}, {@code int4-g32}, {@code 2:4}, {@code int4-g32+2:4}, {@code int8+4:8}, {@code mxfp4}. */
    public static CompressionSpec parse(String text, boolean calibrate) {
        Optional<QuantScheme> q = Optional.empty();
        Optional<MxElementType> mx = Optional.empty();
        Optional<NmPattern> s = Optional.empty();
        for (String part : text.trim().split("\\+")) {
            if (part.equals("fp32") || part.isEmpty()) {
                continue;
            }
            if (part.contains(":")) {
                s = Optional.of(NmPattern.parse(part));
            } else if (part.startsWith("mx")) {
                mx = Optional.of(MxWeights.parse(part));
            } else {
                q = Optional.of(QuantScheme.parse(part));
            }
        }
        return new CompressionSpec(q, mx, s, calibrate);
    }

    public boolean isNone() {
        return quant.isEmpty() && mx.isEmpty() && sparsity.isEmpty();
    }

    @Override
    public String toString() {
        if (isNone()) {
            return "fp32";
        }
        String q = quant.map(QuantScheme::toString).orElse(mx.map(MxWeights::name).orElse(""));
        String s = sparsity.map(NmPattern::toString).orElse("");
        return q.isEmpty() ? s : s.isEmpty() ? q : q + "+" + s;
    }
}
