package org.llmnpu.sw.kv;

import java.util.Locale;

/**
 * SnapKV-style eviction at prefill: an observation window of the last {@code window} queries votes,
 * votes are smoothed by 1-D pooling ({@code kernel}, stride 1, padding kernel/2; average or max), and
 * each head keeps its top votes plus the window, within a per-layer budget from {@code schedule} whose
 * average is {@code budget} tokens (window included).
 */
public record EvictionConfig(int window, int kernel, boolean maxPooling, int budget, BudgetSchedule schedule) {

    public EvictionConfig {
        if (window < 1) {
            throw new IllegalArgumentException("eviction window must be >= 1, got " + window);
        }
        if (kernel < 1 || kernel % 2 == 0) {
            throw new IllegalArgumentException("pooling kernel must be odd and >= 1, got " + kernel);
        }
        if (budget <= window) {
            throw new IllegalArgumentException("eviction budget " + budget + " must exceed the window " + window);
        }
    }

    /** Parses {@code snapkv,w32,budget256,pyramid} with optional {@code k5} and {@code max}/{@code avg}. */
    public static EvictionConfig parse(String text) {
        String[] parts = text.toLowerCase(Locale.ROOT).split(",");
        if (!parts[0].trim().equals("snapkv")) {
            throw new IllegalArgumentException("evict must look like snapkv,w32,budget256,pyramid; got '" + text + "'");
        }
        int window = 32;
        int kernel = 5;
        boolean max = false;
        int budget = -1;
        BudgetSchedule schedule = BudgetSchedule.UNIFORM;
        try {
            for (int i = 1; i < parts.length; i++) {
                String p = parts[i].trim();
                if (p.startsWith("budget")) {
                    budget = Integer.parseInt(p.substring(6));
                } else if (p.startsWith("w")) {
                    window = Integer.parseInt(p.substring(1));
                } else if (p.startsWith("k")) {
                    kernel = Integer.parseInt(p.substring(1));
                } else if (p.equals("max") || p.equals("avg")) {
                    max = p.equals("max");
                } else {
                    schedule = BudgetSchedule.parse(p);
                }
            }
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("evict must look like snapkv,w32,budget256,pyramid; got '" + text + "'");
        }
        if (budget < 0) {
            throw new IllegalArgumentException("evict needs a budget, e.g. snapkv,w32,budget256; got '" + text + "'");
        }
        return new EvictionConfig(window, kernel, max, budget, schedule);
    }

    @Override
    public String toString() {
        return "snapkv,w" + window + ",k" + kernel + (maxPooling ? ",max" : ",avg") + ",budget" + budget + ","
                + schedule.name().toLowerCase(Locale.ROOT).replace('_', '-');
    }
}
