package org.llmnpu.cli.sw;

import static org.junit.jupiter.api.Assertions.*;

import org.junit.jupiter.api.Test;

class SwCommandTest {

    private static SwOutcome run(String... args) {
        return SwOutcome.run(args);
    }

    @Test
    void runPrintsSpeedAndAccuracyAgainstFp32() {
        SwOutcome o = run("run", "--model", "tiny", "--prompt-len", "8", "--max-new", "4", "--quant", "int8",
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
        SwOutcome o = run("run", "--weights", weights.toString(), "--tokenizer", tok.toString(), "--prompt", "ab a",
                "--max-new", "5", "--quant", "int8");
        assertEquals(0, o.code(), o.err());
        assertTrue(o.out().contains("prompt 4 tokens") && o.out().contains("output: "), o.out());
        java.nio.file.Files.write(weights, java.util.Arrays.copyOf(java.nio.file.Files.readAllBytes(weights), 100));
        SwOutcome broken = run("run", "--weights", weights.toString());
        assertEquals(2, broken.code());
        assertTrue(broken.err().contains("model.bin") && broken.err().contains("found 100"), broken.err());
    }

    @Test
    void speculativeRunReportsAcceptanceAsJson() {
        SwOutcome o = run("run", "--prompt-len", "8", "--max-new", "6", "--speculative", "draft=int4-g32,gamma=3", "--json");
        assertEquals(0, o.code(), o.err());
        assertTrue(o.out().contains("\"acceptanceRate\""), o.out());
    }

    @Test
    void kvAndPassesRun() {
        SwOutcome kv = run("kv", "--context", "64", "--decode", "2", "--kv", "hybrid4,g32,r32", "--evict", "snapkv,w8,budget32");
        assertEquals(0, kv.code(), kv.err());
        assertTrue(kv.out().contains("bytes/token"), kv.out());
        SwOutcome passes = run("passes", "--sram-kib", "256", "--prefill", "32", "--context", "64");
        assertEquals(0, passes.code(), passes.err());
        assertTrue(passes.out().contains("+ attention") && passes.out().contains("est. ms"), passes.out());
    }

    @Test
    void theRealModelIsTheDefaultAndEveryCompressionAcceptsItsRaggedShape() {
        SwOutcome o = run("run", "--max-new", "8", "--quant", "int4-g32", "--quant-method", "gptq", "--sparsity", "4:8",
                "--prune", "sparsegpt");
        assertEquals(0, o.code(), o.err());
        assertTrue(o.out().contains("model stories260K, weights int4-g32@gptq+4:8@sparsegpt"), o.out());
        SwOutcome s24 = run("run", "--prompt-len", "4", "--max-new", "3", "--quant", "s2_4", "--no-calibration");
        assertEquals(0, s24.code(), s24.err());
        assertTrue(s24.out().contains("weights int8+2:4"), s24.out());
        assertTrue(run("run", "--quant", "int9").err().contains("s2_4"));
        SwOutcome wanda = run("run", "--model", "stories260K", "--max-new", "4", "--sparsity", "2:4", "--prune", "wanda");
        assertEquals(0, wanda.code(), wanda.err());
        SwOutcome staticShape = run("run", "--prompt-len", "20", "--max-new", "6", "--quant", "mxfp4", "--static", "slp=24,slr=8");
        assertEquals(0, staticShape.code(), staticShape.err());
        assertTrue(staticShape.out().contains("max |logit difference| 0"), staticShape.out());
        SwOutcome spec = run("run", "--prompt-len", "8", "--max-new", "8", "--speculative", "draft=int4-g32+4:8,gamma=3");
        assertEquals(0, spec.code(), spec.err());
        SwOutcome kv = run("kv", "--context", "100", "--decode", "4", "--kv", "pertoken4,g3,r6", "--evict", "snapkv,w8,budget40,tail-heavy");
        assertEquals(0, kv.code(), kv.err());
        SwOutcome passes = run("passes", "--model", "stories260K", "--prefill", "100", "--context", "300");
        assertEquals(0, passes.code(), passes.err());
    }

    @Test
    void evalPrintsPerplexityKlAndTop1OnHeldOutTokens() throws Exception {
        SwOutcome o = run("eval", "--compressions", "fp32,int8,4:8@sparsegpt", "--calibration", "2x32", "--held-out", "2x33");
        assertEquals(0, o.code(), o.err());
        assertTrue(o.out().contains("64 held-out tokens") && o.out().contains("| 4:8@sparsegpt |"), o.out());
        SwOutcome json = run("eval", "--compressions", "fp32", "--calibration", "1x8", "--held-out", "1x9", "--json");
        assertEquals(0, json.code(), json.err());
        var tree = new com.fasterxml.jackson.databind.ObjectMapper().readTree(json.out());
        assertTrue(tree.get(0).get("snrDb").isNull(), json.out());
        assertTrue(SwJson.reasons(tree.get(0)).get("snrDb").contains("identical"), json.out());
    }

    @Test
    void jsonHasNoNaNOrInfinityStrings() throws Exception {
        SwOutcome o = run("run", "--model", "tiny", "--prompt-len", "4", "--max-new", "3", "--json");
        assertEquals(0, o.code(), o.err());
        assertFalse(o.out().contains("NaN") || o.out().contains("Infinity\""), o.out());
        var tree = new com.fasterxml.jackson.databind.ObjectMapper().readTree(o.out());
        assertTrue(tree.get("acceptanceRate").isNull() && tree.get("snrDb").isNull(), o.out());
        assertTrue(SwJson.reasons(tree).get("acceptanceRate").startsWith("not measured"), o.out());
        SwOutcome kv = run("kv", "--context", "16", "--decode", "2", "--json");
        assertEquals(0, kv.code(), kv.err());
        assertFalse(kv.out().contains("NaN") || kv.out().contains("\"Infinity"), kv.out());
    }

    @Test
    void badModelFilesAreOneLineWithExitCode2(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        java.nio.file.Path tok = dir.resolve("tok.bin");
        String[] pieces = new String[512];
        java.util.Arrays.fill(pieces, "x");
        pieces[7] = "<0xZZ>";
        new org.llmnpu.sw.io.Llama2cTokenizer(pieces, new float[512]).write(tok);
        var config = new org.llmnpu.sw.model.ModelConfig(32, 64, 1, 2, 1, 264, 128);
        var w = org.llmnpu.sw.model.SyntheticWeights.generate(config, 1);
        java.util.Arrays.fill(w.finalNorm(), 3e38f); // finite weights whose logits overflow float32
        java.nio.file.Path huge = dir.resolve("huge.bin");
        org.llmnpu.sw.io.Llama2cCheckpoint.write(w, huge);
        SwOutcome overflow = run("run", "--weights", huge.toString(), "--prompt-len", "3", "--max-new", "2");
        assertEquals(2, overflow.code(), overflow.err());
        assertTrue(overflow.err().contains("huge.bin (FP32): the logits are not finite"), overflow.err());
        String[][] cases = {
            {"run", "--weights", dir.resolve("missing.bin").toString()},
            {"run", "--weights", dir.toString()},
            {"kv", "--weights", dir.toString()},
            {"eval", "--weights", dir.toString(), "--compressions", "fp32"},
            {"run", "--tokenizer", dir.toString(), "--prompt", "hi"},
            {"run", "--tokenizer", tok.toString(), "--prompt", "hi"},
        };
        for (String[] args : cases) {
            SwOutcome o = run(args);
            assertEquals(2, o.code(), String.join(" ", args) + ": " + o.err());
            assertEquals(1, o.err().strip().lines().count(), o.err());
            assertFalse(o.err().contains("Exception") || o.err().contains("For input string"), o.err());
        }
    }

    @Test
    void badParametersExitWithCode2AndOneLineNamingTheParameter() {
        String[][] cases = {
            {"run", "--quant", "int9"},
            {"run", "--sparsity", "3:4"},
            {"run", "--static", "slp=4,slr=4", "--prompt-len", "8"},
            {"run", "--model", "huge"},
            {"run", "--prompt", "hello"},
            {"kv", "--kv", "hybrid4,g32,r48"},
            {"run", "--prune", "obs", "--sparsity", "2:4"},
            {"run", "--quant-method", "obq"},
            {"eval", "--held-out", "16"},
            {"eval", "--held-out", "2x600", "--compressions", "fp32"},
            {"eval", "--compressions", "int4-g32@gptq+2:4@nope"},
            {"kv", "--evict", "snapkv,w32,budget16"},
            {"passes", "--sram-kib", "0"},
            {"passes", "--model", "stories260K", "--context", "2048"},
            {"passes", "--array", "3y"},
            {"passes", "--bandwidth-gbs", "0"},
        };
        for (String[] args : cases) {
            SwOutcome o = run(args);
            assertEquals(2, o.code(), String.join(" ", args));
            assertEquals(1, o.err().strip().lines().count(), o.err());
            assertTrue(o.err().startsWith("--"), o.err());
        }
    }
}
