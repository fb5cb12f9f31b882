package org.llmnpu.sw.bench;

import org.llmnpu.sw.model.*;

public class EntropyProbe {
    public static void main(String[] a) {
        for (ModelConfig c : new ModelConfig[] {ModelConfig.tiny(), ModelConfig.medium()}) {
            Transformer t = new Transformer(SyntheticWeights.generate(c, 42));
            long t0 = System.nanoTime();
            int[] p = SyntheticPrompts.prompt(c, 256, 1);
            var s = AttentionStatistics.measure(t, p, 16);
            System.out.printf("%s entropy %.3f sink %.3f recent %.3f  %.1f ms%n", c, s.relativeEntropy(), s.sinkMass(), s.recentMass(), (System.nanoTime()-t0)/1e6);
        }
    }
}
