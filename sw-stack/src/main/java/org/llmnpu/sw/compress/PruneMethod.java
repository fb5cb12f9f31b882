package org.llmnpu.sw.compress;

import java.util.Locale;

/**
 * How N:M pruning chooses the kept weights:
 * <ul>
 *   <li>{@code magnitude} — the N largest {@code |w|} of each group (baseline, needs no data);</li>
 *   <li>{@code wanda} — the N largest {@code |w_ij|·‖x_j‖₂} (Wanda: weight times the calibration norm of
 *       its input channel), no weight update;</li>
 *   <li>{@code sparsegpt} — SparseGPT: columns processed left to right with the inverse Hessian
 *       {@code (2XᵀX/n + λI)⁻¹} of the calibration inputs; each group's mask keeps the N smallest
 *       saliencies {@code w²/[U]_jj²} removed, and every pruned (or quantized) weight's error is
 *       compensated on the not yet processed columns ({@link ObsCompressor}).</li>
 * </ul>
 */
public enum PruneMethod {
    MAGNITUDE, WANDA, SPARSEGPT;

    public static PruneMethod parse(String text) {
        return switch (text.trim().toLowerCase(Locale.ROOT)) {
            case "magnitude" -> MAGNITUDE;
            case "wanda" -> WANDA;
            case "sparsegpt" -> SPARSEGPT;
            default -> throw new IllegalArgumentException("prune method must be magnitude, wanda or sparsegpt, got '" + text + "'");
        };
    }

    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }
}
