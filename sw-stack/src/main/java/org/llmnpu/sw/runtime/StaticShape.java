package org.llmnpu.sw.runtime;

/**
 * The two static graph shapes: prompts are padded to {@code slp} tokens, and the decode graph's KV and
 * mask span {@code slp + slr} slots ({@code slr} = the most tokens a response may add).
 */
public record StaticShape(int slp, int slr) {

    public StaticShape {
        if (slp < 1) {
            throw new IllegalArgumentException("slp must be >= 1, got " + slp);
        }
        if (slr < 1) {
            throw new IllegalArgumentException("slr must be >= 1, got " + slr);
        }
    }

    public int kvCapacity() {
        return slp + slr;
    }

    /** Parses {@code slp=64,slr=128}. */
    public static StaticShape parse(String text) {
        int slp = -1;
        int slr = -1;
        for (String part : text.split(",")) {
            String[] kv = part.trim().split("=");
            if (kv.length != 2) {
                throw new IllegalArgumentException("static must look like slp=64,slr=128, got '" + text + "'");
            }
            try {
                switch (kv[0]) {
                    case "slp" -> slp = Integer.parseInt(kv[1]);
                    case "slr" -> slr = Integer.parseInt(kv[1]);
                    default -> throw new IllegalArgumentException("static takes slp and slr, got '" + kv[0] + "'");
                }
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("static " + kv[0] + " must be an integer, got '" + kv[1] + "'");
            }
        }
        if (slp < 0 || slr < 0) {
            throw new IllegalArgumentException("static needs both slp and slr, got '" + text + "'");
        }
        return new StaticShape(slp, slr);
    }
}
