package org.llmnpu.sw.kv;

import java.util.Locale;

/**
 * How an average KV budget {@code C} (tokens per head, window included) is spread over layers. With
 * {@code T = C − w} the part chosen by votes:
 * <ul>
 *   <li>{@link #UNIFORM}: every layer keeps {@code C};</li>
 *   <li>{@link #PYRAMID} (PyramidKV, β = 20): {@code min = T/β}, {@code max = 2T − min}, decreasing
 *       linearly from layer 0 to the last layer;</li>
 *   <li>{@link #HEAD_HEAVY}: the first half of the layers keeps {@code 1.5 T}, the second half
 *       {@code 0.5 T} (a middle layer of an odd stack keeps {@code T});</li>
 *   <li>{@link #TAIL_HEAVY}: the reverse.</li>
 * </ul>
 * Every schedule has the same average; rounding is to whole tokens.
 */
public enum BudgetSchedule {
    UNIFORM, PYRAMID, HEAD_HEAVY, TAIL_HEAVY;

    public static final double PYRAMID_BETA = 20;
    private static final double HEAVY_SHARE = 0.5;

    /** Budgets (window included) per layer. */
    public int[] budgets(int layers, int averageBudget, int window) {
        if (averageBudget <= window) {
            throw new IllegalArgumentException("budget " + averageBudget + " must exceed the observation window " + window);
        }
        double t = averageBudget - window;
        int[] out = new int[layers];
        for (int l = 0; l < layers; l++) {
            double share = switch (this) {
                case UNIFORM -> t;
                case PYRAMID -> {
                    double min = t / PYRAMID_BETA;
                    double max = 2 * t - min;
                    yield layers == 1 ? t : max - (max - min) * l / (layers - 1);
                }
                case HEAD_HEAVY -> heavy(l, layers, t, true);
                case TAIL_HEAVY -> heavy(l, layers, t, false);
            };
            out[l] = window + (int) Math.round(share);
        }
        return out;
    }

    private static double heavy(int l, int layers, double t, boolean head) {
        if (layers % 2 == 1 && l == layers / 2) {
            return t;
        }
        boolean firstHalf = l < layers / 2;
        return t * (firstHalf == head ? 1 + HEAVY_SHARE : 1 - HEAVY_SHARE);
    }

    public static BudgetSchedule parse(String text) {
        return switch (text.toLowerCase(Locale.ROOT)) {
            case "uniform" -> UNIFORM;
            case "pyramid" -> PYRAMID;
            case "head-heavy", "headheavy" -> HEAD_HEAVY;
            case "tail-heavy", "tailheavy" -> TAIL_HEAVY;
            default -> throw new IllegalArgumentException("budget schedule must be uniform, pyramid, head-heavy or tail-heavy, got '"
                    + text + "'");
        };
    }
}
