package org.llmnpu.sw.spec;

import java.util.Locale;

/**
 * Which draft model speculative decoding uses and how many tokens it proposes per step:
 * {@code draft=int4,gamma=4} — the target compressed harder ({@code int8}, {@code int4-g32},
 * {@code int4+2:4}, any {@link org.llmnpu.sw.compress.CompressionSpec}); {@code draft=skip2} — the
 * target with 2 of its layers skipped; {@code draft=file:path.bin} — a separate (smaller) model from a
 * llama2.c checkpoint with the same vocabulary.
 */
public record DraftSpec(String kind, String argument, int gamma) {

    public DraftSpec {
        if (gamma < 1 || gamma > 16) {
            throw new IllegalArgumentException("gamma must be in 1..16, got " + gamma);
        }
    }

    public static DraftSpec parse(String text) {
        String draft = null;
        int gamma = 4;
        for (String part : text.split(",")) {
            String[] kv = part.trim().split("=", 2);
            if (kv.length != 2) {
                throw new IllegalArgumentException("speculative must look like draft=int4,gamma=4, got '" + text + "'");
            }
            switch (kv[0].toLowerCase(Locale.ROOT)) {
                case "draft" -> draft = kv[1];
                case "gamma" -> {
                    try {
                        gamma = Integer.parseInt(kv[1]);
                    } catch (NumberFormatException e) {
                        throw new IllegalArgumentException("gamma must be an integer in 1..16, got '" + kv[1] + "'");
                    }
                }
                default -> throw new IllegalArgumentException("speculative takes draft and gamma, got '" + kv[0] + "'");
            }
        }
        if (draft == null) {
            throw new IllegalArgumentException("speculative needs draft=<int4|int8|int4+2:4|skipN|file:path>, got '" + text + "'");
        }
        if (draft.startsWith("file:")) {
            return new DraftSpec("file", draft.substring(5), gamma);
        }
        if (draft.startsWith("skip")) {
            return new DraftSpec("skip", draft.substring(4), gamma);
        }
        return new DraftSpec("compressed", draft, gamma);
    }

    @Override
    public String toString() {
        String d = switch (kind) {
            case "file" -> "file:" + argument;
            case "skip" -> "skip" + argument;
            default -> argument;
        };
        return "draft=" + d + ",gamma=" + gamma;
    }
}
