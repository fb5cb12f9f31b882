package org.llmnpu.sw.compress;

import java.util.Optional;
import org.llmnpu.numerics.mx.MxElementType;
import org.llmnpu.numerics.quant.QuantScheme;
import org.llmnpu.numerics.sparse.NmPattern;

/**
 * How the projection matrices of every block are compressed: optional N:M pruning along K (applied
 * first; {@link PruneMethod} magnitude, Wanda or SparseGPT), then either integer quantization
 * ({@link QuantMethod} min–max, clip-calibrated or GPTQ; scales over the kept weights; pruned zeros stay
 * exactly zero) or OCP MX block quantization ({@link MxWeights}). Token embedding, norms and LM head
 * stay FP32, as deployed low-bit models usually keep them.
 *
 * <p>Text form: {@code int4-g32}, {@code 2:4}, {@code int4-g32+2:4}, {@code mxfp4}, {@code s2_4} (= {@code int8+2:4},
 * the NPU lowering's 2:4 format); a method is appended
 * with {@code @}: {@code int4-g32@gptq}, {@code 2:4@sparsegpt}, {@code int4-g32@gptq+4:8@wanda}.
 */
public record CompressionSpec(Optional<QuantScheme> quant, Optional<MxElementType> mx, Optional<NmPattern> sparsity,
                              QuantMethod quantMethod, PruneMethod pruneMethod) {

    public CompressionSpec {
        if (quant.isPresent() && mx.isPresent()) {
            throw new IllegalArgumentException("quant takes one format: an INT scheme or an MX format, not both");
        }
    }

    /** The earlier form: {@code calibrate} chooses clip calibration over min–max; magnitude pruning. */
    public CompressionSpec(Optional<QuantScheme> quant, Optional<MxElementType> mx, Optional<NmPattern> sparsity,
                           boolean calibrate) {
        this(quant, mx, sparsity, calibrate ? QuantMethod.CLIP : QuantMethod.MINMAX, PruneMethod.MAGNITUDE);
    }

    public static CompressionSpec none() {
        return new CompressionSpec(Optional.empty(), Optional.empty(), Optional.empty(), QuantMethod.MINMAX, PruneMethod.MAGNITUDE);
    }

    /** Parses the text form; {@code calibrate} picks clip (else min–max) where no {@code @method} is given. */
    public static CompressionSpec parse(String text, boolean calibrate) {
        return parse(text, calibrate ? QuantMethod.CLIP : QuantMethod.MINMAX, PruneMethod.MAGNITUDE);
    }

    /** Parses the text form with these default methods (an {@code @method} in the text wins). */
    public static CompressionSpec parse(String text, QuantMethod defaultQuant, PruneMethod defaultPrune) {
        Optional<QuantScheme> q = Optional.empty();
        Optional<MxElementType> mx = Optional.empty();
        Optional<NmPattern> s = Optional.empty();
        QuantMethod qm = defaultQuant;
        PruneMethod pm = defaultPrune;
        for (String raw : text.trim().split("\\+")) {
            String part = raw.trim();
            String method = null;
            int at = part.indexOf('@');
            if (at >= 0) {
                method = part.substring(at + 1);
                part = part.substring(0, at);
            }
            if (part.equals("fp32") || part.isEmpty()) {
                if (method != null) {
                    throw new IllegalArgumentException("fp32 takes no method, got '" + raw + "'");
                }
                continue;
            }
            if (part.equals("s2_4")) {
                // the NPU lowering's 2:4 format: INT8 per channel over 2:4-pruned weights
                q = Optional.of(QuantScheme.parse("int8"));
                s = Optional.of(NmPattern.TWO_FOUR);
                if (method != null) {
                    pm = PruneMethod.parse(method);
                }
            } else if (part.contains(":")) {
                s = Optional.of(NmPattern.parse(part));
                if (method != null) {
                    pm = PruneMethod.parse(method);
                }
            } else if (part.startsWith("mx")) {
                mx = Optional.of(MxWeights.parse(part));
                if (method != null) {
                    throw new IllegalArgumentException("MX formats take no method (power-of-two block scales), got '" + raw + "'");
                }
            } else {
                q = Optional.of(quantScheme(part));
                if (method != null) {
                    qm = QuantMethod.parse(method);
                }
            }
        }
        return new CompressionSpec(q, mx, s, qm, pm);
    }

    /** Allowed weight formats, for error messages. */
    public static final String FORMATS = "fp32, an INT scheme (int8, int4-g32, int4-g32-asym, intB[-gG][-asym]), an MX format "
            + "(mxfp8, mxfp8-e5m2, mxfp6, mxfp6-e3m2, mxfp4, mxint8), N:M pruning (2:4, 4:8) or s2_4 (= int8+2:4), joined by +";

    private static QuantScheme quantScheme(String part) {
        try {
            return QuantScheme.parse(part);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("weights must be " + FORMATS + ", got '" + part + "'");
        }
    }

    /** True if the INT scales use calibration data (clip or GPTQ). */
    public boolean calibrate() {
        return quantMethod != QuantMethod.MINMAX;
    }

    /** True if compressing needs activations recorded on the calibration set. */
    public boolean needsCalibration() {
        return (quant.isPresent() && quantMethod != QuantMethod.MINMAX)
                || (sparsity.isPresent() && pruneMethod != PruneMethod.MAGNITUDE);
    }

    public boolean isNone() {
        return quant.isEmpty() && mx.isEmpty() && sparsity.isEmpty();
    }

    /** The text form without methods, e.g. {@code int4-g32+2:4}. */
    public String formats() {
        if (isNone()) {
            return "fp32";
        }
        String q = quant.map(QuantScheme::toString).orElse(mx.map(MxWeights::name).orElse(""));
        String s = sparsity.map(NmPattern::toString).orElse("");
        return q.isEmpty() ? s : s.isEmpty() ? q : q + "+" + s;
    }

    /** The text form; methods other than min–max quantization and magnitude pruning are appended with {@code @}. */
    @Override
    public String toString() {
        if (isNone()) {
            return "fp32";
        }
        String q = quant.map(x -> x + (quantMethod == QuantMethod.MINMAX ? "" : "@" + quantMethod.label()))
                .orElse(mx.map(MxWeights::name).orElse(""));
        String s = sparsity.map(x -> x + (pruneMethod == PruneMethod.MAGNITUDE ? "" : "@" + pruneMethod.label())).orElse("");
        return q.isEmpty() ? s : s.isEmpty() ? q : q + "+" + s;
    }
}
