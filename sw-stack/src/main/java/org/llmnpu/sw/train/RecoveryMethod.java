package org.llmnpu.sw.train;

import java.util.Locale;

/**
 * How a pruned model is fine-tuned back towards its FP32 form ({@code --recover}):
 * <ul>
 *   <li>{@code none} — the pruned model as it is;</li>
 *   <li>{@code lora} — low-rank adapters {@code W + (α/r)·B·A} on chosen matrices, trained through the N:M mask and
 *       merged into the weights afterwards ({@link LoraAdapters});</li>
 *   <li>{@code masked} — every kept weight of the projection matrices trained, the N:M mask held fixed.</li>
 * </ul>
 */
public enum RecoveryMethod {
    NONE, LORA, MASKED;

    public static RecoveryMethod parse(String text) {
        return switch (text.trim().toLowerCase(Locale.ROOT)) {
            case "none" -> NONE;
            case "lora" -> LORA;
            case "masked" -> MASKED;
            default -> throw new IllegalArgumentException("must be none, lora or masked, got '" + text + "'");
        };
    }

    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }
}
