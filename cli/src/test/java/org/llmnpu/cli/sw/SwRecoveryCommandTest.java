package org.llmnpu.cli.sw;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code sw run|eval --recover}: recovery fine-tuning from the command line, its cache and its bad values. */
class SwRecoveryCommandTest {

    private static SwOutcome sw(String... args) {
        return SwOutcome.run(args);
    }

    @Test
    void runRecoversA24ModelAndASecondRunTakesItFromTheCache(@TempDir Path cache) {
        String old = System.getProperty("llmnpu.cache");
        System.setProperty("llmnpu.cache", cache.toString());
        try {
            String[] args = {"run", "--sparsity", "2:4", "--prune", "wanda", "--recover", "masked", "--recover-steps", "3",
                "--recover-batch", "2", "--recover-seq-len", "16", "--prompt-len", "4", "--max-new", "4"};
            SwOutcome first = sw(args);
            assertEquals(0, first.code(), first.err());
            assertTrue(first.out().contains("recovery: masked, 3 steps") && first.out().contains("tokens/s"), first.out());
            assertTrue(!first.out().contains("from the cache"), first.out());
            SwOutcome second = sw(args);
            assertEquals(0, second.code(), second.err());
            assertTrue(second.out().contains("weights from the cache"), second.out());
            SwOutcome eval = sw("eval", "--sparsity", "4:8", "--recover", "lora", "--recover-steps", "2", "--recover-batch", "2",
                    "--recover-seq-len", "16", "--calibration", "2x32", "--held-out", "2x33");
            assertEquals(0, eval.code(), eval.err());
            assertTrue(eval.out().contains("| 4:8 | none |") && eval.out().contains("| 4:8 | lora r8, 2 steps |"), eval.out());
        } finally {
            if (old == null) {
                System.clearProperty("llmnpu.cache");
            } else {
                System.setProperty("llmnpu.cache", old);
            }
        }
    }

    @Test
    void badRecoveryValuesExit2NamingTheOptionAndTheAllowedValues() {
        SwOutcome method = sw("run", "--sparsity", "2:4", "--recover", "full");
        assertEquals(2, method.code());
        assertTrue(method.err().contains("--recover") && method.err().contains("none, lora or masked"), method.err());
        SwOutcome dense = sw("run", "--recover", "lora");
        assertEquals(2, dense.code());
        assertTrue(dense.err().contains("--recover") && dense.err().contains("--sparsity 2:4 or 4:8"), dense.err());
        SwOutcome steps = sw("run", "--sparsity", "2:4", "--recover", "masked", "--recover-steps", "0");
        assertEquals(2, steps.code());
        assertTrue(steps.err().contains("--recover-steps must be >= 1"), steps.err());
        SwOutcome targets = sw("eval", "--sparsity", "2:4", "--recover", "lora", "--lora-targets", "wq,wz");
        assertEquals(2, targets.code());
        assertTrue(targets.err().contains("wq,wk,wv,wo,w1,w2,w3"), targets.err());
        SwOutcome prune = sw("eval", "--sparsity", "2:4", "--prune", "random");
        assertEquals(2, prune.code());
        assertTrue(prune.err().contains("--prune") && prune.err().contains("magnitude, wanda or sparsegpt"), prune.err());
        SwOutcome loss = sw("eval", "--sparsity", "2:4", "--recover", "lora", "--recover-loss", "mse");
        assertEquals(2, loss.code());
        assertTrue(loss.err().contains("--recover-loss") && loss.err().contains("distill or ce"), loss.err());
        SwOutcome both = sw("eval", "--sparsity", "2:4", "--compressions", "int8");
        assertEquals(2, both.code());
        assertTrue(both.err().contains("not both"), both.err());
    }
}
