package org.llmnpu.cli.sw;

import static org.junit.jupiter.api.Assertions.*;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class SwCommandTest {

    private record Outcome(int code, String out, String err) {
    }

    private static Outcome run(String... args) {
        PrintStream oldOut = System.out;
        PrintStream oldErr = System.err;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        try {
            System.setOut(new PrintStream(out, true));
            System.setErr(new PrintStream(err, true));
            int code = new CommandLine(new SwCommand()).execute(args);
            return new Outcome(code, out.toString(), err.toString());
        } finally {
            System.setOut(oldOut);
            System.setErr(oldErr);
        }
    }

    @Test
    void runPrintsSpeedAndAccuracyAgainstFp32() {
        Outcome o = run("run", "--model", "tiny", "--prompt-len", "8", "--max-new", "4", "--quant", "int8",
                "--static", "slp=8,slr=4");
        assertEquals(0, o.code(), o.err());
        assertTrue(o.out().contains("tokens/s") && o.out().contains("SNR") && o.out().contains("top-1"), o.out());
        assertTrue(o.out().contains("max |logit difference| 0"), o.out());
    }

    @Test
    void aCheckpointWithATokenizerRunsFromTextAndPrintsText(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
            throws Exception {
        var config = new org.llmnpu.sw.model.ModelConfig(32, 64, 1, 2, 1, 264, 128);
        java.nio.file.Path weights = dir.resolve("model.bin");
        org.llmnpu.sw.io.Llama2cCheckpoint.write(org.llmnpu.sw.model.SyntheticWeights.generate(config, 1), weights);
        String[] vocab = new String[264];
        vocab[0] = "<unk>";
        vocab[1] = "<s>";
        vocab[2] = "</s>";
        for (int b = 0; b < 256; b++) {
            vocab[3 + b] = String.format("<0x%02X>", b);
        }
        String[] words = {"a", "b", "ab", " ", "the"};
        System.arraycopy(words, 0, vocab, 259, words.length);
        java.nio.file.Path tok = dir.resolve("tokenizer.bin");
        new org.llmnpu.sw.io.Llama2cTokenizer(vocab, new float[264]).write(tok);
        Outcome o = run("run", "--weights", weights.toString(), "--tokenizer", tok.toString(), "--prompt", "ab a",
                "--max-new", "5", "--quant", "int8");
        assertEquals(0, o.code(), o.err());
        assertTrue(o.out().contains("prompt 4 tokens") && o.out().contains("output: "), o.out());
        java.nio.file.Files.write(weights, java.util.Arrays.copyOf(java.nio.file.Files.readAllBytes(weights), 100));
        Outcome broken = run("run", "--weights", weights.toString());
        assertEquals(1, broken.code());
        assertTrue(broken.err().contains("model.bin") && broken.err().contains("found 100"), broken.err());
    }

    @Test
    void speculativeRunReportsAcceptanceAsJson() {
        Outcome o = run("run", "--prompt-len", "8", "--max-new", "6", "--speculative", "draft=int4-g32,gamma=3", "--json");
        assertEquals(0, o.code(), o.err());
        assertTrue(o.out().contains("\"acceptanceRate\""), o.out());
    }

    @Test
    void kvAndPassesRun() {
        Outcome kv = run("kv", "--context", "64", "--decode", "2", "--kv", "hybrid4,g32,r32", "--evict", "snapkv,w8,budget32");
        assertEquals(0, kv.code(), kv.err());
        assertTrue(kv.out().contains("bytes/token"), kv.out());
        Outcome passes = run("passes", "--sram-kib", "256", "--prefill", "32", "--context", "64");
        assertEquals(0, passes.code(), passes.err());
        assertTrue(passes.out().contains("+ attention") && passes.out().contains("est. ms"), passes.out());
    }

    @Test
    void badParametersExitWithCode2AndOneLineNamingTheParameter() {
        String[][] cases = {
            {"run", "--quant", "int9"},
            {"run", "--sparsity", "3:4"},
            {"run", "--static", "slp=4,slr=4", "--prompt-len", "8"},
            {"run", "--model", "huge"},
            {"run", "--prompt", "hello"},
            {"kv", "--kv", "hybrid4,g24,r48"},
            {"kv", "--evict", "snapkv,w32,budget16"},
            {"passes", "--sram-kib", "0"},
            {"passes", "--array", "3y"},
            {"passes", "--bandwidth-gbs", "0"},
        };
        for (String[] args : cases) {
            Outcome o = run(args);
            assertEquals(2, o.code(), String.join(" ", args));
            assertEquals(1, o.err().strip().lines().count(), o.err());
            assertTrue(o.err().startsWith("--"), o.err());
        }
    }
}
