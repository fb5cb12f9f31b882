package org.llmnpu.sw.spec;

/**
 * Outcome of a speculative run: the tokens, how many target passes produced them, and how many
 * drafted tokens were proposed and accepted. The acceptance rate {@code α = accepted / drafted};
 * {@link #tokensPerPass()} counts every emitted token (accepted drafts plus the corrected or bonus
 * token), the convention of {@code (1 − α^(γ+1)) / (1 − α)}.
 */
public record SpeculativeResult(int[] tokens, int gamma, int targetPasses, long drafted, long accepted, double seconds) {

    public double acceptanceRate() {
        return drafted == 0 ? 0 : accepted / (double) drafted;
    }

    /** Mean accepted draft tokens per target pass. */
    public double acceptedPerPass() {
        return accepted / (double) targetPasses;
    }

    /** Mean tokens emitted per target pass, before truncation to the requested length. */
    public double tokensPerPass() {
        return (accepted + targetPasses) / (double) targetPasses;
    }

    /** {@code (1 − α^(γ+1)) / (1 − α)}: expected tokens per target pass under i.i.d. acceptance. */
    public static double expectedTokensPerPass(double alpha, int gamma) {
        return alpha >= 1 ? gamma + 1 : (1 - Math.pow(alpha, gamma + 1)) / (1 - alpha);
    }

    /** {@code (1 − α^(γ+1)) / ((1 − α)(γc + 1))}: expected walltime speedup with draft/target cost ratio c. */
    public static double expectedSpeedup(double alpha, int gamma, double costRatio) {
        return expectedTokensPerPass(alpha, gamma) / (gamma * costRatio + 1);
    }
}
